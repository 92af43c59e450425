"""Argument helpers shared by command groups."""

from __future__ import annotations

import argparse
import dataclasses
import logging
from collections.abc import Callable

from riskproto import topics
from risktable.cli.errors import CliError
from risktable.config import ConfigError, HubConfig, LedConfig, load_config
from risktable.service.address import BrokerAddress


def broker_address(text: str) -> BrokerAddress:
    """argparse type for ``HOST:PORT``."""
    try:
        return BrokerAddress.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def whole_number(name: str, low: int, high: int | None = None) -> Callable[[str], int]:
    """argparse type: a whole number from ``low`` to ``high`` (no upper bound if None).

    >>> whole_number("dice", 1, 3)("2")
    2
    """

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{name} must be a whole number, not {text!r}") from None
        if high is None and value < low:
            raise argparse.ArgumentTypeError(f"{name} must be at least {low}, not {value}")
        if high is not None and not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{name} must be {low} to {high}, not {value}")
        return value

    return parse


# A seat count N: the seats are numbered 1..N.
seat_count = whole_number("seats", 1, topics.MAX_SEATS)


def table_id(text: str) -> str:
    """argparse type for a table id (it becomes part of every topic)."""
    try:
        return topics.check_table(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def setup_logging(verbose: int) -> None:
    """Structured one-line logs on stderr: time, level, logger, message."""
    level = logging.DEBUG if verbose > 1 else logging.INFO if verbose else logging.WARNING
    logging.basicConfig(
        level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", force=True
    )


def hub_config(args: argparse.Namespace) -> HubConfig:
    """The hub configuration: ``--config FILE`` (or, without one, a development setup
    with no GPIO panel and no LED board) overridden by the connection options given."""
    try:
        config = (load_config(args.config) if args.config
                  else HubConfig(leds=LedConfig(enabled=False), panel_enabled=False))
    except ConfigError as exc:
        raise CliError(str(exc)) from exc
    broker = config.broker
    if args.broker:
        broker = dataclasses.replace(broker, address=args.broker)
    if getattr(args, "username", None) is not None:
        broker = dataclasses.replace(broker, username=args.username, password=args.password)
    table = config.table
    if args.table:
        table = dataclasses.replace(table, id=args.table)
    if args.seats:
        table = dataclasses.replace(table, seats=args.seats)
    return dataclasses.replace(
        config, broker=broker, table=table, data_dir=args.data_dir or config.data_dir
    )
