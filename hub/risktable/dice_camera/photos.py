"""Labelled dice photos: the shared photos' ``labels.json`` and the test fixtures.

A label file maps each photo's file name to ``{"width", "height", "dice": [{"value",
"box"}, ...]}``, ``box`` being ``[xmin, ymin, xmax, ymax]`` in fractions of the image,
around the whole die. The fixtures add a ``"colour"`` to each die, named by hand.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from risktable.dice_camera.split import split_names

# Where the shared photos sit beside a checkout (the project's shared/ folder).
SHARED_PHOTOS = Path(__file__).resolve().parents[3].parent / "shared" / "dice-photos" / "train"


@dataclass(frozen=True)
class LabelledDie:
    """One die as labelled: its face value, its box (fractions) and, in the test
    fixtures, its colour name."""

    value: int
    box: tuple[float, float, float, float]
    colour: str | None = None


@dataclass(frozen=True)
class LabelledPhoto:
    """A photo's path and its labelled dice."""

    path: Path
    dice: tuple[LabelledDie, ...]


def load_labels(folder: Path) -> dict[str, LabelledPhoto]:
    """Every photo of ``folder/labels.json``, by file name."""
    raw = json.loads((folder / "labels.json").read_text(encoding="utf-8"))
    photos: dict[str, LabelledPhoto] = {}
    for name, entry in raw.items():
        dice = tuple(LabelledDie(int(d["value"]), (d["box"][0], d["box"][1], d["box"][2],
                                                    d["box"][3]), d.get("colour"))
                     for d in entry["dice"])
        photos[name] = LabelledPhoto(folder / name, dice)
    return photos


def load_part(folder: Path, which: str) -> list[LabelledPhoto]:
    """The photos of one part of the split (:mod:`risktable.dice_camera.split`)."""
    photos = load_labels(folder)
    return [photos[name] for name in split_names(photos)[which]]
