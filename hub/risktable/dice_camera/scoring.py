"""Scoring reads against labelled dice, as issue 31 defines it.

A die is read right when a sure read of its value has a box overlapping it (intersection
over union at least :data:`OVERLAP`, one read per die, best overlaps first). A sure read
of another value, or a sure read overlapping no die (a die that is not there, or a
second read of one die), is a wrong read. A die not read right is missed.

The issue asks only that the box "overlaps the die"; 0.3 asks more than that (a box that
merely touches a die does not count) but less than the 0.5 of object-detection
benchmarks, since the labels' boxes themselves vary by about a fifth of a die's size.
``bench/bench_dice_read.py`` prints the figures at 0.5 too.

Some other setups' labels box only a die's top face, or only its pips (a 1's box is one
pip), which no box around the whole die overlaps by IoU. For them ``match="centre"``: a
read overlaps a die when the labelled box's centre lies inside the read's box, nearest
centres first, one read per die.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from risktable.dice_camera.detect import one_to_one, overlap
from risktable.dice_camera.photos import LabelledDie
from risktable.dice_camera.reader import Box, DieRead

OVERLAP = 0.3
IOU, CENTRE = "iou", "centre"
MATCHES = (IOU, CENTRE)


@dataclass
class Score:
    """Counts over any number of photos."""

    dice: int = 0
    right: int = 0
    wrong: int = 0
    unsure: int = 0  # dice whose read was unsure
    not_found: int = 0  # dice with no read at all
    extra_unsure: int = 0  # unsure reads where there is no die
    by_value: Counter[tuple[int, str]] = field(default_factory=Counter)
    by_colour: Counter[tuple[str, str]] = field(default_factory=Counter)

    @property
    def missed(self) -> int:
        """Dice not read right."""
        return self.dice - self.right

    def add(self, other: Score) -> None:
        """Adds another photo's counts to these."""
        for name in ("dice", "right", "wrong", "unsure", "not_found", "extra_unsure"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.by_value.update(other.by_value)
        self.by_colour.update(other.by_colour)


def _centre_closeness(read: Box, die: Box) -> float | None:
    """How near the die's labelled centre lies to the read's centre (higher is nearer),
    or None when it lies outside the read's box."""
    cx, cy = (die[0] + die[2]) / 2, (die[1] + die[3]) / 2
    if not (read[0] <= cx <= read[2] and read[1] <= cy <= read[3]):
        return None
    return -math.hypot(cx - (read[0] + read[2]) / 2, cy - (read[1] + read[3]) / 2)


def _pairs(reads: Sequence[DieRead], dice: Sequence[LabelledDie], least: float,
           match: str) -> list[tuple[float, int, int]]:
    """The (closeness, read, die) pairs that overlap."""
    pairs = []
    for i, r in enumerate(reads):
        for j, d in enumerate(dice):
            if match == CENTRE:
                closeness = _centre_closeness(r.box, d.box)
            else:
                iou = overlap(r.box, d.box)
                closeness = iou if iou >= least else None
            if closeness is not None:
                pairs.append((closeness, i, j))
    return pairs


def score_photo(reads: Sequence[DieRead], dice: Sequence[LabelledDie],
                least: float = OVERLAP, match: str = IOU) -> Score:
    """The counts of one photo, a read overlapping a die from IoU ``least`` (or, with
    ``match="centre"``, when the die's labelled centre lies inside the read's box)."""
    if match not in MATCHES:
        raise ValueError(f"match must be one of {MATCHES}, not {match!r}")
    die_of = one_to_one(_pairs(reads, dice, least, match))
    read_of = {j: i for i, j in die_of.items()}
    s = Score(dice=len(dice))
    for j, d in enumerate(dice):
        colour = d.colour or "?"
        if j not in read_of:
            s.not_found += 1
            outcome = "missed"
        else:
            r = reads[read_of[j]]
            if not r.sure:
                s.unsure += 1
                outcome = "missed"
            elif r.value == d.value:
                s.right += 1
                outcome = "right"
            else:
                s.wrong += 1
                outcome = "wrong"
        s.by_value[(d.value, outcome)] += 1
        s.by_colour[(colour, outcome)] += 1
    for i, r in enumerate(reads):
        if i not in die_of:
            if r.sure:
                s.wrong += 1
            else:
                s.extra_unsure += 1
    return s
