"""The other setups' benchmark photos (bench/dice-other-setups/) and the tool that made
their label files from the sources' YOLO labels."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from risktable.dice_camera.photos import load_labels
from tests.support.tools import ROOT

from .test_evidence import _tool

SETS = ROOT / "bench" / "dice-other-setups"


@pytest.mark.parametrize("name", ["webcam-wood", "felt-trays"])
def test_each_set_has_its_photos_labels_and_licence(name: str) -> None:
    folder = SETS / name
    photos = load_labels(folder)
    assert len(photos) >= 60
    assert {p.name for p in folder.iterdir() if p.suffix == ".jpg"} == set(photos)
    for photo in photos.values():
        assert photo.dice and all(1 <= d.value <= 6 for d in photo.dice)
        assert all(0 <= v <= 1 for d in photo.dice for v in d.box)
    assert "never to train" in (folder / "SOURCE.md").read_text()
    assert (folder / "LICENSE").exists() or "CC BY 4.0" in (folder / "SOURCE.md").read_text()
    # none of the shared photos (the reader's training setup) is among them
    assert not any(n.startswith("IMG_2019120") for n in photos)


def _labelled_folder(tmp: Path, line: str) -> Path:
    images = tmp / "valid" / "images"
    images.mkdir(parents=True)
    (tmp / "valid" / "labels").mkdir()
    for stem in ("a_jpg.rf.0a", "a_jpg.rf.0b", "b_jpg.rf.0c"):
        cv2.imwrite(str(images / f"{stem}.jpg"), np.full((40, 80, 3), 200, np.uint8))
        (tmp / "valid" / "labels" / f"{stem}.txt").write_text(line + "\n")
    return images


def test_yolo_labels_become_the_readers_label_file(tmp_path: Path) -> None:
    tool = _tool("yolo_labels")
    images = _labelled_folder(tmp_path, "2 0.5 0.5 0.2 0.4")
    out = tmp_path / "out"
    assert tool.main(["--images", str(images), "--out", str(out),
                      "--pick", "one-per-base"]) == 0
    labels = json.loads((out / "labels.json").read_text())
    assert sorted(labels) == ["a_jpg.rf.0a.jpg", "b_jpg.rf.0c.jpg"]  # one export per photo
    assert labels["a_jpg.rf.0a.jpg"] == {"width": 80, "height": 40, "dice": [
        {"value": 3, "box": [0.4, 0.3, 0.6, 0.7]}]}
    assert (out / "b_jpg.rf.0c.jpg").exists()


@pytest.mark.parametrize("line", ["6 0.5 0.5 0.2 0.2", "1 0.5 0.5 0.2", "x 0.5 0.5 0.2 0.2"])
def test_a_label_that_is_not_a_dies_stops_the_run(tmp_path: Path, line: str) -> None:
    tool = _tool("yolo_labels")
    images = _labelled_folder(tmp_path, line)
    with pytest.raises(SystemExit, match=r"\.txt:1: not"):
        tool.main(["--images", str(images), "--out", str(tmp_path / "out")])


def test_an_ensemble_is_assembled_from_runs_that_share_the_detector(tmp_path: Path) -> None:
    from risktable.dice_camera.model_files import MODELS, classifier_files

    tool = _tool("assemble")
    out = tmp_path / "ensemble"
    assert tool.main(["--out", str(out), "--detector", str(MODELS),
                      "--classifiers", str(MODELS), str(MODELS)]) == 0
    assert classifier_files(out) == ("classifier.onnx", "classifier-2.onnx")
    assert json.loads((out / "training-classifier-2.json").read_text())["seed"] == \
        json.loads((MODELS / "training-classifier.json").read_text())["seed"]
    # one member fewer: the old second member and its record are gone
    assert tool.main(["--out", str(out), "--detector", str(MODELS),
                      "--classifiers", str(MODELS)]) == 0
    assert classifier_files(out) == ("classifier.onnx",)
    assert not (out / "training-classifier-2.json").exists()
    other = tmp_path / "other-run"
    other.mkdir()
    (other / "classifier.onnx").write_bytes((MODELS / "classifier.onnx").read_bytes())
    meta = json.loads((MODELS / "training-classifier.json").read_text())
    (other / "training-classifier.json").write_text(json.dumps({**meta, "mined_with": "0" * 64}))
    with pytest.raises(SystemExit, match="another detector"):
        tool.main(["--out", str(out), "--detector", str(MODELS), "--classifiers", str(other)])
    # unless asked for: a retrained detector with the classifiers as they were
    assert tool.main(["--out", str(out), "--detector", str(MODELS), "--classifiers", str(other),
                      "--other-detector"]) == 0
    assert json.loads((out / "training-classifier.json").read_text())["mined_with"] == "0" * 64
    with pytest.raises(SystemExit, match="folder of its own"):
        tool.main(["--out", str(MODELS), "--detector", str(MODELS), "--classifiers", str(MODELS)])


def test_no_benchmark_photo_or_shared_photo_trained_the_models() -> None:
    from risktable.dice_camera.model_files import METADATA, MODELS

    base_name = _tool("yolo_labels").base_name
    benchmark = {base_name(name) for folder in SETS.iterdir() if folder.is_dir()
                 for name in load_labels(folder)}
    training = json.loads((MODELS / METADATA).read_text())["training"]
    extra = [name for meta in training.values()
             for names in meta.get("extra_train_photos", {}).values() for name in names]
    assert extra, "the committed classifiers learned from other setups' photos"
    assert not {base_name(name) for name in extra} & benchmark
    assert not [name for name in extra if name.startswith("IMG_2019120")]
