"""Seeded, deterministic bots that play every rule set.

A bot is anything with ``choose(state) -> Action`` for a state where a seat
must act. Every bot here draws all its randomness from its own
``random.Random(seed)``, so a seed fixes every decision: ``uniform`` is uniform
over the legal actions (for fuzzing; its games seldom end), ``random`` plays
random purposeful moves and finishes its games. The three levels a table offers
are ``easy`` (a novice), ``normal`` (the heuristic player, also called
``heuristic``) and ``hard`` (searches ahead from what its seat may see);
``docs/bots.md`` describes them and their measured strength.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from risktable.rules.actions import Action
from risktable.rules.bots.easy import EasyBot
from risktable.rules.bots.hard import HardBot
from risktable.rules.bots.heuristic import HeuristicBot
from risktable.rules.bots.random_bot import RandomBot
from risktable.rules.bots.uniform import UniformBot
from risktable.rules.state import State


class Bot(Protocol):
    """A player: picks one legal action for the seat that must act in ``state``."""

    def choose(self, state: State) -> Action: ...


# The playing levels a seat may be given, weakest first.
LEVELS = ("easy", "normal", "hard")

BOTS: dict[str, Callable[[int | None], Bot]] = {
    "uniform": UniformBot,
    "random": RandomBot,
    "easy": EasyBot,
    "normal": HeuristicBot,
    "heuristic": HeuristicBot,  # the name normal had before the levels; kept as an alias
    "hard": HardBot,
}

__all__ = ["BOTS", "LEVELS", "Bot", "EasyBot", "HardBot", "HeuristicBot", "RandomBot",
           "UniformBot"]
