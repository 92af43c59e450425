"""``risktable rules ...``: the rules engine from the command line."""

from __future__ import annotations

import argparse
import importlib
from typing import Any

# Each module registers its own sub-command of `rules`.
_COMMANDS: tuple[str, ...] = (
    "rules_map", "rules_odds", "rules_selfplay", "rules_replay", "rules_presets",
)


def register(sub: Any) -> None:
    """Add the ``rules`` command group to the top-level sub-parsers."""
    parser: argparse.ArgumentParser = sub.add_parser(
        "rules", help="the rules engine: map, odds, battles, self-play, replay, presets"
    )
    rules_sub = parser.add_subparsers(dest="rules_command", metavar="SUBCOMMAND")
    rules_sub.required = True
    for name in _COMMANDS:
        importlib.import_module(f"risktable.cli.{name}").register(rules_sub)
