"""Seeded, deterministic bots that play the classic game.

A bot is anything with ``choose(state) -> Action`` for a state where a seat
must act. Every bot here draws all its randomness from its own
``random.Random(seed)``, so a seed fixes every decision: ``uniform`` is uniform
over the legal actions (for fuzzing; its games seldom end), ``random`` plays
random purposeful moves and finishes its games, ``heuristic`` plays to win.
"""

from __future__ import annotations

from typing import Protocol

from risktable.rules.actions import Action
from risktable.rules.bots.heuristic import HeuristicBot
from risktable.rules.bots.random_bot import RandomBot
from risktable.rules.bots.uniform import UniformBot
from risktable.rules.state import State


class Bot(Protocol):
    """A player: picks one legal action for the seat that must act in ``state``."""

    def choose(self, state: State) -> Action: ...


BOTS: dict[str, type[UniformBot] | type[HeuristicBot]] = {
    "uniform": UniformBot,
    "random": RandomBot,
    "heuristic": HeuristicBot,
}

__all__ = ["BOTS", "Bot", "HeuristicBot", "RandomBot", "UniformBot"]
