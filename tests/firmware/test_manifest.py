"""firmware/manifest.py, the recipe for freezing the firmware into a MicroPython image,
names exactly the modules ``risktable seat build`` compiles, and only paths that exist.

The manifest is run as MicroPython's build runs it (its ``include``, ``module`` and
``package`` calls, paths relative to the manifest's folder), with the calls recorded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from risktable.provision.seat_build import sources
from tests.support.tools import ROOT

MANIFEST = ROOT / "firmware" / "manifest.py"


class Recorder:
    """The manifest's functions: each records the files it would freeze."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.frozen: list[Path] = []
        self.includes: list[str] = []
        self.missing: list[str] = []

    def include(self, manifest: str, **_: Any) -> None:
        self.includes.append(manifest)

    def module(self, name: str, base_path: str = ".", opt: int | None = None) -> None:
        path = (self.folder / base_path / name).resolve()
        if path.is_file() and path.suffix == ".py":
            self.frozen.append(path)
        else:
            self.missing.append(f"module {name} in {base_path}")

    def package(self, name: str, files: list[str] | None = None, base_path: str = ".",
                opt: int | None = None) -> None:
        root = (self.folder / base_path / name).resolve()
        if not (root / "__init__.py").is_file():
            self.missing.append(f"package {name} in {base_path}")
            return
        if files is None:
            self.frozen.extend(p for p in sorted(root.rglob("*.py"))
                               if "__pycache__" not in p.parts)
        else:
            for rel in files:
                path = root / rel
                if path.is_file():
                    self.frozen.append(path)
                else:
                    self.missing.append(f"{rel} of package {name}")

    def run(self, manifest: Path) -> None:
        names = {"include": self.include, "module": self.module, "package": self.package}
        exec(compile(manifest.read_text(), str(manifest), "exec"), names)


def recorded() -> Recorder:
    recorder = Recorder(MANIFEST.parent)
    recorder.run(MANIFEST)
    return recorder


def test_the_manifest_names_every_compiled_module_and_nothing_else() -> None:
    recorder = recorded()
    assert recorder.missing == []
    frozen = sorted(recorder.frozen)
    assert len(frozen) == len(set(frozen)), "a module is named twice"
    compiled = sorted((base / rel).resolve() for base, rel in sources()
                      if rel != Path("main.py"))
    assert [str(p.relative_to(ROOT)) for p in frozen] == [
        str(p.relative_to(ROOT)) for p in compiled
    ]


def test_the_port_keeps_its_own_frozen_modules() -> None:
    # Without the port's manifest the image would lack asyncio, which the seat runs on.
    assert recorded().includes == ["$(PORT_DIR)/boards/manifest.py"]


def test_the_recorder_reports_what_is_not_there(tmp_path: Path) -> None:
    (tmp_path / "net").mkdir()
    (tmp_path / "net" / "__init__.py").write_text("")
    manifest = tmp_path / "manifest.py"
    manifest.write_text('package("net")\nmodule("gone.py")\npackage("nothing")\n')
    recorder = Recorder(tmp_path)
    recorder.run(manifest)
    assert recorder.missing == ["module gone.py in .", "package nothing in ."]
    assert recorder.frozen == [tmp_path / "net" / "__init__.py"]
