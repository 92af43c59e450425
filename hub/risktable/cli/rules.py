"""``risktable rules ...``: the rules engine from the command line."""

from __future__ import annotations

import argparse
from typing import Any

from risktable.cli.lazy import Entry, LazySubcommands

# Each module registers its own sub-commands of `rules`, loaded when named.
_COMMANDS: tuple[Entry, ...] = (
    ("map", "rules_map", "territories, continents, bonuses and borders of the classic map"),
    ("odds", "rules_odds", "exact outcome table of a single roll"),
    ("battle", "rules_odds", "whole-battle distribution, attacking to the end"),
    ("selfplay", "rules_selfplay", "bots play complete seeded games; counts and speed"),
    ("replay", "rules_replay",
     "check a recorded game (docs/action-log.md); first bad action or summary"),
    ("presets", "rules_presets", "the rule sets a game can start with, and their options"),
)


def register(sub: Any) -> None:
    """Add the ``rules`` command group to the top-level sub-parsers."""
    parser: argparse.ArgumentParser = sub.add_parser(
        "rules", help="the rules engine: map, odds, battles, self-play, replay, presets"
    )
    rules_sub = parser.add_subparsers(dest="rules_command", metavar="SUBCOMMAND",
                                      action=LazySubcommands)
    assert isinstance(rules_sub, LazySubcommands)
    rules_sub.required = True
    rules_sub.add_lazy(_COMMANDS)
