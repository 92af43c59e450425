"""The controller firmware type-checks against the MicroPython stubs (tests/firmware/
test_mpy_cross.py compiles it)."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from tests.leds.conftest import LEDCTL

SOURCES = sorted(LEDCTL.glob("*.py"))


def test_firmware_files() -> None:
    assert {p.name for p in SOURCES} == {"main.py", "ledframe.py", "strips.py"}


def _stub_modules(dist_name: str) -> list[Path]:
    try:
        files = metadata.distribution(dist_name).files or []
    except metadata.PackageNotFoundError:
        pytest.fail(f"{dist_name} is not installed (it is in the dev extra)", pytrace=False)
    tops = {f.parts[0] for f in files if f.parts and not f.parts[0].endswith(".dist-info")}
    dist = metadata.distribution(dist_name)
    return [Path(str(dist.locate_file(t))) for t in sorted(tops)
            if (t.endswith(".pyi") and t != "__builtins__.pyi") or "." not in t]


def test_type_checks_against_micropython_stubs(tmp_path: Path) -> None:
    # The port's modules (machine, neopixel, select, time...) come from the
    # ESP32 stubs and the language core from MicroPython's stdlib stubs, so
    # the check sees what the device offers, not CPython's standard library.
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    names = []
    for module in _stub_modules("micropython-esp32-stubs"):
        if module.exists():
            (stubs / module.name).symlink_to(module)
            names.append(module.name.removesuffix(".pyi"))
    typeshed = Path(str(metadata.distribution("micropython-stdlib-stubs").locate_file("stdlib")))
    config = tmp_path / "mypy.ini"
    silenced = ",".join(f"{n},{n}.*" for n in names) + ",_mpy_shed.*"
    config.write_text(f"[mypy]\nstrict = True\nmypy_path = {stubs}\n"
                      f"[mypy-{silenced}]\nignore_errors = True\n")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(config),
         "--custom-typeshed-dir", str(typeshed.parent), "--cache-dir", str(tmp_path / "cache"),
         *[str(p) for p in SOURCES]],
        capture_output=True, text=True, cwd=str(LEDCTL), check=False)
    assert done.returncode == 0, done.stdout + done.stderr
