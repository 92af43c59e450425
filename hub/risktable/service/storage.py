"""Is there room for the journal? Free space on the data directory's file system.

The hub journals every input before it answers it, so when the disk fills up it
must stop taking inputs instead of answering inputs it cannot keep. SQLite
needs room beyond the transaction itself (the write-ahead log grows until a
checkpoint folds it back into the database file, which then grows), so the
hub stops while a margin is still free: ``min_free`` bytes (docs/journal.md
has what a whole game takes).
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

log = logging.getLogger(__name__)

# After SQLite itself ran out of room: how much more must be free before it is tried
# again (a few WAL pages), so the hub does not retry each resend against a full disk.
REFUSAL_MARGIN = 64 * 1024


def free_bytes(path: Path) -> int:
    """Bytes an unprivileged writer may still use on ``path``'s file system."""
    return shutil.disk_usage(path).free


class StorageGuard:
    """Tracks whether ``path``'s file system has at least ``min_free`` bytes free.

    :meth:`check` measures again (one ``statvfs``, cheap enough per input) and
    says whether the journal may be written; :attr:`full` is the last verdict.
    A write the journal refused (SQLite's "disk is full") counts as full too,
    until a check finds REFUSAL_MARGIN more room than there was then (it may
    have been refused with ``min_free`` still free: SQLite needed more).
    """

    def __init__(self, path: Path, min_free: int) -> None:
        if min_free < 0:
            raise ValueError(f"min_free must be 0 or more bytes, not {min_free}")
        self.path = path
        self.min_free = min_free
        self.full = False
        self.free = -1
        self._after_refusal = 0  # free bytes needed since SQLite refused a write

    def check(self) -> bool:
        """True when the journal may be written now; logs every change of verdict."""
        try:
            self.free = free_bytes(self.path)
        except OSError as exc:  # the data directory went away: nothing can be journalled
            log.error("cannot measure free space on %s: %s", self.path, exc.strerror)
            self.free = 0
        self._verdict(self.free < max(self.min_free, self._after_refusal))
        if not self.full:
            self._after_refusal = 0
        return not self.full

    def refused(self) -> None:
        """The journal refused a write for want of space: full until a check finds
        more room than there is now."""
        try:
            self.free = free_bytes(self.path)
        except OSError:
            self.free = 0
        self._after_refusal = self.free + REFUSAL_MARGIN
        self._verdict(True)

    def _verdict(self, full: bool) -> None:
        if full and not self.full:
            log.warning("hub storage full: %d KiB free on %s, %d KiB needed; inputs wait "
                        "(the seats keep them) until there is room", self.free // 1024,
                        self.path, max(self.min_free, self._after_refusal) // 1024)
        elif self.full and not full:
            log.warning("hub storage has room again (%d KiB free on %s): inputs are taken",
                        self.free // 1024, self.path)
        self.full = full
