"""The README's main job: `risktable demo` runs to the end and exits 0."""

from __future__ import annotations

import subprocess
import sys

from tests.support.tools import subprocess_env


def test_demo_runs_and_exits_zero(micropython: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "risktable", "demo", "--seats", "3", "--micropython", micropython],
        capture_output=True, text=True, timeout=300, env=subprocess_env(),
    )
    assert result.returncode == 0, result.stderr
    assert "3 seat firmwares online" in result.stdout
    for seat in (1, 2, 3):
        assert f"seat {seat}: ring shows" in result.stdout
