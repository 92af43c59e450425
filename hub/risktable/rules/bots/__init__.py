"""Seeded, deterministic bots that play the classic game.

A bot is anything with ``choose(state) -> Action`` for a state where a seat
must act. Both bots here draw all their randomness from their own
``random.Random(seed)``, so a seed fixes every decision.
"""

from __future__ import annotations

from typing import Protocol

from risktable.rules.actions import Action
from risktable.rules.bots.heuristic import HeuristicBot
from risktable.rules.bots.random_bot import RandomBot
from risktable.rules.state import State


class Bot(Protocol):
    """A player: picks one legal action for the seat that must act in ``state``."""

    def choose(self, state: State) -> Action: ...


BOTS: dict[str, type[RandomBot] | type[HeuristicBot]] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
}

__all__ = ["BOTS", "Bot", "HeuristicBot", "RandomBot"]
