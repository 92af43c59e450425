"""``risktable demo``: the whole table on this machine, no broker or hardware needed."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import threading
from typing import Any

from risktable.cli.common import broker_address, setup_logging, whole_number
from risktable.cli.errors import CliError
from risktable.defaults import DEFAULT_RULES, DEFAULT_SEATS
from risktable.demo.broker import EmbeddedBrokerError
from risktable.demo.runner import DemoError, DemoOptions, run_demo
from risktable.game_rules import RULE_SETS, default_seats
from risktable.i18n import DEFAULT, LANGUAGES, NAMES
from risktable.paths import MissingPart
from risktable.rules.bots import LEVELS, TABLE_BOTS, described
from risktable.rules.presets import PRESETS
from risktable.service.mqtt_link import BrokerUnavailable


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "demo", help="play a demo game: embedded broker, hub and seat firmwares, LED view"
    )
    parser.add_argument("--seats", type=whole_number("seats", 2, 6),
                        help=f"players, 2 to 6 as the rule set allows (default {DEFAULT_SEATS}; "
                        "2 for a two-player rule set)")
    parser.add_argument("--rules", choices=RULE_SETS, default=DEFAULT_RULES, metavar="RULES",
                        help=f"the rule set: {DEFAULT_RULES} (default) or one of "
                        + ", ".join(PRESETS))
    parser.add_argument("--broker", type=broker_address,
                        help="use this MQTT broker HOST:PORT instead of the embedded one")
    parser.add_argument("--port", type=whole_number("port", 0, 65535), default=0,
                        help="port of the embedded broker on 127.0.0.1 (default: a free one)")
    parser.add_argument("--micropython", help="path of the MicroPython unix-port binary")
    parser.add_argument("--seed", type=int, default=1, help="seed of the bots and dice")
    parser.add_argument("--bots", type=_bot_names, default=(), metavar="LEVEL[,LEVEL...]",
                        help="how the bots play: one level for every bot seat, or one per "
                             "seat no person plays, in seat order (e.g. hard,easy,easy): "
                             f"{described(LEVELS)}")
    parser.add_argument("--play", type=whole_number("seat", 1, 6), metavar="SEAT",
                        help="play this seat yourself from the keyboard (arrows, Enter, "
                             "Backspace, r, c, 1-9, q; needs a terminal)")
    parser.add_argument("--delay", type=float, default=0.05,
                        help="seconds between turns on a live terminal view (default 0.05)")
    parser.add_argument("--no-colour", action="store_true",
                        help="plain text LED view (default when NO_COLOR is set or not a tty)")
    parser.add_argument("--web", action="store_true",
                        help="also serve the live board page (prints its address; after the "
                             "game it stays up until Ctrl-C)")
    parser.add_argument("--web-port", type=whole_number("port", 0, 65535), default=0,
                        help="HTTP port of the board page on 127.0.0.1 (default: a free one)")
    parser.add_argument("--phone", type=whole_number("seat", 1, 6), action="append",
                        default=[], metavar="SEAT",
                        help="play this seat from the phone seat page (with --web; may be "
                        "given for several seats): its link and QR code are printed, the "
                        "hub keeps the hands, and the game starts once the page is online")
    parser.add_argument("--lang", choices=LANGUAGES, default=DEFAULT,
                        help="the language of the seats' screens and the demo's lines: "
                        + ", ".join(f"{code} ({NAMES[code]})" for code in LANGUAGES)
                        + f" (default {DEFAULT})")
    parser.add_argument("--tray", action="store_true",
                        help="the dice tray: each battle roll a photo of real dice, read by "
                        "the camera's reader and accepted or corrected at the seat (needs "
                        "the camera-read extra; docs/dice-camera.md)")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="log to stderr")
    parser.set_defaults(handler=run)


def _bot_names(text: str) -> tuple[str, ...]:
    names = tuple(n.strip() for n in text.split(","))
    unknown = [n for n in names if n not in TABLE_BOTS]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"no bot is called {unknown[0]!r}; the levels are {', '.join(LEVELS)}")
    return names


def _wait_for_interrupt(_data_dir: object) -> None:
    # The page keeps showing the final board until the person is done looking.
    print("the board page stays up: Ctrl-C to stop", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        threading.Event().wait()


def run(args: argparse.Namespace) -> int:
    setup_logging(args.verbose)
    colour = not args.no_colour and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    options = DemoOptions(
        seats=args.seats or default_seats(args.rules),
        rules=args.rules,
        broker=args.broker,
        port=args.port,
        micropython=args.micropython,
        seed=args.seed,
        bots=args.bots,
        colour=colour,
        turn_delay=max(0.0, args.delay),
        play=args.play,
        keyboard=sys.stdin,
        web=args.web,
        lang=args.lang,
        web_port=args.web_port,
        phones=tuple(args.phone),
        after_game=_wait_for_interrupt if args.web else None,
        tray=args.tray,
    )
    try:
        run_demo(options, sys.stdout)
    except (DemoError, MissingPart, EmbeddedBrokerError, BrokerUnavailable) as exc:
        raise CliError(str(exc)) from exc
    return 0
