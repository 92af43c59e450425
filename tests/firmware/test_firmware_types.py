"""The firmware type-checks against MicroPython's own stubs (micropython-esp32-stubs).

mypy runs with a custom typeshed assembled from micropython-stdlib-stubs and the ESP32
port stubs (tests/firmware/typeshed.py), so ``machine``, ``network``, ``neopixel``,
``time.ticks_ms`` and MicroPython's ``asyncio`` are the device's, not CPython's. The
firmware carries few annotations, so bodies of unannotated functions are checked too.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.firmware.typeshed import build_typeshed
from tests.support.tools import ROOT

CONFIG = """\
[mypy]
check_untyped_defs = True
explicit_package_bases = True
warn_unused_ignores = True
"""


# The seat's firmware: everything under firmware/ except ledctl/, the LED controller's
# own firmware, which tests/leds checks against its board's stubs, and manifest.py,
# MicroPython's freezing recipe (tests/firmware/test_manifest.py).
SEAT_FIRMWARE = sorted(
    str(p.relative_to(ROOT))
    for p in (ROOT / "firmware").iterdir()
    if p.name not in ("ledctl", "manifest.py")
    and (p.suffix == ".py" or (p / "__init__.py").is_file())
)


def test_firmware_and_riskproto_type_check_against_micropython_stubs(tmp_path: Path) -> None:
    typeshed = build_typeshed(tmp_path / "typeshed")
    config = tmp_path / "mypy.ini"
    config.write_text(CONFIG)
    result = subprocess.run(
        [
            sys.executable, "-m", "mypy",
            "--config-file", str(config),
            "--custom-typeshed-dir", str(typeshed),
            "--cache-dir", str(tmp_path / "cache"),
            *SEAT_FIRMWARE, "protocol/riskproto",
        ],
        cwd=ROOT,
        env={"MYPYPATH": "firmware:protocol", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success" in result.stdout
