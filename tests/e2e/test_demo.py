"""The README's main job: `risktable demo` runs to the end and exits 0, its bots playing
at the seats through the firmware."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.support.tools import subprocess_env


@pytest.mark.parametrize(("rules", "seats"), [("classic", 3), ("two_player_1993", 2)])
def test_demo_runs_and_exits_zero(micropython: str, rules: str, seats: int) -> None:
    # A two-player rule set needs no --seats: it implies two.
    count = [] if rules.startswith("two_player") else ["--seats", str(seats)]
    result = subprocess.run(
        [sys.executable, "-m", "risktable", "demo", *count, "--rules", rules,
         "--micropython", micropython],
        capture_output=True, text=True, timeout=300, env=subprocess_env(),
    )
    assert result.returncode == 0, result.stderr
    assert f"{seats} seat firmwares online" in result.stdout
    for seat in range(1, seats + 1):
        assert f"seat {seat}: ring shows" in result.stdout
    # The bots played at the seats, through the firmware, to the end.
    assert " wins after " in result.stdout
    # ... and it says why the game ended.
    assert re.search(r" wins after \d+ turns and \d+ actions: every other player was "
                     r"eliminated\n", result.stdout), result.stdout[-2000:]
    made = re.search(r"the bots made (\d+) seat inputs through the firmware", result.stdout)
    assert made is not None and int(made[1]) > 100, result.stdout[-2000:]
