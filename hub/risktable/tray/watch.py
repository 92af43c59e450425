"""From frames to settled rolls: the tray waits until the scene stops moving
(:class:`~risktable.dice_camera.settle.Settler`), reads that frame and the ones after it
until two reads :func:`~risktable.dice_camera.settle.agree`, and yields the roll once. A
settled frame too dark to read is yielded as such, without a read. No MQTT, no game."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from risktable.dice_camera.crops import Image
from risktable.dice_camera.frames import Frame
from risktable.dice_camera.reader import DieRead
from risktable.dice_camera.settle import Settler, agree, is_dark

log = logging.getLogger(__name__)

# Reads of one settled scene before the tray gives up waiting for two that agree (the
# dice were still moving after all, or the light flickers); the next settle tries again.
TRIES = 4


@dataclass(frozen=True)
class SettledRoll:
    """One settled scene: its frame, the read both agreeing reads gave, the last read's
    milliseconds, and whether the frame was too dark to read (then no read)."""

    frame: Frame
    reads: list[DieRead]
    ms: float
    dark: bool = False


def settled_rolls(frames: Iterable[Frame], read: Callable[[Image], list[DieRead]],
                  settler: Settler | None = None, tries: int = TRIES) -> Iterator[SettledRoll]:
    """Each settled scene of ``frames`` read with ``read``, once two reads agree."""
    settler = settler or Settler()
    pending: list[DieRead] | None = None
    left = 0
    for frame in frames:
        if settler.feed(frame) is not None:
            if is_dark(frame.image):
                pending = None
                yield SettledRoll(frame, [], 0.0, dark=True)
                continue
            pending, _ = _timed(read, frame.image)
            left = tries - 1
            continue
        if pending is None:
            continue
        reads, ms = _timed(read, frame.image)
        if agree(pending, reads):
            pending = None
            yield SettledRoll(frame, reads, ms)
        elif left <= 1:
            log.info("tray: %d reads of %s did not agree; waiting for the dice to settle "
                     "again", tries, frame.name)
            pending = None
        else:
            pending, left = reads, left - 1


def _timed(read: Callable[[Image], list[DieRead]], image: Image) -> tuple[list[DieRead], float]:
    start = time.perf_counter()
    reads = read(image)
    return reads, (time.perf_counter() - start) * 1000.0
