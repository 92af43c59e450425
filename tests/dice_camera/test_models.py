"""The committed models are the ones their metadata names, small, and trained on the
training part of the split only."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from risktable.dice_camera.classify import FaceClassifier
from risktable.dice_camera.crops import CROP_SIDE
from risktable.dice_camera.model_files import (
    CLASSIFIER,
    DETECTOR,
    METADATA,
    MODELS,
    ModelError,
    load_info,
    session,
    sha256,
)
from risktable.dice_camera.photos import SHARED_PHOTOS, load_labels
from risktable.dice_camera.split import HELD_OUT, TRAIN, VALIDATION, split_names
from tests.support.tools import in_ci

from .conftest import FIXTURES


def test_the_model_files_match_their_metadata_and_are_small() -> None:
    info = load_info(MODELS, check=True)  # raises if a hash differs
    assert set(info.hashes) == {DETECTOR, *info.classifiers}
    assert info.classifiers[0] == CLASSIFIER
    total = 0
    for name in info.hashes:
        path = MODELS / name
        assert info.hashes[name] == sha256(path)
        total += path.stat().st_size
    assert total < 5 * 1024 * 1024
    t = info.thresholds
    assert 0 < t.found <= t.found_sure < 1 and 0 < t.value_sure < 1


def test_the_models_never_saw_the_held_out_photos() -> None:
    training = json.loads((MODELS / METADATA).read_text())["training"]
    names = (DETECTOR, *load_info(MODELS).classifiers)
    assert set(training) == {name.removesuffix(".onnx") for name in names}
    fixtures = set(json.loads((FIXTURES / "labels.json").read_text()))
    if not (SHARED_PHOTOS / "labels.json").exists() and not in_ci():
        pytest.skip("the shared photos are not beside this checkout")
    parts = split_names(load_labels(SHARED_PHOTOS))
    assert fixtures <= set(parts[HELD_OUT])
    for meta in training.values():
        assert meta["train_photos"] == parts[TRAIN]
        assert meta["validation_photos"] == parts[VALIDATION]
        assert isinstance(meta["seed"], int) and meta["command"].startswith("python tools/")


def test_the_models_run_on_inputs_of_their_shapes() -> None:
    detector = session(MODELS / DETECTOR, 1)
    heat, size, offset = detector.run(None, {"image": np.zeros((1, 3, 96, 160), np.float32)})
    assert heat.shape == (1, 1, 24, 40) and size.shape == (1, 2, 24, 40)
    assert offset.shape == (1, 2, 24, 40)
    crops = [np.zeros((CROP_SIDE, CROP_SIDE, 3), np.uint8) for _ in range(3)]
    p = FaceClassifier(MODELS / CLASSIFIER).probabilities(crops)
    assert p.shape == (3, 7)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-4)


def test_metadata_naming_a_classifier_without_its_hash_is_refused(tmp_path: Path) -> None:
    raw = json.loads((MODELS / METADATA).read_text())
    raw["classifiers"] = [*raw["classifiers"], "classifier-9.onnx"]
    (tmp_path / METADATA).write_text(json.dumps(raw))
    with pytest.raises(ModelError, match=r"no SHA-256 for classifier-9\.onnx"):
        load_info(tmp_path, check=False)
