"""Argument helpers shared by command groups."""

from __future__ import annotations

import argparse
import logging

from riskproto import topics
from risktable.service.address import BrokerAddress


def broker_address(text: str) -> BrokerAddress:
    """argparse type for ``HOST:PORT``."""
    try:
        return BrokerAddress.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def seat_count(text: str) -> int:
    """argparse type for a seat count N (the seats are numbered 1..N)."""
    if not text.isdigit() or not 1 <= int(text) <= 6:
        raise argparse.ArgumentTypeError(f"seats must be a count from 1 to 6, got {text!r}")
    return int(text)


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
