"""How long the demo's bots wait for the table, as people at it would.

A person at a real table who pressed a button and sees the hub busy waits; they do not
count the time the hub spends waiting for its own disk (docs/journal.md: a stalled SD
card holds every journal commit). Every wait of the demo's bots (an answer from the hub,
a roll shown armed, a press the seat takes, the tray's read shown) is a
:class:`Patience`: a number of seconds, looked at in short looks, with the time of any
look during which the hub waited for its disk given back.
"""

from __future__ import annotations

import time
from collections.abc import Callable

# Seconds between looks: how often a bot notices that the hub is waiting for its disk,
# and how much time one look past the deadline may add.
LOOK = 0.5


def _never() -> bool:
    return False


class Patience:
    """``seconds`` of waiting, from now, that do not run while ``stalled()`` holds (the
    hub has waited on its disk long enough to say so)."""

    def __init__(self, seconds: float, stalled: Callable[[], bool] = _never) -> None:
        self._stalled = stalled
        self._last = time.monotonic()
        self._deadline = self._last + seconds

    def look(self) -> float:
        """How long the next look may wait: at most :data:`LOOK`, none once the
        patience has run out (a last look still sees what came meanwhile)."""
        return min(LOOK, max(self._deadline - time.monotonic(), 0.0))

    def over(self) -> bool:
        """After a look that did not see what is awaited: whether the patience has run
        out. The look's time is given back when the hub was waiting for its disk."""
        now = time.monotonic()
        if self._stalled():
            self._deadline = max(self._deadline + now - self._last, now + LOOK)
        self._last = now
        return now >= self._deadline

    def wait(self, until: Callable[[float], bool]) -> bool:
        """Look with ``until(seconds)`` (which waits up to that long for what is
        awaited, True once it came) until it comes (True) or the patience runs out
        (False, after a last look: what came as the hub's stall ended counts)."""
        while True:
            if until(self.look()):
                return True
            if self.over():
                return until(0.0)
