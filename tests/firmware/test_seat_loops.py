"""The seat's loop outlives a failure: a ring write and an input item that raise are
logged, and the animation and the inputs carry on (seat/app.py, ``Seat._serve``)."""

from __future__ import annotations

import json
import subprocess

from tests.firmware.seats import MICROPYPATH
from tests.support.tools import ROOT


def test_a_failing_frame_or_input_does_not_stop_the_seat(micropython: str) -> None:
    result = subprocess.run(
        [micropython, str(ROOT / "tests/firmware/mp/keep_check.py")],
        env={"MICROPYPATH": MICROPYPATH},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    answer = json.loads(result.stdout.splitlines()[-1])
    # 10 ms frames for about 0.4 s after the third: well over a handful more.
    assert answer["frames_after_failure"] >= 5
    assert answer["outbox"] == ["encoder"]
    assert result.stderr.count("error in seat loop") == 2
