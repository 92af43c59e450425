"""``risktable dice read``: the JSON it prints and its one-line errors."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from risktable.cli import main
from risktable.dice_camera.photos import load_labels

from .conftest import FIXTURES


def test_json_has_one_object_per_photo_in_the_order_given(
        capsys: pytest.CaptureFixture[str]) -> None:
    labels = load_labels(FIXTURES)
    names = sorted(labels, reverse=True)[:2]
    assert main(["dice", "read", "--json", *(str(FIXTURES / n) for n in names)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    for name, line in zip(names, lines, strict=True):
        out = json.loads(line)
        assert out["image"] == str(FIXTURES / name) and out["ms"] > 0
        # every labelled die has a read; unsure reads of what is no die may come on top
        assert len(out["dice"]) >= len(labels[name].dice)
        for die in out["dice"]:
            assert set(die) == {"value", "box", "colour", "sure"}
            assert die["value"] in range(1, 7) and isinstance(die["sure"], bool)
            x0, y0, x1, y1 = die["box"]
            assert 0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1
        sure = Counter(d["value"] for d in out["dice"] if d["sure"])
        assert sure <= Counter(d.value for d in labels[name].dice)


def test_text_lists_each_die(capsys: pytest.CaptureFixture[str]) -> None:
    path = FIXTURES / "IMG_20191209_100116.jpg"
    assert main(["dice", "read", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{path}: ") and " dice, " in out[0]
    n = int(out[0].split(": ")[1].split()[0])
    assert n >= 5 and len(out) == 1 + n
    assert all(line[2] in "123456" for line in out[1:])


@pytest.mark.parametrize(("make", "says"), [
    (lambda d: d / "missing.jpg", "no such file"),
    (lambda d: (d / "notes.jpg").write_text("not a photo") and d / "notes.jpg",
     "not an image"),
    (lambda d: d, "is a folder"),
])
def test_a_file_that_cannot_be_read_is_one_line_and_exit_1(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], make: object, says: str) -> None:
    bad = make(tmp_path)  # type: ignore[operator]
    good = FIXTURES / "IMG_20191209_100116.jpg"
    assert main(["dice", "read", "--json", str(bad), str(good)]) == 1
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and says in captured.err and str(bad) in captured.err
    assert [json.loads(line)["image"] for line in captured.out.splitlines()] == [str(good)]
