"""The ``risktable`` console command.

Each command group lives in its own module of this package and exposes
``register(subparsers)``; the module adds its parser and sets ``handler`` to a
function ``(args) -> int`` (a group of further commands, like ``rules``, has a
``COMMANDS`` table instead: :mod:`risktable.cli.lazy`). Errors a user can fix are raised as
:class:`~risktable.cli.errors.CliError` and printed as one line.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from risktable import __version__
from risktable.cli.errors import CliError, OneLineParser
from risktable.cli.lazy import Entry, add_commands

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
    ("tray", "tray", "the dice tray: a camera reads the dice rolled into it"),
    ("seat", "seat", "seat controllers: per-seat config, firmware build, a seat on this PC"),
    ("cards", "cards", "the physical card deck"),
    ("leds", "leds", "the territory LED board: light each territory in chain order"),
    ("install", "install",
     "put the hub on this Raspberry Pi (or upgrade it): broker, units, udev rule"),
    ("uninstall", "install",
     "remove the hub from this Pi, keeping its configuration, journal and cards"),
)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """Return the top-level parser.

    With ``argv`` (what :func:`main` uses) it is the parser for that command line:
    only the module of the command it names is imported, so a command imports only
    what it needs; without, every command group is registered (the full parser)."""
    parser = OneLineParser(prog="risktable", description="Refereed, lit, networked Risk table.")
    parser.add_argument("--version", action="version", version=f"risktable {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser,
                                required=True)
    add_commands(sub, _GROUPS, argv)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the process exit code."""
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(argv).parse_args(argv)
    try:
        try:
            return int(args.handler(args))
        finally:
            # The log lines the command queued (risktable.log_output) are written
            # before its last word; the module is loaded only if it set logging up.
            if (common := sys.modules.get("risktable.cli.common")) is not None:
                common.flush_logging()
    except CliError as exc:
        print(f"risktable: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("risktable: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
