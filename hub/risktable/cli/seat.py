"""``risktable seat ...``: per-seat configuration, firmware build, flashing, updates."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from riskproto import topics
from risktable.broker_address import DEFAULT_PORT
from risktable.cli.common import PASSWORD_ENV, add_secret_options, read_secret
from risktable.cli.errors import CliError
from risktable.defaults import DEFAULT_TABLE
from risktable.demo.seats import SeatProcess
from risktable.i18n import DEFAULT as DEFAULT_LANGUAGE
from risktable.i18n import LANGUAGES
from risktable.paths import MissingPart
from risktable.provision import seat_keys
from risktable.provision.micropython_version import BOARD, VARIANT, VERSION_TEXT
from risktable.provision.phone_seat import (
    DEFAULT_PAGE_PORT,
    PhoneSeatError,
    page_and_ws,
    reload_broker,
    rotate_seat_password,
    seat_account,
    seat_page_url,
)
from risktable.provision.seat_build import REPO, BuildError, build
from risktable.provision.seat_config import BOARDS, DICE, seat_config, write_seat_config
from risktable.provision.seat_flash import FlashError, Plan, flash
from risktable.provision.seat_update import (
    DEFAULT_PROBATION_S,
    UPDATED,
    UpdateError,
    Updater,
    format_results,
    results_json,
)
from risktable.seat_play import (
    KeyboardKeys,
    SeatPlayError,
    SelfTestCardKeys,
    load_deck_keys,
    load_seat_file,
    play_seat,
    selftest_report,
)
from risktable.unix_port import find_micropython

WIFI_PASSWORD_ENV = "RISKTABLE_WIFI_PASSWORD"


def register(sub: Any) -> None:
    """Add the ``seat`` command group to the top-level sub-parsers."""
    parser: argparse.ArgumentParser = sub.add_parser(
        "seat", help="seat controllers: per-seat config, firmware build, a seat on this PC"
    )
    seat_sub = parser.add_subparsers(dest="seat_command", metavar="SUBCOMMAND")
    seat_sub.required = True

    config = seat_sub.add_parser("config", help="write one seat's config.json")
    config.add_argument("--seat", type=int, required=True, help="seat number 1-6")
    config.add_argument("--table", default=DEFAULT_TABLE,
                        help=f"table id (default: {DEFAULT_TABLE})")
    config.add_argument("--broker-host", required=True, help="broker address as the seat sees it")
    config.add_argument("--broker-port", type=int, default=DEFAULT_PORT)
    config.add_argument("--username", help="broker user name for this seat")
    add_secret_options(config, "password", PASSWORD_ENV, "this seat's broker password")
    config.add_argument("--wifi-ssid", default="", help="WiFi network (an esp32 seat needs one)")
    add_secret_options(config, "wifi-password", WIFI_PASSWORD_ENV, "the WiFi password")
    config.add_argument("--board", choices=BOARDS, default="emulated",
                        help="emulated (a seat on a PC, the default) or esp32")
    config.add_argument("--dice", choices=DICE, default="edice")
    config.add_argument("--keepalive", type=int, default=30, help="MQTT keepalive, seconds")
    config.add_argument("--ring-size", type=int, default=None,
                        help="pixels on the LED ring (default: 12 on the emulated board; an "
                        "esp32 seat's is the seat pinout's led_ring count)")
    config.add_argument(
        "--control-port", type=int, default=0, help="emulated board: loopback input port"
    )
    config.add_argument("--lang", default=None, metavar="CODE",
                        help="language of the seat's player, its screens and its own "
                        "words: " + ", ".join(LANGUAGES)
                        + " (default: none, so the seat shows the hub's [table] language "
                        "and its own few words in English)")
    config.add_argument("--broker-ca", type=Path, metavar="FILE",
                        help="the table CA's certificate (ca.crt of `risktable broker config "
                        "--tls`): the seat then talks TLS to the broker, and --broker-host "
                        "must be a name or address its certificate carries")
    config.add_argument("--out", type=Path, required=True, help="file to write")
    config.set_defaults(handler=_config)

    play = seat_sub.add_parser(
        "play", help="be a seat from this PC's keyboard: the seat firmware under MicroPython")
    play.add_argument("--seat", type=int, required=True, help="seat number 1-6")
    play.add_argument("--config", type=Path,
                      help="the seat's configuration (risktable seat config --board emulated;"
                           " default: seatN.json here)")
    play.add_argument("--deck", type=Path,
                      help="the hub's enrolled deck file (cards.json) of a deck enrolled at "
                      "an NFC seat, for the card keys (default: the keyboard deck, which "
                      "this seat enrolls with c)")
    play.add_argument("--micropython", help="the MicroPython unix-port binary")
    play.add_argument("--no-colour", action="store_true", help="no colours (also NO_COLOR)")
    play.set_defaults(handler=_play)

    selftest = seat_sub.add_parser(
        "selftest", help="walk through every part of a seat, one at a time (the bring-up "
        "self-test), on the emulated board from this PC's keyboard",
        description="The seat firmware's bring-up self-test (firmware/README.md, "
        "\"Self-test\") on the emulated board: the display asks for each button, the "
        "knob both ways, the ring's colours, a card, the dice, Wi-Fi and the broker; each "
        "step passes or names the likely wiring fault. A real seat runs the same test "
        "when Confirm is held while it powers on. Exit status 0 when every step passed.")
    selftest.add_argument("--seat", type=int, required=True, help="seat number 1-6")
    selftest.add_argument("--config", type=Path,
                          help="the seat's configuration (default: seatN.json here)")
    selftest.add_argument("--micropython", help="the MicroPython unix-port binary")
    selftest.add_argument("--no-colour", action="store_true",
                          help="no colours (also NO_COLOR)")
    selftest.set_defaults(handler=_selftest)

    qr = seat_sub.add_parser(
        "qr", help="a phone seat: print the seat page's link as a QR code",
        description="Print the phone seat page's address for seat N as a QR code and as "
        "text. The seat's account travels in the URL fragment (#...), which browsers "
        "never send to a server. --rotate first gives seat N a new password, so a page "
        "opened from an older code cannot log in again (docs/phone-seat.md).")
    qr.add_argument("seat", type=int, metavar="N", help="seat number 1-6")
    qr.add_argument("--broker-dir", type=Path, default=Path("/etc/risktable/broker"),
                    metavar="DIR", help="the folder of risktable broker config "
                    "(credentials.json, passwd; default /etc/risktable/broker)")
    qr.add_argument("--host", help="the hub's address as phones reach it "
                    "(default: the broker's --bind)")
    qr.add_argument("--page", metavar="URL", help="the hub's page server "
                    f"(default: http://HOST:{DEFAULT_PAGE_PORT}/, [web]'s default port)")
    qr.add_argument("--ws-url", metavar="URL", help="the table broker's WebSockets listener "
                    "for seats (default: ws://HOST:PORT/ of --seat-websockets)")
    qr.add_argument("--keepalive", type=int, metavar="S",
                    help="the page's MQTT keepalive in seconds (default 15)")
    qr.add_argument("--lang", choices=LANGUAGES, metavar="LANG",
                    help="the page's language, one of " + ", ".join(LANGUAGES)
                    + " (default: the phone's own)")
    qr.add_argument("--rotate", action="store_true",
                    help="issue seat N a new password first: the old page is cut off")
    qr.add_argument("--broker-pid", type=int, metavar="PID",
                    help="with --rotate: the table broker's process, sent SIGHUP so it "
                    "reads the new password at once")
    qr.set_defaults(handler=_qr)

    build_p = seat_sub.add_parser("build", help="compile the firmware with mpy-cross")
    build_p.add_argument("--out", type=Path, required=True, help="folder to fill")
    build_p.add_argument(
        "--march", help="mpy-cross -march, e.g. xtensawin for ESP32-S3 (bytecode is portable)"
    )
    build_p.add_argument(
        "--source", type=Path, default=REPO, help="checkout holding firmware/ and protocol/"
    )
    build_p.set_defaults(handler=_build)

    flash_p = seat_sub.add_parser(
        "flash",
        help="write MicroPython onto an ESP32-S3 seat, then its firmware and configuration",
        description=(
            f"Checks the chip is an ESP32-S3, writes the MicroPython image (--firmware: the "
            f"{BOARD} {VARIANT} build of v{VERSION_TEXT} from micropython.org), checks the "
            "runtime's version, then copies the compiled firmware, the seat's "
            "configuration and its update key (made the first time, kept in --keys for "
            "risktable seat update) with mpremote. Exit codes: 2 bad arguments or files, 3 the "
            "board does not answer, 4 not an ESP32-S3, 5 another MicroPython version, "
            "1 a tool failed."),
    )
    flash_p.add_argument("--port", required=True, help="the board's serial port, e.g. /dev/ttyACM0")
    flash_p.add_argument(
        "--firmware", type=Path,
        help="MicroPython image to write first (without it the board's MicroPython stays)")
    flash_p.add_argument("--config", type=Path, required=True,
                         help="the seat's configuration (risktable seat config --board esp32)")
    flash_p.add_argument("--seat", type=int, help="refuse a configuration for another seat")
    flash_p.add_argument(
        "--build", type=Path,
        help="the compiled firmware (risktable seat build --out DIR); default: build it now")
    flash_p.add_argument("--wait", type=float, default=30.0,
                         help="seconds to wait for MicroPython to answer (default: 30)")
    _keys_option(flash_p)
    flash_p.add_argument("--new-secret", action="store_true",
                         help="give the seat a new update key (the old one signs nothing "
                              "more for it)")
    flash_p.set_defaults(handler=_flash)

    update_p = seat_sub.add_parser(
        "update",
        help="update seats' firmware over the network (refused while a game is running)",
        description=(
            "Compiles the firmware, serves its files over HTTP from this machine (the "
            "broker's host, as the seats reach it) and sends each seat the manifest on its "
            "cmd topic; each seat downloads and checks every file, switches, and rolls "
            "back by itself when the new version does not come online within --probation "
            "seconds. Prints each seat's progress and result. Exit codes: 0 every seat "
            "updated, 1 a seat was not (rolled back, failed) or the update could not start."),
    )
    which = update_p.add_mutually_exclusive_group(required=True)
    which.add_argument("--seat", type=int, help="the seat to update (1-6)")
    which.add_argument("--all", action="store_true", help="every seat that is online")
    update_p.add_argument("--table", default=DEFAULT_TABLE,
                          help=f"table id (default: {DEFAULT_TABLE})")
    update_p.add_argument("--broker", default=f"127.0.0.1:{DEFAULT_PORT}",
                          help=f"the table's broker, HOST:PORT (default: 127.0.0.1:{DEFAULT_PORT})")
    update_p.add_argument("--username", help="broker account (risktable broker config's "
                                             "<table>-updater)")
    update_p.add_argument("--broker-ca", type=Path, metavar="FILE",
                          help="the table CA's certificate, when the broker speaks TLS "
                          "(ca.crt of `risktable broker config --tls`)")
    add_secret_options(update_p, "password", PASSWORD_ENV, "the account's broker password")
    update_p.add_argument("--bind", default="0.0.0.0",
                          help="address the file server listens on (default: 0.0.0.0)")
    update_p.add_argument("--http-port", type=int, default=0,
                          help="the file server's port (default: any free one)")
    update_p.add_argument("--probation", type=int, default=DEFAULT_PROBATION_S,
                          help="seconds a new version has to come online before the seat "
                               f"rolls back (5-3600, default {DEFAULT_PROBATION_S})")
    update_p.add_argument("--timeout", type=float, default=300.0,
                          help="seconds to wait for every seat's result (default: 300)")
    update_p.add_argument(
        "--source", type=Path, default=REPO, help="checkout holding firmware/ and protocol/")
    update_p.add_argument("--json", action="store_true", help="the results as JSON")
    _keys_option(update_p)
    update_p.set_defaults(handler=_update)


def _keys_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--keys", type=Path, default=seat_keys.DEFAULT_DIR, metavar="DIR",
                        help="the folder of the seats' update keys, which sign their "
                             f"updates (default: {seat_keys.DEFAULT_DIR})")


def _config(args: argparse.Namespace) -> int:
    ca = None
    if args.broker_ca is not None:
        try:
            ca = args.broker_ca.read_bytes()
        except OSError as exc:
            raise CliError(f"cannot read --broker-ca {args.broker_ca}: {exc.strerror}") from None
    try:
        cfg = seat_config(
            args.table,
            args.seat,
            args.broker_host,
            args.broker_port,
            args.username,
            read_secret(args, "password", PASSWORD_ENV),
            args.wifi_ssid,
            read_secret(args, "wifi-password", WIFI_PASSWORD_ENV) or "",
            args.board,
            args.dice,
            args.keepalive,
            args.ring_size,
            args.control_port,
            args.lang,
            ca,
        )
    except ValueError as exc:
        raise CliError(str(exc), 2) from None
    try:
        write_seat_config(cfg, args.out)
    except OSError as exc:
        raise CliError(f"cannot write {args.out}: {exc.strerror}") from None
    print(f"wrote {args.out} (seat {args.seat} of table {args.table})")
    return 0


def _play(args: argparse.Namespace) -> int:
    path = args.config or Path(f"seat{args.seat}.json")
    try:
        topics.check_seat(args.seat)
        lang = str(load_seat_file(path, args.seat).get("lang", DEFAULT_LANGUAGE))
        seat = SeatProcess.of_file(find_micropython(args.micropython), args.seat, path)
        deck = (load_deck_keys(args.deck, outputs=lambda: dict(seat.outputs), lang=lang)
                if args.deck is not None else KeyboardKeys(lambda: dict(seat.outputs), lang))
        colour = not args.no_colour and "NO_COLOR" not in os.environ
        return play_seat(seat, sys.stdin, sys.stdout, deck=deck, colour=colour)
    except (SeatPlayError, MissingPart, ValueError) as exc:
        raise CliError(str(exc)) from None


def _selftest(args: argparse.Namespace) -> int:
    path = args.config or Path(f"seat{args.seat}.json")
    try:
        topics.check_seat(args.seat)
        load_seat_file(path, args.seat)
        seat = SeatProcess.of_file(find_micropython(args.micropython), args.seat, path,
                                   selftest=True)
        colour = not args.no_colour and "NO_COLOR" not in os.environ
        return play_seat(seat, sys.stdin, sys.stdout, deck=SelfTestCardKeys(), colour=colour,
                         ended=selftest_report)
    except (SeatPlayError, MissingPart, ValueError) as exc:
        raise CliError(str(exc)) from None


def _qr(args: argparse.Namespace) -> int:
    import segno

    if args.broker_pid is not None and not args.rotate:
        raise CliError("--broker-pid reloads the broker after --rotate: give both", 2)
    if args.keepalive is not None and not 1 <= args.keepalive <= 600:
        raise CliError("--keepalive must be 1 to 600 seconds", 2)
    try:
        topics.check_seat(args.seat)
    except ValueError as exc:
        raise CliError(str(exc), 2) from None
    try:
        if args.rotate:
            account = rotate_seat_password(args.broker_dir, args.seat)
            print(f"seat {args.seat}: new password written to {args.broker_dir}")
            if args.broker_pid is not None:
                try:
                    reload_broker(args.broker_pid)
                except PhoneSeatError as exc:
                    raise PhoneSeatError(f"{exc} (the new password is written: reload the "
                                         "broker to cut the old page off)") from None
                print(f"broker {args.broker_pid} reloaded: the old page cannot log in again")
            else:
                print("reload the table broker now (systemctl reload mosquitto, or kill -HUP "
                      "its pid): until then the new password is not known to it")
        else:
            account = seat_account(args.broker_dir, args.seat)
        page, ws_url = page_and_ws(account, args.host, args.page, args.ws_url)
        url = seat_page_url(page, account.table, args.seat, account.username,
                            account.password, ws_url, args.keepalive, args.lang)
    except PhoneSeatError as exc:
        raise CliError(str(exc), 2) from None
    except OSError as exc:
        raise CliError(f"cannot write {args.broker_dir}: {exc.strerror}") from None
    segno.make(url, error="m").terminal(out=sys.stdout, compact=True)
    print(f"seat {args.seat} of table {account.table}: {url}")
    print("the link holds the seat's password: show it only to that seat's player")
    return 0


def _build(args: argparse.Namespace) -> int:
    try:
        result = build(args.out, repo=args.source, march=args.march)
    except BuildError as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:
        raise CliError(f"cannot write {args.out}: {exc.strerror}") from None
    print(
        f"compiled {len(result.compiled)} modules and copied {len(result.copied)} files "
        f"into {result.out}"
    )
    return 0


def _flash(args: argparse.Namespace) -> int:
    def say(line: str) -> None:
        print(f"seat flash: {line}", flush=True)

    if args.seat is not None:
        try:
            topics.check_seat(args.seat)
        except ValueError as exc:
            raise CliError(str(exc), 2) from None
    with tempfile.TemporaryDirectory(prefix="risktable-seat-") as scratch:
        build_dir = args.build
        try:
            if build_dir is None:
                say("compiling the firmware with mpy-cross")
                build_dir = build(Path(scratch) / "seat").out
            flash(Plan(args.port, build_dir, args.config, args.firmware, args.seat, args.wait,
                       args.keys, args.new_secret), say=say)
        except BuildError as exc:
            raise CliError(str(exc)) from None
        except FlashError as exc:
            raise CliError(str(exc), exc.exit_code) from None
    return 0


def _update(args: argparse.Namespace) -> int:
    from risktable.broker_address import BrokerAddress
    from risktable.provision.fw_version import bundled_version

    try:
        if args.seat is not None:
            topics.check_seat(args.seat)
        topics.check_table(args.table)
        broker = BrokerAddress.parse(args.broker)
        if not 5 <= args.probation <= 3600:
            raise ValueError(f"--probation {args.probation}: from 5 to 3600 seconds")
    except ValueError as exc:
        raise CliError(str(exc), 2) from None
    password = read_secret(args, "password", PASSWORD_ENV)

    def say(line: str) -> None:
        print(f"seat update: {line}", flush=True)

    with tempfile.TemporaryDirectory(prefix="risktable-update-") as scratch:
        try:
            say("compiling the firmware with mpy-cross")
            build_dir = build(Path(scratch) / "seat", repo=args.source).out
            updater = Updater(
                broker.host, broker.port, args.table, build_dir, bundled_version(args.source),
                args.keys, username=args.username, password=password, bind=args.bind,
                http_port=args.http_port, probation_s=args.probation, say=say,
                ca=args.broker_ca)
            results = updater.run(None if args.all else [args.seat], timeout_s=args.timeout)
        except (BuildError, UpdateError) as exc:
            raise CliError(str(exc)) from None
        except OSError as exc:
            raise CliError(f"cannot serve the firmware on {args.bind}:{args.http_port}: "
                           f"{exc.strerror}") from None
    print(results_json(results) if args.json else format_results(results))
    return 0 if all(r.result == UPDATED for r in results) else 1
