"""The ``risktable`` console command.

Each command group lives in its own module of this package and exposes
``register(subparsers)``; the module adds its parser and sets ``handler`` to a
function ``(args) -> int``. Errors a user can fix are raised as
:class:`~risktable.cli.errors.CliError` and printed as one line.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from risktable import __version__
from risktable.cli.errors import CliError, OneLineParser

# Command groups, in the order `risktable --help` lists them.
_GROUPS: tuple[str, ...] = (
    "demo",
    "hub",
    "rules",
    "broker",
    "games",
    "table",
    "dice",
    "seat",
    "cards",
)


def build_parser() -> argparse.ArgumentParser:
    """Return the top-level parser with every command group registered."""
    parser = OneLineParser(prog="risktable", description="Refereed, lit, networked Risk table.")
    parser.add_argument("--version", action="version", version=f"risktable {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    sub.required = True
    for name in _GROUPS:
        importlib.import_module(f"risktable.cli.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args))
    except CliError as exc:
        print(f"risktable: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("risktable: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
