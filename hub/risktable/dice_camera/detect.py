"""Finding dice: the detector's input, and its output turned into boxes.

The detector is a small fully convolutional network (trained by
``tools/dice_reader/train.py``) that draws a heat map of die centres at a quarter of its
input's resolution, with each centre's box size. The image is scaled so its longer side
is :data:`DETECTOR_SIDE` pixels (any aspect ratio; padded to a multiple of 32), so a
die of any size in any frame is found at one pass.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from risktable.dice_camera.crops import Image

DETECTOR_SIDE = 384
STRIDE = 4
MULTIPLE = 32
PAD = 114
# At most this many dice are looked at in one photo.
MAX_DICE = 60
# Dice sizes, pixels across at the detector's input (the photo's longer side at
# DETECTOR_SIDE): the detector was trained on dice drawn 7 to 110 pixels across
# (tools/dice_reader/train.py, detector_sample), of which the real photos' own dice are
# 13 to 41 (smaller and larger ones were scaled or rendered). A camera should put dice in
# the real range (hardware/tray.json, risktable.hardware.tray).
TRAINED_DIE_PX = (7.0, 110.0)
PHOTO_DIE_PX = (13.0, 41.0)

Floats = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Found:
    """A die the detector found: its box in pixels of the photo and its score (0-1)."""

    box: tuple[float, float, float, float]
    score: float


def detector_input(image: Image, side: int = DETECTOR_SIDE) -> tuple[Floats, float]:
    """The detector's input tensor (1, 3, H, W, float32 0-255, BGR) and the scale from
    photo pixels to input pixels."""
    h, w = image.shape[:2]
    scale = side / max(h, w)
    nw, nh = max(round(w * scale), 1), max(round(h * scale), 1)
    resized = cv2.resize(image, (nw, nh),
                         interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    ph, pw = -(-nh // MULTIPLE) * MULTIPLE, -(-nw // MULTIPLE) * MULTIPLE
    padded = np.full((ph, pw, 3), PAD, np.uint8)
    padded[:nh, :nw] = resized
    return padded.transpose(2, 0, 1)[None].astype(np.float32), scale


def decode(heat: Floats, size: Floats, offset: Floats, scale: float,
           threshold: float, max_dice: int = MAX_DICE) -> list[Found]:
    """Boxes from the detector's output maps for one image.

    ``heat`` is (H, W) in 0-1, ``size`` (2, H, W) the log of the box's width and height
    in cells, ``offset`` (2, H, W) the centre's place within its cell. A centre is a
    cell at least ``threshold`` that is the highest of its 3 x 3 neighbours.
    """
    peaks = (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= threshold)
    ys, xs = np.nonzero(peaks)
    order = np.argsort(-heat[ys, xs])[:max_dice]
    found: list[Found] = []
    for y, x in zip(ys[order], xs[order], strict=True):
        cx = (x + float(offset[0, y, x])) * STRIDE / scale
        cy = (y + float(offset[1, y, x])) * STRIDE / scale
        bw = float(np.exp(size[0, y, x])) * STRIDE / scale
        bh = float(np.exp(size[1, y, x])) * STRIDE / scale
        found.append(Found((cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2),
                           float(heat[y, x])))
    return suppress_overlaps(found)


def overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    """Intersection over union of two boxes."""
    iw = min(a[2], b[2]) - max(a[0], b[0])
    ih = min(a[3], b[3]) - max(a[1], b[1])
    if iw <= 0 or ih <= 0:
        return 0.0
    inter = iw * ih
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def one_to_one(pairs: Iterable[tuple[float, int, int]]) -> dict[int, int]:
    """Matches ``i -> j`` from candidate ``(closeness, i, j)`` pairs, the closest first,
    each ``i`` and each ``j`` used once.

    >>> one_to_one([(0.9, 0, 1), (0.8, 0, 0), (0.7, 1, 1), (0.6, 1, 0)])
    {0: 1, 1: 0}
    """
    matched: dict[int, int] = {}
    taken: set[int] = set()
    for _, i, j in sorted(pairs, reverse=True):
        if i not in matched and j not in taken:
            matched[i] = j
            taken.add(j)
    return matched


def suppress_overlaps(found: list[Found], limit: float = 0.45) -> list[Found]:
    """The best-scored of boxes that overlap more than ``limit`` (two peaks on one die)."""
    kept: list[Found] = []
    for f in sorted(found, key=lambda f: -f.score):
        if all(overlap(f.box, k.box) <= limit for k in kept):
            kept.append(f)
    return kept
