"""A percentage on standard error for a command that may take more than a second."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

# Work that ends sooner shows nothing.
SHOW_AFTER_SECONDS = 1.0


class Progress:
    """Call it with the share of the work done (0 to 1); :meth:`close` at the end.

    It writes ``what: NN %`` over one line of ``stream`` (standard error), only
    when that is a terminal (a pipe or a log gets nothing) and only once
    ``after`` seconds (:data:`SHOW_AFTER_SECONDS`) have passed; each call costs
    one clock reading until then.
    """

    def __init__(self, what: str, stream: TextIO | None = None, *,
                 after: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.what = what
        self.stream = stream if stream is not None else sys.stderr
        self._live = self.stream.isatty()
        self._clock = clock
        self._show_at = clock() + (SHOW_AFTER_SECONDS if after is None else after)
        self._shown = -1

    def __call__(self, done: float) -> None:
        if not self._live or self._clock() < self._show_at:
            return
        percent = min(100, max(0, int(done * 100)))
        if percent != self._shown:
            self._shown = percent
            self.stream.write(f"\r{self.what}: {percent:3d} %")
            self.stream.flush()

    def close(self) -> None:
        """Clear the line if anything was shown, so the answer starts on a clean one."""
        if self._shown >= 0:
            self.stream.write("\r" + " " * (len(self.what) + 6) + "\r")
            self.stream.flush()
            self._shown = -1
