"""Tray photos for the tray's tests, composed from real dice crops
(risktable.tray.compose; the crops' licence is in hub/risktable/tray/dice_crops/)."""

from __future__ import annotations

import random
from pathlib import Path

import cv2
import numpy as np

from risktable.dice_camera.detect import overlap
from risktable.tray import compose
from risktable.tray.compose import PlacedDie


def write(folder: Path, name: str, dice: list[tuple[int, str]], seed: int) -> tuple[PlacedDie, ...]:
    """A composed photo of ``dice`` written as ``folder/name``; returns the dice laid."""
    photo = compose.compose(dice, random.Random(seed))
    folder.mkdir(parents=True, exist_ok=True)
    assert cv2.imwrite(str(folder / name), photo.image)
    return photo.dice


def write_dark(folder: Path, name: str) -> None:
    """A photo of a tray with the light off."""
    folder.mkdir(parents=True, exist_ok=True)
    assert cv2.imwrite(str(folder / name), np.full((480, 640, 3), 12, np.uint8))


def laid_under(box: list[int], laid: tuple[PlacedDie, ...]) -> PlacedDie:
    """The laid die a published box (thousandths) lies on."""
    fractions = tuple(v / 1000 for v in box)
    best = max(laid, key=lambda d: overlap(d.box, fractions))  # type: ignore[arg-type]
    assert overlap(best.box, fractions) > 0.3, (box, laid)  # type: ignore[arg-type]
    return best
