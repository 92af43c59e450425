"""The square crop around a die that the face classifier and the pip count read.

Training and reading both cut crops through :func:`die_crop`, so the classifier sees
at run time exactly what it was trained on.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[np.uint8]

# The classifier's input: a CROP_SIDE x CROP_SIDE square CROP_MARGIN times the die's
# longer box side, centred on the box (a little floor around the die shows its outline).
CROP_SIDE = 48
CROP_MARGIN = 1.2
# What lies beyond the image's edge in a crop: mid grey, never a copy of the edge, so a
# die cut by the frame does not grow made-up pips.
OUTSIDE = 127


def crop_square(box: tuple[float, float, float, float],
                margin: float = CROP_MARGIN) -> tuple[float, float, float]:
    """Centre x, centre y and side (pixels) of the crop around a box in pixels."""
    x0, y0, x1, y1 = box
    return (x0 + x1) / 2, (y0 + y1) / 2, max(x1 - x0, y1 - y0) * margin


def die_crop(image: Image, box: tuple[float, float, float, float],
             side: int = CROP_SIDE, margin: float = CROP_MARGIN) -> Image:
    """The ``side`` x ``side`` BGR crop around ``box`` (pixels of ``image``)."""
    cx, cy, span = crop_square(box, margin)
    half = max(span, 2.0) / 2
    x0, y0 = round(cx - half), round(cy - half)
    n = max(round(2 * half), 2)
    h, w = image.shape[:2]
    region = image[max(y0, 0):max(min(y0 + n, h), 0), max(x0, 0):max(min(x0 + n, w), 0)]
    if region.shape[0] != n or region.shape[1] != n:
        square = np.full((n, n, 3), OUTSIDE, np.uint8)
        oy, ox = max(-y0, 0), max(-x0, 0)
        square[oy:oy + region.shape[0], ox:ox + region.shape[1]] = region
        region = square
    shrink = n > side
    out = cv2.resize(region, (side, side),
                     interpolation=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR)
    return np.ascontiguousarray(out, dtype=np.uint8)
