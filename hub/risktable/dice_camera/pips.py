"""A classical pip count: the second, independent reading of a die's top face.

The classifier is a network that may be sure and wrong on dice unlike any it was
trained on; this count shares nothing with it but the crop. It looks for round blobs
that differ from the face's own colour (darker or lighter pips alike) inside the face's
outline, and accepts the count only when every mark there is a pip of one size and
they lie as a face of that number lies them out (the pattern turned and scaled onto
them), a one only when it is a large pip in the middle. Otherwise it says nothing
(None): marbled and translucent dice, glints, pips the colour of the face or run
together, a face seen too slanted. On the training photos it counts one die in five and
is wrong on one in five hundred.
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
    middle = (np.abs(xx) < SIDE * 0.2) & (np.abs(yy) < SIDE * 0.2)
    face = np.median(lab[middle], axis=0)
    distance = np.sqrt((((lab - face) * (1.0, 0.6, 0.6)) ** 2).sum(axis=2))
    spread = float(np.percentile(distance[inner], 97))
    if spread < 25:  # nothing stands out from the face
        return 0 if spread < 12 else None
    level = max(18.0, 0.55 * spread)
    face_area = face_region((distance <= level).astype(np.uint8))
    if face_area is None or face_area.sum() < 0.2 * SIDE * SIDE:
        return None
    mask = ((distance > level) & face_area).astype(np.uint8)
    n, _, stats, centres = cv2.connectedComponentsWithStats(mask)
    blobs = []
    for i in range(1, n):
        w, h, area = stats[i][2:5]
        if area < 4:
            continue
        round_share = area / (math.pi * (max(w, h) / 2) ** 2)
        if area > 0.1 * SIDE * SIDE or round_share < 0.5 or max(w, h) > 2.2 * min(w, h):
            return None  # a mark that is no pip: a glint, a swirl, pips run together
        blobs.append((float(area), float(centres[i][0]), float(centres[i][1])))
    if not 1 <= len(blobs) <= 6:
        return None
    areas = sorted(b[0] for b in blobs)
    if len(blobs) > 1 and areas[-1] > 2.2 * areas[0]:
        return None
    diameter = 2 * math.sqrt(float(np.median(areas)) / math.pi)
    points = np.array([(b[1], b[2]) for b in blobs], np.float64)
    if len(blobs) == 1:  # a one: a large pip in the middle of the face
        ys, xs = np.nonzero(face_area)
        middle = np.array([xs.mean(), ys.mean()])
        size = math.sqrt(face_area.sum())
        near = np.hypot(*(points[0] - middle)) < 0.15 * size
        return 1 if near and diameter > 0.16 * size else None
    return len(blobs) if laid_out_as_pips(points, diameter) else None


def face_region(body: np.ndarray) -> np.ndarray | None:
    """Where the top face's pips can lie: inside the outline of the face-coloured part
    that covers the crop's middle (the floor around the die left out), less a thin rim;
    None when the middle is not face-coloured."""
    n, labels = cv2.connectedComponents(body)
    middle = labels[SIDE // 3:2 * SIDE // 3, SIDE // 3:2 * SIDE // 3]
    counts = np.bincount(middle.ravel(), minlength=n)
    counts[0] = 0
    if n < 2 or counts.max() == 0:
        return None
    points = cv2.findNonZero((labels == int(np.argmax(counts))).astype(np.uint8))
    region = np.zeros_like(body)
    cv2.fillConvexPoly(region, cv2.convexHull(points), 1)
    region = cv2.erode(region, np.ones((3, 3), np.uint8))
    rim = round(SIDE * 0.06)
    region[:rim], region[-rim:], region[:, :rim], region[:, -rim:] = 0, 0, 0, 0
    return region.astype(bool)


# Pip centres of each face, the corner pips at (+-1, +-1).
LAYOUTS = {
    2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (-1, 1), (1, 1), (0, 0)],
    6: [(-1, -1), (1, -1), (-1, 1), (1, 1), (-1, 0), (1, 0)],
}


def laid_out_as_pips(points: np.ndarray, diameter: float) -> bool:
    """Whether the blob centres lie as the pips of a face of their number lie: the face's
    pattern turned and scaled onto them fits each within half a pip, and the pattern's
    corner pips stand 1.8 to 5 pip widths apart (a face's pips, not a speckle or a
    marbled swirl)."""
    layout = np.array(LAYOUTS[len(points)], np.float64)
    centred = points - points.mean(axis=0)
    layout = layout - layout.mean(axis=0)
    scale = math.sqrt((centred ** 2).sum() / (layout ** 2).sum())
    if not 0.9 <= scale / diameter <= 2.5:  # corner to corner 2 * scale
        return False
    for step in range(0, 180, 3):  # a two or three repeats only every half turn
        a = math.radians(step)
        turn = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        placed = layout @ turn.T * scale
        gaps = np.hypot(placed[:, None, 0] - centred[None, :, 0],
                        placed[:, None, 1] - centred[None, :, 1])
        # each pattern place has its own blob, and each blob its own place
        if (gaps.min(axis=1).max() < 0.5 * diameter
                and len(set(gaps.argmin(axis=1).tolist())) == len(points)):
            return True
    return False
