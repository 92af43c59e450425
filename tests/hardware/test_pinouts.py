"""hardware/seat-pinout.json and hardware/hub-panel.json: pins loaded and checked."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from risktable.hardware.data import (
    HardwareDataError,
    Pinout,
    load_hub_panel_pinout,
    load_seat_pinout,
)
from tests.support.tools import ROOT

SEAT = ROOT / "hardware" / "seat-pinout.json"
PANEL = ROOT / "hardware" / "hub-panel.json"

# ESP32-S3 strapping pins, USB, flash and octal PSRAM (datasheet, section on
# pin overview): none of these may carry a seat device.
ESP32_S3_NEVER = {0, 3, 45, 46, 19, 20, *range(26, 38)}


@pytest.fixture(scope="module")
def seat() -> Pinout:
    return load_seat_pinout()


def test_seat_has_every_part_the_design_names(seat: Pinout) -> None:
    assert {"led_ring", "encoder", "confirm_button", "back_button", "nfc_reader", "display"} <= set(
        seat.devices
    )
    assert set(seat.devices["encoder"].pins) == {"a", "b", "switch"}
    assert set(seat.devices["nfc_reader"].pins) >= {"sck", "mosi", "miso", "cs", "rst"}
    assert set(seat.devices["display"].pins) == {"sda", "scl"}
    assert seat.devices["nfc_reader"].bus == "spi"
    assert seat.devices["display"].bus == "i2c"
    assert isinstance(seat.devices["led_ring"].settings["count"], int)


def test_seat_pins_are_distinct_and_safe(seat: Pinout) -> None:
    used = seat.used()
    pins = [gpio for device in seat.devices.values() for gpio in device.pins.values()]
    assert len(used) == len(pins)
    assert not set(used) & ESP32_S3_NEVER
    assert not set(used) & set(seat.avoid)


def test_every_device_says_why(seat: Pinout) -> None:
    for pinout in (seat, load_hub_panel_pinout()):
        for name, device in pinout.devices.items():
            assert len(device.note) > 20, name


def test_pin_lookup_names_what_is_missing(seat: Pinout) -> None:
    assert seat.pin("nfc_reader", "cs") == seat.devices["nfc_reader"].pins["cs"]
    with pytest.raises(KeyError, match="no pin 'dc' on device 'display'"):
        seat.pin("display", "dc")


def test_micropython_reads_the_same_pins(micropython: str, seat: Pinout) -> None:
    # The seat firmware loads this file on the board; the unix port's json
    # module is the same one, so if it parses here it parses there.
    script = (
        "import json\n"
        f"with open({str(SEAT)!r}) as f:\n"
        "    d = json.load(f)\n"
        "out = {}\n"
        "for name, dev in d['devices'].items():\n"
        "    for role, gpio in dev['pins'].items():\n"
        "        out[str(gpio)] = name + '.' + role\n"
        "print(json.dumps(out))\n"
    )
    done = subprocess.run(
        [micropython, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert {int(k): v for k, v in json.loads(done.stdout).items()} == seat.used()


def test_hub_panel_uses_free_broadcom_pins() -> None:
    panel = load_hub_panel_pinout()
    assert set(panel.devices) == {"start_pause", "referee_undo", "buzzer", "status_led"}
    # Hardware PWM on the Pi is only on GPIO12, 13, 18 and 19.
    assert panel.pin("buzzer", "pwm") in {12, 13, 18, 19}
    assert not set(panel.used()) & {0, 1, 2, 3, 14, 15}


def edited(tmp_path: Path, source: Path, change: Callable[[dict[str, Any]], None]) -> Path:
    data = json.loads(source.read_text())
    change(data)
    path = tmp_path / source.name
    path.write_text(json.dumps(data))
    return path


def _reuse(data: dict[str, Any]) -> None:
    data["devices"]["buzzer"]["pins"]["pwm"] = data["devices"]["encoder"]["pins"]["a"]


def _strapping(data: dict[str, Any]) -> None:
    data["devices"]["buzzer"]["pins"]["pwm"] = 46


def _off_header(data: dict[str, Any]) -> None:
    data["devices"]["buzzer"]["pins"]["pwm"] = 30


def _not_a_number(data: dict[str, Any]) -> None:
    data["devices"]["buzzer"]["pins"]["pwm"] = "GPIO17"


def _boolean(data: dict[str, Any]) -> None:
    data["devices"]["buzzer"]["pins"]["pwm"] = True


def _no_note(data: dict[str, Any]) -> None:
    del data["devices"]["display"]["note"]


def _bad_avoid(data: dict[str, Any]) -> None:
    data["gpio"]["avoid"]["GPIO0"] = "boot"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_reuse, "GPIO4 for buzzer.pwm is already encoder.a"),
        (_strapping, "GPIO46 is to be avoided \\(strapping pin"),
        (_off_header, "GPIO30 is not on"),
        (_not_a_number, "pin 'pwm' must be a GPIO number"),
        (_boolean, "pin 'pwm' must be a GPIO number"),
        (_no_note, "display: missing 'note'"),
        (_bad_avoid, "'avoid' keys must be GPIO numbers"),
    ],
)
def test_broken_seat_pinouts_are_refused(
    tmp_path: Path, change: Callable[[dict[str, Any]], None], message: str
) -> None:
    with pytest.raises(HardwareDataError, match=message):
        load_seat_pinout(edited(tmp_path, SEAT, change))


def test_a_device_written_twice_is_refused(tmp_path: Path) -> None:
    text = PANEL.read_text().replace('"status_led": {', '"buzzer": {')
    path = tmp_path / "hub-panel.json"
    path.write_text(text)
    with pytest.raises(
        HardwareDataError, match=re.escape("hub-panel.json: 'buzzer' appears twice")
    ):
        load_hub_panel_pinout(path)
