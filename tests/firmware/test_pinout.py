"""The ESP32 board finds every pin it needs in hardware/seat-pinout.json."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.firmware.seats import MICROPYPATH
from tests.support.tools import ROOT

# Every (device, pin) that firmware/board/esp32.py looks up.
NEEDED = [
    ("led_ring", "data"),
    ("encoder", "a"),
    ("encoder", "b"),
    ("encoder", "switch"),
    ("confirm_button", "input"),
    ("back_button", "input"),
    ("roll_button", "input"),
    ("nfc_reader", "sck"),
    ("nfc_reader", "mosi"),
    ("nfc_reader", "miso"),
    ("nfc_reader", "cs"),
    ("nfc_reader", "rst"),
    ("display", "sda"),
    ("display", "scl"),
    ("buzzer", "pwm"),
]

SCRIPT = """
import json, sys
sys.path.append('.frozen')
from board import pinout
p = pinout.load(sys.argv[1])
out = {}
with open(sys.argv[2]) as f:
    needed = json.loads(f.read())
for device, name in needed:
    out[device + '.' + name] = pinout.pin(p, device, name)
try:
    pinout.pin(p, 'led_ring', 'nonexistent')
    out['missing'] = 'accepted'
except pinout.PinoutError as exc:
    out['missing'] = str(exc)
print(json.dumps(out))
"""


def test_every_needed_pin_is_assigned_once_and_usable(micropython: str, tmp_path: Path) -> None:
    path = ROOT / "hardware" / "seat-pinout.json"
    script = tmp_path / "pins.py"
    script.write_text(SCRIPT)
    # A file, not an argument: the unix port dies on long command-line arguments.
    needed = tmp_path / "needed.json"
    needed.write_text(json.dumps(NEEDED))
    result = subprocess.run(
        [micropython, str(script), str(path), str(needed)],
        env={"MICROPYPATH": MICROPYPATH},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    found = json.loads(result.stdout)
    assert found.pop("missing") == "pinout has no pin led_ring.nonexistent"
    assert len(found) == len(NEEDED)
    numbers = list(found.values())
    assert len(set(numbers)) == len(numbers), found
    data = json.loads(path.read_text())
    exposed = set(data["gpio"]["exposed"])
    avoid = {int(k) for k in data["gpio"]["avoid"]}
    for name, gpio in found.items():
        assert gpio in exposed, f"{name} uses GPIO {gpio}, which the board does not expose"
        assert gpio not in avoid, f"{name} uses GPIO {gpio}: {data['gpio']['avoid'][str(gpio)]}"
