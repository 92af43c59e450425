"""``risktable hub``: run the hub service for one table until stopped."""

from __future__ import annotations

import argparse
import signal
import threading
from pathlib import Path
from typing import Any

from risktable.cli.common import broker_address, seat_list, setup_logging
from risktable.cli.errors import CliError
from risktable.service.address import BrokerAddress
from risktable.service.hub import HubService
from risktable.service.mqtt_link import BrokerUnavailable


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "hub", help="run the hub service for a table (Ctrl-C or SIGTERM stops it)"
    )
    parser.add_argument("--broker", type=broker_address, default=BrokerAddress("127.0.0.1"),
                        help="MQTT broker HOST:PORT (default 127.0.0.1:1883)")
    parser.add_argument("--table", default="table1", help="table id (default table1)")
    parser.add_argument("--seats", type=seat_list, default=[1, 2, 3, 4],
                        help="seat count N or list 1,2,5 (default 4)")
    parser.add_argument("--data-dir", type=Path, default=Path("var"),
                        help="where the hub keeps its state (default ./var)")
    parser.add_argument("--username", help="MQTT user name")
    parser.add_argument("--password", help="MQTT password")
    parser.add_argument("-v", "--verbose", action="count", default=1,
                        help="more log output (-vv for debug)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    setup_logging(args.verbose)
    try:
        service = HubService(
            args.broker, args.table, args.seats, args.data_dir,
            username=args.username, password=args.password,
        )
    except ValueError as exc:
        raise CliError(str(exc), 2) from exc
    except OSError as exc:
        raise CliError(f"cannot use data directory {args.data_dir}: {exc.strerror}") from exc
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        service.start()
    except BrokerUnavailable as exc:
        raise CliError(str(exc)) from exc
    try:
        stop.wait()
    except KeyboardInterrupt:
        pass
    finally:
        service.stop()
    return 0
