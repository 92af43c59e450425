"""Seeded, deterministic bots that play the classic game.

A bot is anything with ``choose(state) -> Action`` for a state where a seat
must act. Every bot here draws all its randomness from its own
``random.Random(seed)``, so a seed fixes every decision. The three levels a table
offers are ``easy`` (a novice), ``normal`` (the heuristic player, also called
``heuristic``) and ``hard`` (searches ahead from what its seat may see);
``docs/bots.md`` describes them and their measured strength.

:data:`KINDS` is the one list of bots: every name a configuration, a command, the demo
or a test may give, how to make that bot from a seed, what it plays like, and whether
it may sit at a live table. A new bot is one line there; :data:`BOTS`,
:data:`TABLE_BOTS` and the commands' help are read from it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple, Protocol

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


class BotKind(NamedTuple):
    """One kind of bot: ``make(seed)`` builds one, ``plays`` says in a few words how it
    plays (for help texts), ``at_table`` whether the hub may seat it at a live table,
    ``level`` whether it is one of the playing levels offered to players."""

    make: Callable[[int], Bot]
    plays: str
    at_table: bool = True
    level: bool = False


KINDS: dict[str, BotKind] = {
    "uniform": BotKind(UniformBot, "uniform over the legal actions, for fuzzing; its games "
                                   "seldom end", at_table=False),
    "random": BotKind(RandomBot, "random purposeful moves; its games end"),
    # The levels, weakest first.
    "easy": BotKind(EasyBot, "plays as normal, blind to continents and missions", level=True),
    "normal": BotKind(HeuristicBot, "plays to win", level=True),
    "hard": BotKind(HardBot, "searches ahead from what its seat sees; slower", level=True),
    "heuristic": BotKind(HeuristicBot, "normal's name before the levels"),
}
# The bot that plays when none is named (self-play, the demo's seats).
DEFAULT_BOT = "normal"

# Each bot's name and how to make it from a seed: ``BOTS[name](seed)``.
BOTS: dict[str, Callable[[int], Bot]] = {name: kind.make for name, kind in KINDS.items()}
# The bots a table's configuration may seat (``[table] bots``).
TABLE_BOTS: tuple[str, ...] = tuple(name for name, kind in KINDS.items() if kind.at_table)
# The playing levels a seat may be given, weakest first: easy, normal, hard.
LEVELS: tuple[str, ...] = tuple(name for name, kind in KINDS.items() if kind.level)


def level_of(name: str) -> str | None:
    """The level (:data:`LEVELS`) the bot called ``name`` plays at, or None for a bot that
    is no level (random, uniform): "heuristic" plays at "normal".

    >>> level_of("heuristic"), level_of("hard"), level_of("random")
    ('normal', 'hard', None)
    """
    make = KINDS[name].make
    return next((level for level in LEVELS if KINDS[level].make is make), None)


def described(names: tuple[str, ...] | None = None) -> str:
    """The bots ``names`` (default: all) for a help text, each with how it plays, the
    default marked: "uniform (...), random (...) or heuristic (plays to win, the default)".
    """
    chosen = tuple(KINDS) if names is None else names
    parts = [f"{name} ({KINDS[name].plays}{', the default' if name == DEFAULT_BOT else ''})"
             for name in chosen]
    return ", ".join(parts[:-1]) + " or " + parts[-1] if len(parts) > 1 else parts[0]


__all__ = ["BOTS", "DEFAULT_BOT", "KINDS", "LEVELS", "TABLE_BOTS", "Bot", "BotKind", "EasyBot",
           "HardBot", "HeuristicBot", "RandomBot", "UniformBot", "described", "level_of"]
