"""The README's main job: `risktable demo` runs to the end and exits 0, its bots playing
at the seats through the firmware.

This is the one whole demo game of the default kind (three seats, classic) as a process;
``risktable demo --web`` plays a two-player one (tests/web/test_demo_web.py), which
checks the same lines of its output."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.support.tools import subprocess_env


def check_demo_output(stdout: str, seats: int) -> None:
    """What a demo prints on its way: the seat firmwares online, each ring showing its
    colour, the bots' game through the firmware to the end, and why it ended."""
    assert f"{seats} seat firmwares online" in stdout
    for seat in range(1, seats + 1):
        assert f"seat {seat}: ring shows" in stdout
    assert re.search(r" wins after \d+ turns and \d+ actions: every other player was "
                     r"eliminated\n", stdout), stdout[-2000:]
    made = re.search(r"the bots made (\d+) seat inputs through the firmware", stdout)
    assert made is not None and int(made[1]) > 100, stdout[-2000:]


@pytest.mark.slow
# The README's first command as it runs: a whole game that costs about 95 s of CPU (hub,
# broker and three seat firmwares, as the README says), 37 s of wall on a quiet machine
# and more than 120 s beside another copy of the suite (4 of 4 runs).
@pytest.mark.timeout(300)
def test_demo_runs_and_exits_zero(micropython: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "risktable", "demo", "--seats", "3", "--rules", "classic",
         "--micropython", micropython],
        capture_output=True, text=True, timeout=300, env=subprocess_env(),
    )
    assert result.returncode == 0, result.stderr
    check_demo_output(result.stdout, 3)
