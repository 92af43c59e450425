"""The held-out split of the shared dice photos, fixed by file name before any tuning.

The photos are sorted by file name; every fifth one (sorted positions 4, 9, 14, ...)
is held out: no training, no threshold and no choice of design ever looked at it, and
``bench/bench_dice_read.py`` reports the reader's accuracy on it. Of the rest, every
tenth (positions 1, 11, 21, ...) is the validation part the training script tunes its
thresholds on; the others train the models.

>>> [part(n) for n in ["a.jpg", "b.jpg", "c.jpg", "d.jpg", "e.jpg"]][:1]
['train']
>>> split_names(["a", "b", "c", "d", "e"])["held_out"]
['e']
"""

from __future__ import annotations

from collections.abc import Iterable

HELD_OUT = "held_out"
VALIDATION = "validation"
TRAIN = "train"


def split_names(names: Iterable[str]) -> dict[str, list[str]]:
    """The file names of each part, each list in sorted order."""
    parts: dict[str, list[str]] = {TRAIN: [], VALIDATION: [], HELD_OUT: []}
    for index, name in enumerate(sorted(names)):
        if index % 5 == 4:
            parts[HELD_OUT].append(name)
        elif index % 10 == 1:
            parts[VALIDATION].append(name)
        else:
            parts[TRAIN].append(name)
    return parts


def part(name: str, names: Iterable[str] | None = None) -> str:
    """The part ``name`` falls in, among ``names`` (all the photos' names; by default
    ``name`` alone, which is only useful in the examples above)."""
    everything = sorted(set(names or ()) | {name})
    for which, members in split_names(everything).items():
        if name in members:
            return which
    raise AssertionError("unreachable: every name falls in one part")
