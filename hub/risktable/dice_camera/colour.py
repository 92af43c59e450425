"""A die's body colour: measured in CIELAB from its crop, and named.

:func:`body_lab` measures the face's colour (the pips left out); :func:`colour_name`
names it by its chroma, hue angle and lightness. A tray that must tell the
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

# Hue angles (degrees, CIELAB's a-b plane) where each chromatic name begins, in order
# round the circle; a name runs to the next one's start.
HUES: list[tuple[float, str]] = [(0, "red"), (45, "orange"), (70, "yellow"), (105, "green"),
                                 (200, "blue"), (310, "purple"), (345, "red")]


def to_lab(bgr: Iterable[float]) -> Lab:
    """CIELAB (L 0-100, a and b about -128 to 127) of one BGR colour (0-255)."""
    pixel = np.array([[list(bgr)]], np.float32) / 255.0
    lab = cv2.cvtColor(pixel, cv2.COLOR_BGR2LAB)[0, 0]
    return float(lab[0]), float(lab[1]), float(lab[2])


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
    """A plain name for ``lab``: white, grey or black when it has little colour (a light
    die may be a little warm and still white), else by hue: red, orange, yellow, green,
    blue, purple, with dark orange called brown and light red or purple called pink.

    >>> colour_name(to_lab((40, 40, 210)))
    'red'
    >>> colour_name(to_lab((225, 235, 240)))
    'white'
    """
    lightness, a, b = lab
    chroma = math.hypot(a, b)
    if chroma < 8 or (lightness > 65 and chroma < 16):
        return "white" if lightness > 65 else "black" if lightness < 25 else "grey"
    hue = math.degrees(math.atan2(b, a)) % 360
    name = [n for start, n in HUES if hue >= start][-1]
    if name == "orange" and lightness < 45:
        return "brown"
    if name in ("red", "purple") and lightness > 65 and chroma < 45:
        return "pink"
    return name


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
