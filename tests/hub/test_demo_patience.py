"""The demo bots' patience (risktable.demo.patience): it runs out after its seconds, and
time the hub spends waiting for its disk does not count, in every wait it is used in
(here a press the seat refuses while the hub is busy; the pilot's answers in
test_demo_pilot.py)."""

from __future__ import annotations

import threading
import time
from typing import Any

from risktable.demo.patience import LOOK, Patience

from .test_demo_press import _Seat


def _comes_after(seconds: float, then: threading.Event | None = None) -> threading.Event:
    # An event set ``seconds`` from now, on a thread of its own (``then`` set after it).
    came = threading.Event()

    def later() -> None:
        threading.Event().wait(seconds)
        came.set()
        if then is not None:
            then.set()

    threading.Thread(target=later, daemon=True).start()
    return came


def test_patience_runs_out_after_its_seconds() -> None:
    started = time.monotonic()
    assert not Patience(0.2).wait(lambda seconds: threading.Event().wait(seconds))
    assert time.monotonic() - started >= 0.2
    came = threading.Event()
    came.set()
    assert Patience(0.2).wait(came.wait)  # what is there already: the first look sees it


def test_time_the_hub_waits_for_its_disk_is_given_back() -> None:
    # What is awaited comes after the patience and a whole look more: only the stall,
    # said until then, makes the wait see it (without one it runs out: the test above).
    ended = threading.Event()
    came = _comes_after(0.2 + LOOK, then=ended)
    assert Patience(0.2, lambda: not ended.is_set()).wait(came.wait)


class _BusyHub(_Seat):
    """A seat that refuses every press (the hub has not answered its last input) until
    ``answered`` is set, then takes the next."""

    def __init__(self, answered: threading.Event) -> None:
        super().__init__(refusals=0)
        self._answered_now = answered

    def send(self, command: dict[str, Any]) -> None:
        self.lines.append(command)
        with self._changed:
            if self._answered_now.is_set():
                self.verdicts.append(("numbered", [len(self.lines), "button"]))
            else:
                self.verdicts.append(("refused", "waiting for the hub"))
            self._changed.notify_all()


def test_a_bot_presses_again_while_the_hub_waits_for_its_disk() -> None:
    seat = _BusyHub(_comes_after(0.2 + LOOK))
    seat.press({"button": "confirm"}, patience=0.2, stalled=lambda: True)
    assert seat.verdicts[-1][0] == "numbered"
    assert [kind for kind, _ in seat.verdicts[:-1]] == ["refused"] * (len(seat.verdicts) - 1)
    # a busy hub with no stall said: the bot gives up (the hub answers only afterwards)
    impatient = _BusyHub(threading.Event())
    impatient.press({"button": "confirm"}, patience=0.2)
    assert impatient.lines and {kind for kind, _ in impatient.verdicts} == {"refused"}
