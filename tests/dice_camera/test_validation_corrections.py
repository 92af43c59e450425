"""tools/dice_reader/tune.py's corrections of validation labels found wrong by eye: they
mend the validation part, and nothing else can be corrected."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from risktable.dice_camera.photos import SHARED_PHOTOS, load_labels
from risktable.dice_camera.split import HELD_OUT, TRAIN, VALIDATION, split_names
from tests.support.tools import in_ci

from .test_evidence import FIXTURES, _tool

# The four fixture photos split as the rule splits any four: the second is "validation".
NAMES = sorted(load_labels(FIXTURES))
PARTS = split_names(NAMES)


def _corrections(tmp: Path, photo: str, die: int, label: int, value: int) -> Path:
    path = tmp / "corrections.json"
    path.write_text(json.dumps({"corrections": [
        {"set": FIXTURES.name, "photo": photo, "die": die, "label": label, "value": value,
         "why": "a test"}]}))
    return path


def test_a_correction_mends_that_die_of_the_validation_part_only(tmp_path: Path) -> None:
    tune = _tool("tune")
    (photo,) = PARTS[VALIDATION]
    labelled = load_labels(FIXTURES)[photo].dice
    wrong = labelled[1].value
    other = wrong % 6 + 1
    mended = tune.validation_part(FIXTURES, _corrections(tmp_path, photo, 1, wrong, other))
    assert [p.path.name for p in mended] == [photo]
    assert mended[0].dice[1].value == other
    assert mended[0].dice[1].box == labelled[1].box
    assert mended[0].dice[:1] + mended[0].dice[2:] == labelled[:1] + labelled[2:]
    # another set's corrections leave these photos as labelled
    other_set = tmp_path / "other.json"
    other_set.write_text(json.dumps({"corrections": [
        {"set": "elsewhere", "photo": photo, "die": 1, "label": 9, "value": 1, "why": ""}]}))
    assert tune.validation_part(FIXTURES, other_set)[0].dice == labelled


@pytest.mark.parametrize("part", [TRAIN, HELD_OUT])
def test_a_correction_of_a_photo_outside_the_validation_part_is_refused(
        tmp_path: Path, part: str) -> None:
    tune = _tool("tune")
    # four photos hold no held-out one: the shared photos' first held-out photo
    photo = "IMG_20191208_111339.jpg" if part == HELD_OUT else PARTS[TRAIN][0]
    with pytest.raises(SystemExit, match="only validation labels may be corrected"):
        tune.validation_part(FIXTURES, _corrections(tmp_path, photo, 0, 1, 2))


def test_a_correction_whose_label_is_not_the_dies_is_refused(tmp_path: Path) -> None:
    tune = _tool("tune")
    (photo,) = PARTS[VALIDATION]
    label = load_labels(FIXTURES)[photo].dice[0].value
    with pytest.raises(SystemExit, match=f"is labelled {label}, not {label % 6 + 1}"):
        tune.validation_part(FIXTURES,
                             _corrections(tmp_path, photo, 0, label % 6 + 1, label))


def test_the_committed_corrections_name_validation_dice_of_the_shared_photos() -> None:
    if not (SHARED_PHOTOS / "labels.json").exists():
        if in_ci():
            pytest.fail(f"{SHARED_PHOTOS}: the shared photos are missing")
        pytest.skip("the shared photos are not beside this checkout")
    tune = _tool("tune")
    corrections = json.loads(tune.CORRECTIONS.read_text())["corrections"]
    assert corrections and all(c["why"] and c["label"] != c["value"] for c in corrections)
    mended = {p.path.name: p for p in tune.validation_part(SHARED_PHOTOS)}
    for c in corrections:
        assert mended[c["photo"]].dice[c["die"]].value == c["value"]
