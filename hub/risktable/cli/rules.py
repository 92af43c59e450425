"""``risktable rules ...``: the rules engine from the command line.

A group of commands (:mod:`risktable.cli.lazy`): each module registers its own
sub-commands of ``rules``, and is imported only when the command line names one.
"""

from __future__ import annotations

from risktable.cli.lazy import Entry

COMMANDS: tuple[Entry, ...] = (
    ("map", "rules_map", "territories, continents, bonuses and borders of the classic map"),
    ("odds", "rules_odds", "exact outcome table of a single roll"),
    ("battle", "rules_odds", "whole-battle distribution, attacking to the end"),
    ("selfplay", "rules_selfplay", "bots play complete seeded games; counts and speed"),
    ("replay", "rules_replay",
     "check a recorded game (docs/action-log.md); first bad action or summary"),
    ("presets", "rules_presets", "the rule sets a game can start with, and their options"),
)
