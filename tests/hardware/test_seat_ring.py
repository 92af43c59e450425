"""An ESP32 seat's configuration names the ring the pinout and the BOM describe."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from risktable.cli import main
from risktable.hardware.bom import load_bom
from risktable.provision.seat_config import seat_config
from tests.support.tools import ROOT


def _pinout_ring() -> int:
    data = json.loads((ROOT / "hardware" / "seat-pinout.json").read_text(encoding="utf-8"))
    count: int = data["devices"]["led_ring"]["settings"]["count"]
    return count


def test_the_pinout_and_the_bom_name_one_ring() -> None:
    ring = next(r for r in load_bom() if r.board == "seat" and "ring" in r.item)
    found = re.search(r"ring (\d+) LEDs", ring.item)
    assert found and int(found.group(1)) == _pinout_ring() == 16


def test_an_esp32_seat_config_names_the_pinouts_ring() -> None:
    cfg = seat_config("t1", 1, "10.0.0.2", board="esp32", wifi_ssid="risk")
    assert cfg["ring_size"] == _pinout_ring()
    # The emulated board keeps the firmware's default.
    assert seat_config("t1", 1, "127.0.0.1")["ring_size"] == 12
    with pytest.raises(ValueError, match=f"ring of {_pinout_ring()} pixels"):
        seat_config("t1", 1, "10.0.0.2", board="esp32", wifi_ssid="risk", ring_size=12)


def test_the_cli_writes_the_pinouts_ring_for_an_esp32_seat(tmp_path: Path) -> None:
    out = tmp_path / "seat1.json"
    assert main(["seat", "config", "--seat", "1", "--broker-host", "10.0.0.2",
                 "--board", "esp32", "--wifi-ssid", "risk", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["ring_size"] == _pinout_ring()
