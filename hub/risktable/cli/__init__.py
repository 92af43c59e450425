"""The ``risktable`` console command.

Each command group lives in its own module of this package and exposes
``register(subparsers)``; the module adds its parser and sets ``handler`` to a
function ``(args) -> int``. Errors a user can fix are raised as
:class:`~risktable.cli.errors.CliError` and printed as one line.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from risktable import __version__
from risktable.cli.errors import CliError, OneLineParser
from risktable.cli.lazy import Entry, LazySubcommands

# Command groups, in the order `risktable --help` lists them: each group's module is
# imported only when the command line names the group (risktable.cli.lazy).
_GROUPS: tuple[Entry, ...] = (
    ("demo", "demo", "play a demo game: embedded broker, hub and seat firmwares, LED view"),
    ("hub", "hub", "run the hub service for a table (Ctrl-C or SIGTERM stops it)"),
    ("rules", "rules", "the rules engine: map, odds, battles, self-play, replay, presets"),
    ("broker", "broker", "the table's MQTT broker: accounts, passwords and ACL for mosquitto"),
    ("games", "games", "the games in the hub's journal: list, export, report, resume"),
    ("table", "table", "the referee's controls of the running hub: pause, resume, undo, status"),
    ("dice", "dice", "the physical dice: per-die statistics, the seats' paired smart dice, "
     "dice read from photos"),
    ("seat", "seat", "seat controllers: per-seat config, firmware build, a seat on this PC"),
    ("cards", "cards", "the physical card deck"),
    ("leds", "leds", "the territory LED board: light each territory in chain order"),
    ("install", "install",
     "put the hub on this Raspberry Pi (or upgrade it): broker, units, udev rule"),
    ("uninstall", "install",
     "remove the hub from this Pi, keeping its configuration, journal and cards"),
)


def build_parser(*, full: bool = True) -> argparse.ArgumentParser:
    """Return the top-level parser with every command group registered.

    ``full=False`` registers placeholders instead, each loading its group's module
    when parsing reaches it (what :func:`main` uses, so a command imports only
    what it needs)."""
    parser = OneLineParser(prog="risktable", description="Refereed, lit, networked Risk table.")
    parser.add_argument("--version", action="version", version=f"risktable {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser,
                                action=LazySubcommands)
    assert isinstance(sub, LazySubcommands)
    sub.required = True
    sub.add_lazy(_GROUPS)
    if full:
        sub.load_all()
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the process exit code."""
    parser = build_parser(full=False)
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
