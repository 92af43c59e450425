"""Argument helpers shared by command groups."""

from __future__ import annotations

import argparse
import logging

from risktable.service.address import BrokerAddress


def broker_address(text: str) -> BrokerAddress:
    """argparse type for ``HOST:PORT``."""
    try:
        return BrokerAddress.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def seat_list(text: str) -> list[int]:
    """argparse type for a seat count ``N`` (seats 1..N) or a list ``1,3,4``."""
    try:
        if "," in text:
            seats = sorted({int(part) for part in text.split(",")})
        else:
            seats = list(range(1, int(text) + 1))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a seat count or list") from exc
    if not seats or seats[0] < 1 or seats[-1] > 6:
        raise argparse.ArgumentTypeError(f"seats must be between 1 and 6, got {text!r}")
    return seats


def setup_logging(verbose: int) -> None:
    """Structured one-line logs on stderr: time, level, logger, message."""
    level = logging.DEBUG if verbose > 1 else logging.INFO if verbose else logging.WARNING
    logging.basicConfig(
        level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", force=True
    )
