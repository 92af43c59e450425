"""Assemble a MicroPython typeshed for mypy from the installed stub packages.

``micropython-stdlib-stubs`` installs a reduced typeshed ``stdlib/`` into site-packages,
and ``micropython-esp32-stubs`` installs its modules (``machine``, ``network``,
``neopixel``, ``bluetooth``, ``micropython``, and MicroPython's own ``time``, ``socket``,
``select``...) as top-level ``.pyi`` files beside it. mypy refuses site-packages on its
search path and would let CPython's typeshed shadow ``time`` and friends, so both sets
go into one custom typeshed directory: the port's modules join ``stdlib/`` and are
listed in ``stdlib/VERSIONS``, which is how mypy decides what the standard library holds.
"""

from __future__ import annotations

import shutil
import sysconfig
from pathlib import Path

import pytest

from tests.support.tools import in_ci


def _record(site: Path, dist_prefix: str) -> list[str]:
    for info in site.glob(f"{dist_prefix}-*.dist-info"):
        lines = (info / "RECORD").read_text().splitlines()
        return [line.split(",")[0] for line in lines]
    message = f"{dist_prefix} is not installed; pip install {dist_prefix.replace('_', '-')}"
    if in_ci():
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def build_typeshed(target: Path) -> Path:
    """Create the custom typeshed under ``target``; return the directory for mypy."""
    site = Path(sysconfig.get_paths()["purelib"])
    _record(site, "micropython_stdlib_stubs")
    stdlib = target / "stdlib"
    shutil.copytree(site / "stdlib", stdlib)
    # mypy itself needs mypy_extensions, which a typeshed keeps under stubs/.
    shutil.copytree(site / "stubs", target / "stubs")
    added: set[str] = set()
    for rel in _record(site, "micropython_esp32_stubs"):
        path = Path(rel)
        if path.suffix != ".pyi" or path.parts[0].endswith(".dist-info"):
            continue
        dest = stdlib / path
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(site / path, dest)
        added.add(path.parts[0].removesuffix(".pyi"))
    # The port stubs import typeshed helpers from _mpy_shed (shipped by the stdlib stubs).
    shutil.copytree(site / "_mpy_shed", stdlib / "_mpy_shed")
    added.add("_mpy_shed")
    versions = stdlib / "VERSIONS"
    listed = {
        line.split(":")[0].strip()
        for line in versions.read_text().splitlines()
        if ":" in line and not line.lstrip().startswith("#")
    }
    with versions.open("a") as f:
        for name in sorted(added - listed):
            f.write(f"{name}: 3.0-\n")
    return target
