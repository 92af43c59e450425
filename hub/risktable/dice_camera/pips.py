"""A classical pip count: the second, independent reading of a die's top face.

The classifier is a network that may be sure and wrong on dice unlike any it was
trained on; this count shares nothing with it but the crop. It looks for round blobs
that differ from the face's own colour (darker or lighter pips alike), keeps those of
one size, and accepts the count only when they lie the way pips lie on every face of
a die: point-symmetric about their middle. Otherwise it says nothing (None): marbled
and translucent dice, pips the colour of the face, or a face seen too slanted.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from risktable.dice_camera.crops import Image, die_crop

SIDE = 64


def count_pips(image: Image, box: tuple[float, float, float, float]) -> int | None:
    """The number of pips on the top face of the die in ``box`` (pixels of ``image``),
    or None when the pips cannot be told apart from the face with certainty."""
    crop = die_crop(image, box, SIDE, margin=1.0)
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB).astype(np.float32)
    yy, xx = np.mgrid[0:SIDE, 0:SIDE].astype(np.float32) - (SIDE - 1) / 2
    inner = (np.abs(xx) < SIDE * 0.36) & (np.abs(yy) < SIDE * 0.36)
    face = np.median(lab[inner], axis=0)
    distance = np.sqrt((((lab - face) * (1.0, 0.6, 0.6)) ** 2).sum(axis=2))
    spread = float(np.percentile(distance[inner], 97))
    if spread < 25:  # nothing stands out from the face
        return 0 if spread < 12 else None
    level = max(18.0, 0.45 * spread)
    mask = ((distance > level) & inner_area(SIDE)).astype(np.uint8)
    n, _, stats, centres = cv2.connectedComponentsWithStats(mask)
    blobs = []
    for i in range(1, n):
        w, h, area = stats[i][2:5]
        if area < 4 or area > 0.1 * SIDE * SIDE:
            continue
        round_share = area / (math.pi * (max(w, h) / 2) ** 2)
        if round_share < 0.5 or max(w, h) > 2.2 * min(w, h):
            continue
        blobs.append((float(area), float(centres[i][0]), float(centres[i][1])))
    if not 1 <= len(blobs) <= 6:
        return None
    areas = sorted(b[0] for b in blobs)
    if len(blobs) > 1 and areas[-1] > 2.6 * areas[0]:
        return None
    return len(blobs) if symmetric([(b[1], b[2]) for b in blobs]) else None


def inner_area(side: int) -> np.ndarray:
    """Where pips of the top face can lie: the box less a thin rim."""
    m = np.zeros((side, side), bool)
    rim = round(side * 0.1)
    m[rim:side - rim, rim:side - rim] = True
    return m


def symmetric(points: list[tuple[float, float]]) -> bool:
    """Whether the points lie point-symmetric about their mean, as every face's pips do
    (a one alone is in the middle of the face)."""
    if len(points) == 1:
        return True
    cx = sum(p[0] for p in points) / len(points)
    cy = sum(p[1] for p in points) / len(points)
    spread = max(math.hypot(p[0] - cx, p[1] - cy) for p in points)
    if spread < 3:
        return False
    for px, py in points:
        mx, my = 2 * cx - px, 2 * cy - py
        nearest = min(math.hypot(mx - qx, my - qy) for qx, qy in points)
        if nearest > 0.3 * spread:
            return False
    return True
