"""A demo bot's press that its seat refuses at once (a Confirm while the hub has not
answered the seat's last input: a busy hub) is pressed again, as a person presses again,
until the seat takes it; before, the bot waited for an answer to an input never sent."""

from __future__ import annotations

import threading
from typing import Any

from risktable.demo.seats import SeatProcess


class _Seat(SeatProcess):
    """The firmware's side: each line is refused with ``why`` until ``refusals`` run out,
    then numbered."""

    def __init__(self, refusals: int, restart_after: int | None = None) -> None:
        self.verdicts: list[tuple[str, Any]] = []
        self._changed = threading.Condition()
        self.restarts = 0
        self.lines: list[dict[str, Any]] = []
        self._refusals = refusals
        self._restart_after = restart_after

    def send(self, command: dict[str, Any]) -> None:
        self.lines.append(command)
        with self._changed:
            if self._restart_after is not None and len(self.lines) > self._restart_after:
                self.restarts += 1  # the line is lost with the seat's memory
            elif len(self.lines) <= self._refusals:
                self.verdicts.append(("refused", "waiting for the hub"))
            else:
                self.verdicts.append(("numbered", [len(self.lines), "button"]))
            self._changed.notify_all()


def test_a_refused_press_is_pressed_again_until_the_seat_takes_it() -> None:
    seat = _Seat(refusals=3)
    seat.press({"button": "confirm"}, patience=10.0)
    assert seat.lines == [{"button": "confirm"}] * 4
    assert [kind for kind, _ in seat.verdicts] == ["refused"] * 3 + ["numbered"]


def test_a_press_taken_at_once_is_typed_once() -> None:
    seat = _Seat(refusals=0)
    seat.press({"encoder": 2}, patience=10.0)
    assert seat.lines == [{"encoder": 2}]


def test_patience_ends_the_presses_and_a_restart_leaves_the_line_to_the_caller() -> None:
    stubborn = _Seat(refusals=10_000)
    stubborn.press({"button": "confirm"}, patience=0.6)
    assert 1 < len(stubborn.lines) < 10
    reset = _Seat(refusals=1, restart_after=1)
    reset.press({"button": "confirm"}, patience=10.0)
    assert len(reset.lines) == 2 and reset.restarts == 1
