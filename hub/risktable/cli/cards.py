"""``risktable cards enroll``: teach the hub which NFC tag is on which card."""

from __future__ import annotations

import argparse
import signal
import threading
from pathlib import Path
from typing import Any

from riskproto.messages import E_NOT_ALLOWED, ProtocolError
from risktable.cards.deck_file import (
    DECK_FILES,
    DeckFileError,
    deck_path,
    load_deck,
    save_deck,
)
from risktable.cards.enroll import Enrollment, Step
from risktable.cli.common import (
    broker_address,
    hub_config,
    seat_count,
    setup_logging,
    table_id,
)
from risktable.cli.errors import CliError
from risktable.cli.hub import open_leds
from risktable.game_rules import RulesUnknown, rules_config
from risktable.leds.scene import CURSOR, TerritoryLight
from risktable.rules.board import classic_board
from risktable.service.hub import HubService
from risktable.service.mqtt_link import BrokerUnavailable


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser("cards", help="the physical card deck")
    cards_sub = parser.add_subparsers(dest="cards_command", metavar="SUBCOMMAND")
    cards_sub.required = True
    enroll = cards_sub.add_parser(
        "enroll", help="tap every card on a seat's reader to record its tag and symbol or stars",
        description="Lights each card's territory in turn; tap that card on the seat's reader, "
        "turn the encoder to what is printed on it (the symbol of a 1993 card, the stars of a "
        "2016 card), press Confirm. Progress is saved after every card, so an interrupted "
        "enrollment carries on where it stopped.")
    enroll.add_argument("--config", type=Path, help="hub configuration file (TOML)")
    enroll.add_argument("--broker", type=broker_address, help="MQTT broker HOST:PORT")
    enroll.add_argument("--table", type=table_id, help="table id")
    enroll.add_argument("--seats", type=seat_count, help="seats at the table")
    enroll.add_argument("--seat", type=seat_count, default=1,
                        help="the seat whose reader is used (default 1)")
    enroll.add_argument("--data-dir", type=Path, help="the hub's data directory")
    enroll.add_argument("--deck", choices=sorted(DECK_FILES),
                        help="the edition of the deck (default: the configured rule set's)")
    enroll.add_argument("--restart", action="store_true",
                        help="forget the enrolled cards and start again")
    enroll.add_argument("-v", "--verbose", action="count", default=0, help="log to stderr")
    enroll.set_defaults(handler=run_enroll)


def run_enroll(args: argparse.Namespace) -> int:
    setup_logging(args.verbose)
    config = hub_config(args)
    if args.seat > config.table.seats:
        raise CliError(f"--seat {args.seat}: the table has seats 1 to {config.table.seats}", 2)
    board = classic_board()
    try:
        deck = args.deck or rules_config(config.table.rules, config.table.seats,
                                         config.table.house).options.deck
    except RulesUnknown as exc:
        raise CliError(f"{exc} (or name the deck with --deck)", 2) from exc
    path = deck_path(config.data_dir, deck)
    try:
        cards = {} if args.restart else load_deck(path, board, deck)
    except DeckFileError as exc:
        raise CliError(f"{exc} (use --restart to enroll from scratch)") from exc
    enrollment = Enrollment(board, cards, deck)
    finished = threading.Event()
    lock = threading.Lock()

    leds = open_leds(config)

    def show(hub: HubService) -> None:
        if leds is not None:
            lit = enrollment.territory
            leds.show({lit: TerritoryLight(CURSOR, 1.0, blink=True)} if lit else {})
        hub.update_view(args.seat, active=True, phase="setup", lines=enrollment.lines(),
                        ring={"mode": "progress", "value": min(99, enrollment.position),
                              "max": min(99, enrollment.size)})

    def on_event(seat: int, msg: dict[str, Any]) -> ProtocolError | None:
        if seat != args.seat:
            return ProtocolError(E_NOT_ALLOWED, f"cards are being enrolled at seat {args.seat}")
        with lock:
            before = enrollment.position
            kind = msg["kind"]
            if kind == "card":
                step = enrollment.tap(msg["uid"])
            elif kind == "encoder":
                step = enrollment.turn(msg["steps"])
            elif kind == "button" and msg["button"] in ("confirm", "encoder"):
                step = enrollment.confirm()
                if step.accepted:
                    save_deck(path, board, enrollment.enrolled, deck)
                    print(f"card {before + 1} of {enrollment.size} stored", flush=True)
            elif kind == "button" and msg["button"] == "back":
                step = enrollment.back()
            else:
                step = Step(False, "tap the card, turn to what it shows, press Confirm")
            show(service)
            if enrollment.done:
                finished.set()
            return None if step.accepted else ProtocolError(E_NOT_ALLOWED, step.detail)

    service = HubService(
        config.broker.address, config.table.id, config.table.seats,
        username=config.broker.username, password=config.broker.password,
        keepalive=config.broker.keepalive, on_event=on_event)
    signal.signal(signal.SIGTERM, lambda *_: finished.set())
    try:
        service.start()
    except BrokerUnavailable as exc:
        raise CliError(str(exc)) from exc
    print(f"enrolling the {deck} deck at seat {args.seat}: {len(enrollment.enrolled)} of "
          f"{enrollment.size} cards already known; progress is saved in {path}", flush=True)
    show(service)
    if enrollment.done:
        finished.set()
    try:
        finished.wait()
    except KeyboardInterrupt:
        pass
    finally:
        service.stop()
        if leds is not None:
            leds.stop()
    print(f"{len(enrollment.enrolled)} of {enrollment.size} cards enrolled", flush=True)
    return 0 if enrollment.done else 1
