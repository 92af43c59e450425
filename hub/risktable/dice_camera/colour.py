"""A die's body colour: measured in CIELAB from its crop, and named.

:func:`body_lab` measures the face's colour (the pips left out); :func:`colour_name`
names it from a fixed palette of common die colours. A tray that must tell the
attack dice from the defence dice learns their colours from a few examples instead
(:class:`ColourCalibration`), so a pink "red" or an ivory "white" is still told apart
under the table's own light.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import cv2
import numpy as np

from risktable.dice_camera.crops import Image, die_crop

Lab = tuple[float, float, float]

# Named reference colours (sRGB) with the name each stands for.
PALETTE: list[tuple[str, tuple[int, int, int]]] = [
    ("white", (240, 240, 236)), ("white", (225, 220, 200)), ("white", (200, 205, 210)),
    ("grey", (128, 128, 128)), ("grey", (90, 90, 95)), ("black", (25, 25, 28)),
    ("black", (50, 45, 45)), ("red", (200, 30, 35)), ("red", (140, 20, 30)),
    ("red", (230, 70, 60)), ("orange", (240, 130, 30)), ("orange", (200, 100, 30)),
    ("yellow", (240, 220, 50)), ("yellow", (200, 180, 40)), ("green", (40, 160, 70)),
    ("green", (20, 90, 40)), ("green", (140, 190, 60)), ("blue", (30, 60, 200)),
    ("blue", (20, 30, 110)), ("blue", (80, 160, 230)), ("blue", (0, 130, 140)),
    ("purple", (110, 40, 140)), ("purple", (60, 30, 90)), ("purple", (150, 110, 200)),
    ("pink", (240, 120, 180)), ("pink", (230, 170, 200)), ("brown", (110, 70, 40)),
    ("brown", (160, 110, 60)),
]


def to_lab(bgr: Iterable[float]) -> Lab:
    """CIELAB (L 0-100, a and b about -128 to 127) of one BGR colour (0-255)."""
    pixel = np.array([[list(bgr)]], np.float32) / 255.0
    lab = cv2.cvtColor(pixel, cv2.COLOR_BGR2LAB)[0, 0]
    return float(lab[0]), float(lab[1]), float(lab[2])


_REFERENCES = [(name, to_lab((b, g, r))) for name, (r, g, b) in PALETTE]


def distance(a: Lab, b: Lab) -> float:
    """How far apart two colours look: CIE76 with lightness weighted half (a die's
    lightness swings with the light far more than its hue)."""
    return math.sqrt(((a[0] - b[0]) * 0.5) ** 2 + (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2)


def body_lab(image: Image, box: tuple[float, float, float, float]) -> Lab:
    """The median colour of the die's face inside ``box`` (pixels), pips left out."""
    crop = die_crop(image, box, 32, margin=1.0)
    centre = crop[8:24, 8:24].reshape(-1, 3).astype(np.float32) / 255.0
    lab = cv2.cvtColor(centre[None], cv2.COLOR_BGR2LAB)[0]
    median = np.median(lab, axis=0)
    far = np.sqrt(((lab - median) ** 2).sum(axis=1))
    body = lab[far <= np.percentile(far, 70)]
    m = body.mean(axis=0)
    return float(m[0]), float(m[1]), float(m[2])


def colour_name(lab: Lab) -> str:
    """The palette name nearest to ``lab``.

    >>> colour_name(to_lab((40, 40, 210)))
    'red'
    """
    return min(_REFERENCES, key=lambda ref: distance(lab, ref[1]))[0]


@dataclass
class ColourCalibration:
    """Colours learned from examples (say "attack" and "defence"), for telling a tray's
    dice apart by the table's own light.

    >>> cal = ColourCalibration()
    >>> cal.learn("attack", to_lab((40, 40, 200)))
    >>> cal.learn("defence", to_lab((235, 235, 235)))
    >>> cal.name_of(to_lab((50, 50, 190)))
    'attack'
    """

    samples: dict[str, list[Lab]] = field(default_factory=dict)
    # Farther than this from every learned colour: none of them.
    limit: float = 30.0

    def learn(self, name: str, lab: Lab) -> None:
        """Add one example of ``name``'s colour."""
        self.samples.setdefault(name, []).append(lab)

    def means(self) -> Mapping[str, Lab]:
        """The mean learned colour of each name."""
        out: dict[str, Lab] = {}
        for name, labs in self.samples.items():
            a = np.array(labs, np.float64).mean(axis=0)
            out[name] = (float(a[0]), float(a[1]), float(a[2]))
        return out

    def name_of(self, lab: Lab) -> str | None:
        """The learned name nearest to ``lab``, or None when none is near enough."""
        best: tuple[float, str] | None = None
        for name, mean in self.means().items():
            d = distance(lab, mean)
            if best is None or d < best[0]:
                best = (d, name)
        return best[1] if best is not None and best[0] <= self.limit else None
