"""Emulated seats supervised like a chip (demo/seats.py): a seat its watchdog resets is
started again and the game goes on; a crash loop is given up; a seat that asks for its
safe mode is left in it. Real MicroPython throughout (the demo's firmware, and scripts
that end as the firmware's resets and safe mode end the process)."""

from __future__ import annotations

import io
import json
import threading
from pathlib import Path

import pytest

from risktable.demo.runner import DemoOptions, run_demo
from risktable.demo.seats import RESET_STATUS, SAFE_MODE_STATUS, RestartBudget, SeatProcess

# The stalled seat's watchdog, on a shorter clock than a table's 8 s. At 1 s, beside
# another copy of the suite (load about 20), the seat's loops missed it again and again:
# more than five resets in a minute, which the supervisor rightly calls a crash loop.
WATCHDOG_MS = 3000
STALLED = 2


@pytest.mark.slow
def test_a_demo_seat_that_stalls_is_reset_by_its_watchdog_started_again_and_the_game_goes_on(
        micropython: str) -> None:
    seats: dict[int, SeatProcess] = {}

    def on_seat(seat: SeatProcess) -> None:
        seats[seat.seat] = seat
        if seat.seat == STALLED:
            config = json.loads(seat.config_path.read_text())
            config["watchdog_ms"] = WATCHDOG_MS
            seat.config_path.write_text(json.dumps(config))
            threading.Thread(target=stall, args=(seat,), daemon=True).start()

    def stall(seat: SeatProcess) -> None:
        # Some way into the game (ten inputs of this seat numbered), the seat's next ring
        # frame blocks for good, like a driver stuck on its bus.
        with seat._changed:
            seat._changed.wait_for(lambda: len(seat.verdicts) >= 10, 120)
        seat.send({"stall": True})

    out = io.StringIO()
    summary = run_demo(DemoOptions(seats=3, rules="capital_1993_short", seed=1, colour=False,
                                   micropython=micropython, table="stall", on_seat=on_seat),
                       out)
    said = out.getvalue()
    assert summary.winner_seat is not None, said
    # On a machine so busy that the seat's loops miss its short watchdog, it may reset
    # more than once: each time by its watchdog, started again, and the game goes on.
    restarted = [line for line in said.splitlines() if line.startswith(f"seat {STALLED} ")]
    assert restarted and set(restarted) == {
        f"seat {STALLED} was reset (its watchdog): started again"}, said
    assert seats[STALLED].restarts == len(restarted)
    assert len(seats[STALLED].verdicts) > 10, "the seat played on after its restart"
    assert all(seats[n].restarts == 0 for n in seats if n != STALLED)


def _seat_running(micropython: str, tmp_path: Path, script: str) -> SeatProcess:
    # A SeatProcess whose "firmware" is a one-line MicroPython script.
    config = tmp_path / "seat4.json"
    config.write_text("{}")
    seat = SeatProcess.of_file(micropython, 4, config)
    seat._argv = [micropython, "-c", script]
    return seat


def test_a_crash_loop_is_given_up_and_said(micropython: str, tmp_path: Path) -> None:
    # Every start ends as the emulated board's reset does (SIGUSR1 to itself, its cause
    # kept beside the configuration): two restarts fit the budget, the third does not.
    (tmp_path / "seat4.json.reset").write_text("watchdog")
    seat = _seat_running(micropython, tmp_path, 'import os; os.system("kill -USR1 $PPID")')
    seat.budget = RestartBudget(2, 600.0)
    said: list[str] = []
    done = threading.Event()

    def say(line: str) -> None:
        said.append(line)
        if "not started again" in line:
            done.set()

    seat.start(say=say)
    try:
        assert done.wait(60), said
        assert said == ["seat 4 was reset (its watchdog): started again"] * 2 + [
            "seat 4 was reset 3 times within 600 s (last: its watchdog): not started again"]
        assert seat.restarts == 2 and not seat.alive()
        assert seat.process is not None and seat.process.returncode == RESET_STATUS
    finally:
        seat.stop()


def test_a_seat_that_asks_for_its_safe_mode_is_left_in_it(micropython: str,
                                                          tmp_path: Path) -> None:
    seat = _seat_running(micropython, tmp_path, f"import sys; sys.exit({SAFE_MODE_STATUS})")
    said: list[str] = []
    done = threading.Event()
    seat.start(say=lambda line: (said.append(line), done.set()))
    try:
        assert done.wait(30)
        assert said == ["seat 4 asked for its safe mode: left in it, not started again"]
        assert seat.restarts == 0 and not seat.alive()
    finally:
        seat.stop()


def test_a_bad_configuration_puts_the_firmware_in_its_safe_mode_and_it_is_left_there(
    micropython: str, tmp_path: Path
) -> None:
    # The real firmware: a configuration it cannot use is its safe mode (status 5), not
    # a reset: starting it again would fail the same way (firmware/README.md, "Safe mode").
    config = tmp_path / "seat4.json"
    config.write_text('{"seat": 4}')  # no table, no broker
    seat = SeatProcess.of_file(micropython, 4, config)
    said: list[str] = []
    done = threading.Event()
    seat.start(say=lambda line: (said.append(line), done.set()))
    try:
        assert done.wait(30)
        assert seat.process is not None and seat.process.wait(30) == SAFE_MODE_STATUS
        assert said == ["seat 4 asked for its safe mode: left in it, not started again"]
        assert not seat.alive() and seat.restarts == 0
    finally:
        seat.stop()


def test_an_exit_a_person_must_mend_is_not_restarted(micropython: str, tmp_path: Path) -> None:
    # Any other exit (1 here) is left for a person to look at, and nothing is said.
    seat = _seat_running(micropython, tmp_path, "import sys; sys.exit(1)")
    said: list[str] = []
    seat.start(say=said.append)
    try:
        assert seat.process is not None and seat.process.wait(30) == 1
        assert seat._supervisor is not None
        seat._supervisor.join(10)
        assert not seat.alive() and seat.restarts == 0 and said == []
    finally:
        seat.stop()
