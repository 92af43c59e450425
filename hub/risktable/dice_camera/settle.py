"""When the dice have stopped: settling, two reads that agree, and frames too dark to read.

The tray reads a roll once the scene has stopped moving (:class:`Settler`), reads two such
frames and keeps the roll only when both reads :func:`agree`; a frame :func:`is_dark`
gives one clear problem line instead of a read.

Frames are compared small and grey: the longer side scaled to :data:`SIDE` pixels (any
resolution and aspect ratio), blurred so sensor noise averages out, and each frame's
brightness scaled to one mean so a slow change of light (a cloud, a lamp warming, a
webcam's auto-exposure) is not movement. A pixel has moved when it differs by more than
``diff`` grey levels; the scene moves when at least :data:`MOVED_PIXELS` have, fewer than
a die of the smallest size the reader finds covers (a die is at least 7 of the detector's
384 pixels across: 5.8 pixels here).

>>> import numpy as np
>>> settler = Settler(still_s=0.5)
>>> floor = np.full((480, 640, 3), 90, np.uint8)
>>> [settler.feed(Frame(floor, t / 10, "still")) is not None for t in range(7)]
[False, False, False, False, False, True, False]
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from risktable.dice_camera.crops import Image
from risktable.dice_camera.detect import one_to_one, overlap
from risktable.dice_camera.frames import Frame
from risktable.dice_camera.reader import DieRead

# Frames are compared with their longer side at this many pixels.
SIDE = 320
# Grey level every compared frame's mean is scaled to (light changes are not movement).
MEAN_LEVEL = 128.0
# A pixel differing by more than this many grey levels (after the scaling) has moved:
# well above the noise of a blurred, downscaled frame (a grey level or two; a few at
# high gain) and well below a die against any floor (tens of levels).
DIFF = 14.0
# The scene moves when at least this many compared pixels have moved.
MOVED_PIXELS = 6
# Two reads agree on a die when their boxes overlap at least this much (one still scene
# read twice: the boxes differ by the detector's jitter only).
SAME_DIE = 0.5
# A frame whose brightest spot (in the blurred compared frame, so a hot pixel does not
# count) is under DARK_LEVEL is too dark to read: a die's face or pips, whatever the
# floor, are among the brightest things in a lit tray, and one die is enough to show the
# light is on; a dark floor alone does not make a frame dark.
DARK_LEVEL = 60.0

Floats = npt.NDArray[np.float32]


def _small_grey(image: Image) -> Floats:
    h, w = image.shape[:2]
    scale = min(SIDE / max(h, w), 1.0)
    small = cv2.resize(image, (max(round(w * scale), 1), max(round(h * scale), 1)),
                       interpolation=cv2.INTER_AREA)
    grey = small if small.ndim == 2 else cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    return np.asarray(cv2.GaussianBlur(grey.astype(np.float32), (0, 0), 1.2), np.float32)


def _levelled(grey: Floats) -> Floats:
    mean = float(grey.mean())
    return grey * (MEAN_LEVEL / mean) if mean > 1.0 else grey


class Settler:
    """Says when the scene has stopped moving: :meth:`feed` it every frame, and it returns
    a frame once the scene has been still for ``still_s`` seconds of frame time after it
    last moved, once per settle (then nothing until the scene moves and stops again). The
    scene before the first frame counts as moving, so a source's first still scene
    settles too. ``diff``: how many grey levels a pixel must change by to have moved.

    Stillness is measured against the frame that began it, not only the frame before, so a
    die creeping a pixel a frame still counts as moving."""

    def __init__(self, still_s: float = 0.5, diff: float = DIFF) -> None:
        self.still_s = still_s
        self.diff = diff
        # The first frame of the current still run, small, grey and levelled.
        self._anchor: Floats | None = None
        self._since = 0.0  # when that run began (frame time)
        self._last_t: float | None = None
        self._settled = False  # already reported this still run

    def _moved(self, a: Floats, b: Floats) -> bool:
        # Whether two compared frames (small, grey, levelled) differ by movement.
        if a.shape != b.shape:
            return True
        return int(np.count_nonzero(np.abs(a - b) > self.diff)) >= MOVED_PIXELS

    def feed(self, frame: Frame) -> Frame | None:
        """The frame when the scene has just settled, else None."""
        grey = _levelled(_small_grey(frame.image))
        went_back = self._last_t is not None and frame.t < self._last_t
        self._last_t = frame.t
        if self._anchor is None or went_back or self._moved(self._anchor, grey):
            moving = self._anchor is not None
            self._anchor, self._since = grey, frame.t
            if moving:  # a new still run starts with this frame
                self._settled = False
            return None
        if not self._settled and frame.t - self._since >= self.still_s - 1e-9:
            self._settled = True
            return frame
        return None


def agree(a: list[DieRead], b: list[DieRead]) -> bool:
    """Whether two reads of a still tray found the same dice: as many in each, each die
    of one matched to one of the other by overlapping boxes (best overlaps first), with
    the same value, colour and sureness."""
    if len(a) != len(b):
        return False
    matched = one_to_one((iou, i, j) for i, x in enumerate(a) for j, y in enumerate(b)
                         if (iou := overlap(x.box, y.box)) >= SAME_DIE)
    if len(matched) != len(a):
        return False
    return all((a[i].value, a[i].colour, a[i].sure) == (b[j].value, b[j].colour, b[j].sure)
               for i, j in matched.items())


def is_dark(image: Image) -> bool:
    """Whether ``image`` (BGR) is too dark to read: even its brightest pixels are dim (the
    light is off, the lens covered, the exposure far too short). A dark floor with lit
    dice on it is not dark."""
    return float(_small_grey(image).max()) < DARK_LEVEL
