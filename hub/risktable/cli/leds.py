"""``risktable leds test``: check the LED board's wiring one territory at a time."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from risktable.cli.errors import CliError

# How long the controller may take to confirm a scene before the wiring check gives up:
# the link retransmits three times at 0.25 s, so this is several of those rounds.
_SHOWN_TIMEOUT_S = 3.0


def register(sub: Any) -> None:
    """Add the ``leds`` command group to the top-level sub-parsers."""
    parser: argparse.ArgumentParser = sub.add_parser(
        "leds", help="the territory LED board: light each territory in chain order")
    leds_sub = parser.add_subparsers(dest="leds_command", metavar="SUBCOMMAND")
    leds_sub.required = True
    p = leds_sub.add_parser(
        "test", help="light each territory alone, in chain order, and name it")
    p.add_argument("--port", help="the LED controller's serial port (default: the "
                   "configuration's [leds] port, else /dev/ttyACM0)")
    p.add_argument("--config", type=Path,
                   help="hub configuration file whose [leds] section names the port")
    p.add_argument("--baudrate", type=int, help="serial speed (default: the configuration's)")
    p.add_argument("--delay", type=float, metavar="S",
                   help="step on by itself every S seconds (default: wait for Enter)")
    p.add_argument("--from", dest="start", metavar="TERRITORY",
                   help="start at this territory id (e.g. ukraine) instead of the chain's first")
    p.add_argument("--json", action="store_true",
                   help="one JSON object per territory lit instead of text")
    p.set_defaults(handler=run_test)


def _port(args: argparse.Namespace) -> tuple[str, int]:
    from risktable.config import ConfigError, LedConfig, load_config

    leds = LedConfig()
    if args.config is not None:
        try:
            leds = load_config(args.config).leds
        except ConfigError as exc:
            raise CliError(str(exc)) from exc
    return (args.port or leds.port, args.baudrate or leds.baudrate)


def run_test(args: argparse.Namespace) -> int:
    """Walk the chain: each territory lit alone while the terminal names it, then all off."""
    from risktable.hardware.data import load_led_map
    from risktable.leds.link import LedLink, LedPortError
    from risktable.leds.walk import chain_steps, lit_alone
    from risktable.rules.board import classic_board

    if args.delay is not None and args.delay < 0:
        raise CliError(f"--delay must be 0 or more seconds, got {args.delay}")
    port, baudrate = _port(args)
    led_map = load_led_map()
    board = classic_board()
    names = dict(zip(board.territory_ids, board.territory_names, strict=True))
    try:
        steps = list(chain_steps(led_map, names, args.start))
    except KeyError:
        raise CliError(f"--from {args.start}: no such territory on the LED board "
                       f"(ids look like {led_map.chain()[0]}; see `risktable rules map`)"
                       ) from None
    link = LedLink(port, led_map, baudrate=baudrate)
    try:
        link.start()
    except LedPortError as exc:
        raise CliError(str(exc)) from exc
    interactive = args.delay is None
    try:
        if not args.json:
            how = "Enter for the next, q then Enter to stop" if interactive \
                else f"the next in {args.delay:g} s"
            print(f"LED board on {port}: {len(steps)} territories in chain order; {how}.",
                  flush=True)
        for step in steps:
            link.show(lit_alone(step.territory))
            if not link.wait_shown(_SHOWN_TIMEOUT_S):
                raise CliError(f"the LED controller on {port} did not confirm the scene for "
                               f"{step.territory}: is the controller firmware running on it "
                               "(docs/led-link.md)?")
            if args.json:
                print(json.dumps({"position": step.position, "territory": step.territory,
                                  "name": step.name, "leds": list(step.leds)}), flush=True)
            else:
                print(step.line(), flush=True)
            if interactive:
                answer = sys.stdin.readline()
                if answer == "" or answer.strip().lower() in ("q", "quit"):
                    break
            else:
                time.sleep(args.delay)
        link.show({})
        if not link.wait_shown(_SHOWN_TIMEOUT_S):
            raise CliError(f"the LED controller on {port} did not confirm the last scene "
                           "(all off)")
        if not args.json:
            print("all off", flush=True)
    finally:
        link.stop()
    return 0
