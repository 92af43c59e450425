"""The dice reader: a photo in, one :class:`DieRead` per die out.

Three steps, each in its own module: the detector finds the dice
(:mod:`~risktable.dice_camera.detect`), the face classifier reads each die's top face
(:mod:`~risktable.dice_camera.classify`), and the classical pip count checks it
(:mod:`~risktable.dice_camera.pips`). A read is sure only when the detector, or the
classifier's own "nothing readable here" class, is sure a die is there, the classifier
is sure of one value (a little less sure will do when the pip count finds the same
value), the pip count does not find another value, and the die lies wholly inside the
frame; anything less is reported unsure with its best guess, for a person to confirm.

>>> import numpy as np
>>> DiceReader().read(np.full((480, 640, 3), 200, np.uint8))
[]
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from risktable.dice_camera.classify import UNREADABLE, FaceClassifier
from risktable.dice_camera.colour import Lab, body_lab, colour_name
from risktable.dice_camera.crops import Image, die_crop
from risktable.dice_camera.detect import PHOTO_DIE_PX, decode, detector_input
from risktable.dice_camera.model_files import (
    DETECTOR,
    MODELS,
    ModelInfo,
    Thresholds,
    load_info,
    session,
)
from risktable.dice_camera.pips import count_pips

Box = tuple[float, float, float, float]

# Why a read is unsure (empty when it is sure).
FAINT = "neither the detector nor the face classifier is sure it is a die"
UNREADABLE_FACE = "its top face cannot be read (cocked, blurred or hidden)"
DOUBTFUL = "the face classifier is not sure of the value"
PIPS_DIFFER = "the pip count differs"
AT_EDGE = "cut by the edge of the photo"


@dataclass(frozen=True)
class DieRead:
    """One die as read: its value (the best guess when unsure), its box around the whole
    die in fractions of the photo ``[xmin, ymin, xmax, ymax]``, its colour's name,
    whether the reader is sure, and the evidence: the detector's score, the classifier's
    probability of the value, the classical pip count (None when it could not count),
    the body colour in CIELAB, why the read is unsure, the classifier's probability
    that nothing readable is there (a tray service may drop unsure reads it is sure of:
    holes, screws and specks the detector took for dice), and the die's size in pixels
    at the detector's input (its box's longer side: see :func:`small_dice`)."""

    value: int
    box: Box
    colour: str
    sure: bool
    score: float
    confidence: float
    pips: int | None
    lab: Lab
    why: str = ""
    nothing: float = 0.0
    input_px: float = 0.0

    def as_json(self) -> dict[str, object]:
        """The read as ``risktable dice read --json`` prints it."""
        return {"value": self.value, "box": [round(v, 4) for v in self.box],
                "colour": self.colour, "sure": self.sure}


def scaled(box: Box, factor: float) -> Box:
    """``box`` grown (or shrunk) by ``factor`` about its centre."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    hw, hh = (box[2] - box[0]) * factor / 2, (box[3] - box[1]) * factor / 2
    return cx - hw, cy - hh, cx + hw, cy + hh


def in_fractions(box: Box, w: int, h: int) -> Box:
    """A box in pixels as fractions of a ``w`` x ``h`` photo, clipped to it."""
    return (max(box[0] / w, 0.0), max(box[1] / h, 0.0), min(box[2] / w, 1.0),
            min(box[3] / h, 1.0))


def why_unsure(t: Thresholds, score: float, value: int, confidence: float, nothing: float,
               pips: int | None, at_edge: bool) -> str:
    """Why a read with this evidence is unsure under thresholds ``t`` ("" when sure):
    ``score`` the detector's, ``confidence`` the classifier's probability of ``value``
    (its best value), ``nothing`` its probability that nothing readable is there,
    ``pips`` the classical count (None: no count), ``at_edge`` the die cut by the
    frame."""
    if at_edge:
        return AT_EDGE
    if score < t.found_sure and nothing > t.nothing_sure:
        return FAINT
    if nothing >= confidence:  # "nothing readable" is the classifier's first choice
        return UNREADABLE_FACE
    if pips is not None and pips != value:
        return PIPS_DIFFER
    if confidence < (t.value_sure_pips if pips == value else t.value_sure):
        return DOUBTFUL
    return ""


def small_dice(reads: list[DieRead]) -> str:
    """One line for a person setting up a camera when the dice of a photo are smaller at
    the detector's input than the real photos' dice the reader learned from (their
    middle size under PHOTO_DIE_PX's least, the rule the tray's mount is worked out by:
    risktable.hardware.tray.mount_problems), else ""."""
    if not reads:
        return ""
    px = float(np.median([r.input_px for r in reads]))
    least, most = PHOTO_DIE_PX
    if px >= least:
        return ""
    return (f"the dice are about {px:.0f} pixels across at the reader's input, under the "
            f"{least:.0f} to {most:.0f} of the real photos it learned from: such dice may be "
            "missed or read unsure; the tray's mount puts them in that range "
            "(docs/tray-build.md)")


class ReadError(ValueError):
    """A file that is not a readable image."""


def load_image(path: Path) -> Image:
    """The photo at ``path`` as BGR pixels; :class:`ReadError` if it cannot be read."""
    if not path.exists():
        raise ReadError(f"{path}: no such file")
    if path.is_dir():
        raise ReadError(f"{path}: is a folder, not an image")
    try:
        data = np.fromfile(str(path), np.uint8)
    except OSError as exc:
        raise ReadError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise ReadError(f"{path}: not an image OpenCV can decode (JPEG or PNG)")
    return np.asarray(image, np.uint8)


class DiceReader:
    """Reads dice in photos with the committed models (or those in ``models``), on
    ``threads`` CPU threads; ``info`` in place of the models' ``model.json`` (the
    training script's threshold search reads with thresholds of its own)."""

    def __init__(self, models: Path = MODELS, threads: int = 1,
                 info: ModelInfo | None = None) -> None:
        self.info: ModelInfo = info or load_info(models)
        self._detector = session(models / DETECTOR, threads)
        self._detector_input = self._detector.get_inputs()[0].name
        self._classifier = FaceClassifier([models / name for name in self.info.classifiers],
                                          threads)

    def read(self, image: Image) -> list[DieRead]:
        """Every die found in ``image`` (BGR pixels), top to bottom, left to right."""
        t = self.info.thresholds
        h, w = image.shape[:2]
        tensor, scale = detector_input(image)
        heat, size, offset = self._detector.run(None, {self._detector_input: tensor})
        found = decode(np.asarray(heat)[0, 0], np.asarray(size)[0], np.asarray(offset)[0],
                       scale, t.found)
        probabilities = self._classifier.probabilities([die_crop(image, f.box) for f in found])
        reads = []
        for f, p in zip(found, probabilities, strict=True):
            value = int(np.argmax(p[1:])) + 1
            confidence = float(p[value])
            pips = count_pips(image, f.box)
            lab = body_lab(image, f.box)
            edge = 1.0
            x0, y0, x1, y1 = f.box
            at_edge = x0 < -edge or y0 < -edge or x1 > w + edge or y1 > h + edge
            nothing = float(p[UNREADABLE])
            why = why_unsure(t, f.score, value, confidence, nothing, pips, at_edge)
            box = in_fractions(scaled(f.box, self.info.box_scale), w, h)
            reads.append(DieRead(value, box, colour_name(lab), not why, f.score, confidence,
                                 pips, lab, why, nothing, max(x1 - x0, y1 - y0) * scale))
        reads.sort(key=lambda r: (round((r.box[1] + r.box[3]) * 10), r.box[0]))
        return reads

    def read_file(self, path: Path) -> tuple[list[DieRead], float]:
        """The dice in the photo at ``path`` and the milliseconds the reading took (the
        file's decoding included)."""
        started = time.perf_counter()
        image = load_image(path)
        reads = self.read(image)
        return reads, (time.perf_counter() - started) * 1000
