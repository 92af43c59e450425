"""The seat's supervisor (seat/app.py, ``Seat._watch``) under MicroPython: it feeds the
watchdog only while the seat's loops check in, and a task that ends resets the seat."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.firmware.seats import MICROPYPATH
from tests.support.tools import ROOT


@pytest.mark.slow
@pytest.mark.parametrize(
    ("scenario", "fed", "resets"),
    # "ended": the recorded reset returns (a real one never does), so feeding goes on.
    [("healthy", True, []), ("stuck", False, []), ("ended", None, ["error"])],
)
def test_supervisor(
    micropython: str, scenario: str, fed: bool | None, resets: list[str]
) -> None:
    result = subprocess.run(
        [micropython, str(ROOT / "tests/firmware/mp/watch_check.py"), scenario],
        env={"MICROPYPATH": MICROPYPATH},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    answer = json.loads(result.stdout.splitlines()[-1])
    # Four looks of the supervisor: a healthy seat is fed at each (the first may be
    # short of its check-ins while the tasks start), a stuck one at none.
    assert answer["feeds"] + answer["stalls"] >= 4, answer
    if fed is not None:
        assert (answer["feeds"] >= 3) is fed and (answer["feeds"] == 0) is not fed, answer
    assert answer["resets"] == resets
