"""Tray photos made from real dice: each die a crop of a real photo (the shared dice
photos, BSD-3: ``dice_crops/LICENSE``), laid on a plain floor at a place of its own. The
demo's bots roll through the tray this way (``risktable demo --tray``), and the tests make
battles of red attack and white defence dice that no fixture photo holds.

The crops (``dice_crops/crops.png``, one row of square crops, and ``crops.json``: each
crop's colour and value) were chosen by ``tools/tray/crop_bank.py`` from the training part
of the shared photos.

>>> import random
>>> photo = compose([(6, "red"), (2, "white")], random.Random(1))
>>> photo.image.shape, [(d.value, d.colour) for d in photo.dice]
((640, 640, 3), [(6, 'red'), (2, 'white')])
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from risktable.dice_camera.crops import Image

CROPS = Path(__file__).with_name("dice_crops")
# Each crop is a square this many pixels across, the die's box grown by CROP_MARGIN.
CROP_SIDE = 64
CROP_MARGIN = 1.4
# The composed photo, and the dice's size in it (the shared photos' dice are 21-69 px).
PHOTO_SIDE = 640
DIE_PIXELS = (44, 56)


@dataclass(frozen=True)
class PlacedDie:
    """A die laid in a composed photo: its value, colour and box (fractions)."""

    value: int
    colour: str
    box: tuple[float, float, float, float]


@dataclass(frozen=True)
class TrayPhoto:
    """A composed photo (BGR) and the dice laid in it."""

    image: Image
    dice: tuple[PlacedDie, ...]


@cache
def _bank() -> tuple[Image, tuple[tuple[str, int], ...]]:
    sheet = cv2.imread(str(CROPS / "crops.png"), cv2.IMREAD_COLOR)
    if sheet is None:
        raise FileNotFoundError(f"{CROPS / 'crops.png'}: the dice crops are missing")
    labels = json.loads((CROPS / "crops.json").read_text())
    return np.asarray(sheet, np.uint8), tuple((str(c["colour"]), int(c["value"]))
                                              for c in labels["crops"])


def colours() -> frozenset[str]:
    """The colours the crops have."""
    return frozenset(colour for colour, _ in _bank()[1])


def _crop(colour: str, value: int, rng: random.Random) -> Image:
    sheet, labels = _bank()
    found = [i for i, label in enumerate(labels) if label == (colour, value)]
    if not found:
        raise ValueError(f"no {colour} {value} among the dice crops")
    i = rng.choice(found)
    return sheet[:, i * CROP_SIDE:(i + 1) * CROP_SIDE]


def _floor(rng: random.Random) -> Image:
    # A light tray floor like the crops' own (so their edges blend), with soft noise.
    sheet = _bank()[0]
    border = np.concatenate([sheet[:3].reshape(-1, 3), sheet[-3:].reshape(-1, 3)])
    base = np.median(border, axis=0)
    noise = np.random.default_rng(rng.randrange(2**32)).normal(0, 3, (PHOTO_SIDE, PHOTO_SIDE, 1))
    floor = np.clip(base[None, None, :] + cv2.GaussianBlur(noise, (0, 0), 2)[..., None], 0, 255)
    return np.asarray(floor, np.uint8)


def compose(dice: Sequence[tuple[int, str]], rng: random.Random) -> TrayPhoto:
    """A photo of ``dice`` ((value, colour) each) lying apart on a tray floor, each a real
    die's crop turned by a quarter turn or two (its face reads the same)."""
    image = _floor(rng)
    placed: list[PlacedDie] = []
    taken: list[tuple[int, int, int]] = []
    for value, colour in dice:
        side = rng.randint(*DIE_PIXELS)
        crop_side = round(side * CROP_MARGIN)
        turned = np.ascontiguousarray(np.rot90(_crop(colour, value, rng), rng.randrange(4)))
        crop = np.asarray(cv2.resize(turned, (crop_side, crop_side),
                                     interpolation=cv2.INTER_AREA), np.uint8)
        for _ in range(200):
            x = rng.randrange(20, PHOTO_SIDE - crop_side - 20)
            y = rng.randrange(20, PHOTO_SIDE - crop_side - 20)
            if all(max(abs(x - tx), abs(y - ty)) > (crop_side + ts) // 2 + 8
                   for tx, ty, ts in taken):
                break
        else:
            raise ValueError(f"{len(dice)} dice do not fit in one tray photo")
        taken.append((x, y, crop_side))
        image[y:y + crop_side, x:x + crop_side] = _blended(image[y:y + crop_side,
                                                                  x:x + crop_side], crop)
        pad = (crop_side - side) / 2
        placed.append(PlacedDie(value, colour, ((x + pad) / PHOTO_SIDE, (y + pad) / PHOTO_SIDE,
                                                (x + pad + side) / PHOTO_SIDE,
                                                (y + pad + side) / PHOTO_SIDE)))
    return TrayPhoto(image, tuple(placed))


def _blended(floor: Image, crop: Image) -> Image:
    # The crop's middle wholly, its margin fading into the floor: no square seam.
    n = crop.shape[0]
    ramp = np.minimum(np.arange(n), np.arange(n)[::-1]) / (n * (CROP_MARGIN - 1) / CROP_MARGIN / 2)
    mask = np.clip(np.minimum.outer(ramp, ramp), 0, 1)[..., None]
    return np.asarray(crop * mask + floor * (1 - mask), np.uint8)
