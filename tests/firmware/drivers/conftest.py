"""Runs driver scripts under the real MicroPython unix port and hands back their output."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.tools import ROOT

# Test-only MicroPython helpers (fake pins, clocks) live beside the tests.
MPY_SUPPORT = Path(__file__).resolve().parent / "mpy"

RunMpy = Callable[[str], list[Any]]


def _mpy_env() -> dict[str, str]:
    env = dict(os.environ)
    # .frozen keeps the port's built-in asyncio importable once MICROPYPATH is set.
    paths = [".frozen", str(ROOT / "firmware"), str(ROOT / "protocol"), str(MPY_SUPPORT)]
    env["MICROPYPATH"] = ":".join(paths)
    return env


@pytest.fixture
def run_mpy(micropython: str, tmp_path: Path) -> RunMpy:
    """Run a MicroPython script; each line it prints must be JSON, returned as a list.

    A non-zero exit (an uncaught exception in the script) fails the test with
    the script's stderr, so a crash is never mistaken for an empty result.
    """

    def run(source: str) -> list[Any]:
        script = tmp_path / "script.py"
        script.write_text(textwrap.dedent(source))
        done = subprocess.run(
            [micropython, str(script)],
            capture_output=True,
            text=True,
            env=_mpy_env(),
            cwd=str(tmp_path),
            timeout=120,
            check=False,
        )
        if done.returncode != 0:
            pytest.fail(f"micropython exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
        return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]

    return run
