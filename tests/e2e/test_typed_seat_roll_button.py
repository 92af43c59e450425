"""A seat that enters its dice with the knob (no dice of its own) asked for a roll: its
Roll button is answered with how to give the dice, not "waiting for the dice" as if
another seat were to roll. Real hub, mosquitto and firmware seats; no tray."""

from __future__ import annotations

from pathlib import Path

from risktable.broker_address import BrokerAddress
from risktable.demo.seats import SeatProcess
from tests.e2e.hub_driver import LedLog, start_service
from tests.support.mosquitto import Mosquitto

TABLE = "typed-roll"
WAIT = 30.0


def test_the_roll_button_of_a_typed_seat_says_to_enter_the_dice(
        fresh_mosquitto: Mosquitto, micropython: str, tmp_path: Path) -> None:
    broker = BrokerAddress(fresh_mosquitto.host, fresh_mosquitto.port)
    service = start_service(broker.host, broker.port, TABLE, 3, tmp_path / "hub", LedLog())
    seats = {n: SeatProcess(micropython, n, TABLE, broker, tmp_path, keepalive=5,
                            extra_config={"dice": "manual"}) for n in (1, 2, 3)}
    try:
        for seat in seats.values():
            seat.start()
        typed = seats[1]
        # The opening roll arms a die on every seat.
        assert typed.wait_until(lambda out: bool((out.get("armed") or [0, 0])[1]), WAIT), \
            typed.outputs
        typed.history = []
        typed.send({"button": "roll"})
        words = "Enter your dice: turn to each face, press Confirm"
        assert typed.wait_until(lambda _: any(
            words in " ".join(" ".join(h.get("oled") or []).split())
            for h in typed.history or []), WAIT), typed.history
    finally:
        for seat in seats.values():
            seat.stop()
        service.stop()
