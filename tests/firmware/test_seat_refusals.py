"""A refusal read on the seat: the seat firmware under MicroPython, the hub's TableService
on mosquitto. The hub refuses the seat's input; the seat's display shows the reason (as
seat/refusal.py words it and the display code lays it out), then its view again."""

from __future__ import annotations

from pathlib import Path

import pytest

from riskproto import topics
from tests.e2e.hub_driver import seat_one_at_a_table
from tests.support.mosquitto import Mosquitto
from tests.support.oled_text import layout, refusal_lines, shown_text

TABLE = "fw-refusal"


@pytest.mark.slow
def test_the_seat_shows_why_the_hub_refused_its_input_then_its_view(
        micropython: str, mosquitto: Mosquitto, tmp_path: Path) -> None:
    with seat_one_at_a_table(micropython, mosquitto.host, mosquitto.port, TABLE,
                             tmp_path) as (service, watcher, seat):
        lines = service.inspect(lambda session: session.view(1)["lines"])
        # The opening roll: seat 1 has its die to roll, nothing to choose.
        seat.send({"button": "confirm"})
        error_topic = topics.seat(TABLE, 1, topics.SEAT_ERROR)
        watcher.wait_until(lambda got: any(r.topic == error_topic for r in got), timeout=20)
        error = next(r.doc for r in watcher.received if r.topic == error_topic)
        assert error is not None and error["code"] == "not_allowed", error
        reason = seat.wait_output(lambda line: "oled" in line)["oled"]
        assert reason == refusal_lines(error)
        assert shown_text(layout(reason)) == "Waiting for the dice: nothing to choose now"
        # A few seconds later the view is back.
        seat.wait_output(lambda line: line.get("oled") == lines)
        assert seat.process.poll() is None, seat.stderr_lines
