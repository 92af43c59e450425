"""The reader's committed model files, their metadata, and onnxruntime sessions on them.

``models/model.json`` names each model file with its SHA-256, the thresholds chosen on
the validation photos, and how the models were trained (seed, steps, photos), so CI can
tell a model file from the one the figures were measured with.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import onnxruntime

MODELS = Path(__file__).resolve().parent / "models"
DETECTOR = "detector.onnx"
CLASSIFIER = "classifier.onnx"
#: The other members of an ensemble of classifiers: classifier-2.onnx, classifier-3.onnx...
ENSEMBLE_MEMBER = "classifier-{}.onnx"
METADATA = "model.json"


class ModelError(RuntimeError):
    """A model file is missing or is not the one its metadata names."""


@dataclass(frozen=True)
class Thresholds:
    """Where a score turns into a decision, chosen on the validation photos.

    ``found``: a detector score from which a die is reported at all; ``found_sure``: a
    detector score from which it may be sure; ``value_sure``: the classifier's
    probability of its best value from which the read is sure; ``value_sure_pips``: the
    same where the classical pip count agrees (two independent readings of one value);
    ``nothing_sure``: a classifier's probability of "nothing readable here" at or below
    which a die the detector scored under ``found_sure`` may be sure all the same (the
    classifier's own check that a die is there; 0 turns it off).
    """

    found: float
    found_sure: float
    value_sure: float
    value_sure_pips: float
    nothing_sure: float = 0.0


@dataclass(frozen=True)
class ModelInfo:
    """What ``model.json`` says about the models: their hashes, the thresholds,
    ``box_scale``, the factor that turns the detector's box into one around the whole
    die as the labels draw it (measured on the validation photos), and ``classifiers``,
    the classifier files whose probabilities are averaged (independently trained
    members of an ensemble: where they disagree, the read is less sure)."""

    folder: Path
    hashes: dict[str, str]
    thresholds: Thresholds
    raw: dict[str, Any]
    box_scale: float = 1.0
    classifiers: tuple[str, ...] = (CLASSIFIER,)


def classifier_files(folder: Path) -> tuple[str, ...]:
    """The classifier files in ``folder``: ``classifier.onnx`` and the ensemble's
    numbered members after it (for tools that read a folder without its metadata)."""
    names = [CLASSIFIER]
    while (folder / ENSEMBLE_MEMBER.format(len(names) + 1)).exists():
        names.append(ENSEMBLE_MEMBER.format(len(names) + 1))
    return tuple(names)


def sha256(path: Path) -> str:
    """The hex SHA-256 of a file."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load_info(folder: Path = MODELS, check: bool = True) -> ModelInfo:
    """The metadata of the models in ``folder``; with ``check``, each model file's hash
    is compared with the one the metadata names."""
    try:
        raw = json.loads((folder / METADATA).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelError(f"{folder / METADATA}: the dice reader's model metadata is missing") \
            from None
    classifiers = tuple(str(name) for name in raw.get("classifiers", [CLASSIFIER]))
    missing = [name for name in (DETECTOR, *classifiers) if name not in raw["files"]]
    if missing:
        raise ModelError(f"{folder / METADATA}: names no SHA-256 for {', '.join(missing)}")
    hashes = {name: str(raw["files"][name]) for name in (DETECTOR, *classifiers)}
    if check:
        for name, digest in hashes.items():
            path = folder / name
            if not path.exists():
                raise ModelError(f"{path}: the dice reader's model file is missing")
            if sha256(path) != digest:
                raise ModelError(f"{path}: not the model file {METADATA} names (SHA-256 differs)")
    t = raw["thresholds"]
    return ModelInfo(folder, hashes, Thresholds(float(t["found"]), float(t["found_sure"]),
                                                float(t["value_sure"]),
                                                float(t["value_sure_pips"]),
                                                float(t.get("nothing_sure", 0.0))), raw,
                     float(raw["box_scale"]), classifiers)


def session(path: Path, threads: int) -> onnxruntime.InferenceSession:
    """An onnxruntime session on the CPU with ``threads`` threads (1: one core)."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = 3
    return onnxruntime.InferenceSession(str(path), sess_options=options,
                                        providers=["CPUExecutionProvider"])
