"""The demo: broker, hub and seat firmwares on this machine, and the LED view.

Everything is real except the hardware: the seats run the actual firmware
under the MicroPython unix port on its emulated board, and talk to the hub
through an MQTT broker (embedded amqtt unless ``--broker`` names one).
"""

from __future__ import annotations

import contextlib
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from risktable.demo.broker import EmbeddedBroker
from risktable.demo.seats import SeatProcess
from risktable.palette import seat_colour
from risktable.paths import find_micropython
from risktable.service.address import BrokerAddress
from risktable.service.hub import HubService


class DemoError(Exception):
    """The demo could not run; the message names the problem and the fix."""


@dataclass(frozen=True)
class DemoOptions:
    """What ``risktable demo`` was asked to do."""

    seats: int = 4
    broker: BrokerAddress | None = None
    port: int = 0
    micropython: str | None = None
    table: str = "demo"
    seed: int = 1
    colour: bool = True
    seat_timeout: float = 30.0
    turn_delay: float = 0.05


@dataclass
class DemoTable:
    """The running parts, handed to whatever plays on them."""

    options: DemoOptions
    hub: HubService
    seats: list[SeatProcess]
    out: TextIO


Play = Callable[[DemoTable], object]


def _diagnose(seats: list[SeatProcess], hub: HubService) -> str:
    online = hub.online_seats()
    for seat in seats:
        if not seat.alive():
            tail = seat.stderr_tail[-1] if seat.stderr_tail else "no output"
            return f"seat {seat.seat} firmware exited: {tail}"
    missing = sorted({seat.seat for seat in seats} - online)
    last = [seat.stderr_tail[-1] for seat in seats if seat.seat in missing and seat.stderr_tail]
    said = f" (it said: {last[0]})" if last else ""
    return f"seats {missing} did not come online though their firmware is running{said}"


def run_demo(options: DemoOptions, out: TextIO, play: Play | None = None) -> None:
    """Start everything, wait for the seats, run ``play``, and tear it all down."""
    micropython = find_micropython(options.micropython)
    seat_numbers = list(range(1, options.seats + 1))
    with contextlib.ExitStack() as stack:
        address = options.broker
        if address is None:
            address = stack.enter_context(EmbeddedBroker(port=options.port)).address
            print(f"embedded MQTT broker on {address}", file=out)
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="risktable-")))
        hub = HubService(address, options.table, options.seats, workdir / "hub")
        hub.start()
        stack.callback(hub.stop)
        print(f"hub online for table {options.table!r}", file=out)
        seats: list[SeatProcess] = []
        started = time.monotonic()
        for number in seat_numbers:
            seat = SeatProcess(micropython, number, options.table, address, workdir)
            stack.callback(seat.stop)
            seats.append(seat.start())
            # One at a time: amqtt has a race between simultaneous connects.
            if not hub.wait_for_seats([number], options.seat_timeout):
                raise DemoError(_diagnose(seats, hub))
        print(
            f"{len(seats)} seat firmwares online under MicroPython "
            f"in {time.monotonic() - started:.2f} s",
            file=out,
        )
        for seat in seats:
            colour = seat_colour(seat.seat)
            if not _shows_colour(seat, colour.rgb, options.seat_timeout):
                raise DemoError(f"seat {seat.seat} never showed its colour on its LED ring")
            print(f"  seat {seat.seat}: ring shows {colour.name}", file=out)
        if play is not None:
            play(DemoTable(options, hub, seats, out))


def _shows_colour(seat: SeatProcess, rgb: tuple[int, int, int], timeout: float) -> bool:
    def lit(outputs: dict[str, Any]) -> bool:
        ring = outputs.get("ring")
        return isinstance(ring, list) and any(tuple(pixel) == rgb for pixel in ring)

    return seat.wait_until(lit, timeout)
