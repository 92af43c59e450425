"""tools/dice_reader/evidence.py and tune.py's use of its files: the evidence written for a
photo, thresholded as tune.py does, gives the reader's own decisions on it; the held-out
part is refused."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from risktable.dice_camera.reader import DiceReader
from tests.support.tools import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "dice_photos"


def _tool(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        name, ROOT / "tools" / "dice_reader" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_evidence_thresholded_as_tune_does_gives_the_readers_decisions(
        tmp_path: Path) -> None:
    evidence, tune = _tool("evidence"), _tool("tune")
    out = tmp_path / "evidence.json"
    # the four fixture photos split as the rule splits any four: one "validation", three "train"
    assert evidence.main(["--photos", str(FIXTURES), "--part", "train,validation",
                          "--out", str(out)]) == 0
    reader = DiceReader()
    photos = tune.evidence_reads(out)
    assert len(photos) == 4 and sum(len(dice) for _, dice in photos) > 20
    names = sorted(p.name for p in FIXTURES.glob("*.jpg"))
    read_by_reader = {name: reader.read_file(FIXTURES / name)[0] for name in names}
    for (reads, dice), name in zip(photos, _part_order(names), strict=True):
        mine = tune.rethreshold(reads, reader.info.thresholds)
        theirs = read_by_reader[name]
        assert len(mine) == len(theirs)
        for a, b in zip(sorted(mine, key=lambda r: r.box), sorted(theirs, key=lambda r: r.box),
                        strict=True):
            assert (a.value, a.sure) == (b.value, b.sure)
            assert a.box == pytest.approx(b.box, abs=1e-4)
        assert any(r.sure for r in mine) and dice


def _part_order(names: list[str]) -> list[str]:
    """The fixtures in the order evidence.py writes them: the "train" part, then
    "validation" (split.py's rule on four names puts the second in validation)."""
    return [names[0], names[2], names[3], names[1]]


def test_the_held_out_part_is_refused(tmp_path: Path) -> None:
    evidence = _tool("evidence")
    with pytest.raises(SystemExit, match="held-out"):
        evidence.main(["--photos", str(FIXTURES), "--part", "held_out",
                       "--out", str(tmp_path / "e.json")])
