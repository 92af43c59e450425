"""A commit that waits for a stalled disk is measured while it waits and logged once it is
done: the table waits with it, and a person should hear why (a slow or failing SD card).

The disk cannot be stalled from here, so the journal's connection is wrapped: its commit
waits until the test releases it, as an fsync waits for a stalled disk."""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from risktable.journal import store
from risktable.journal.store import Journal
from tests.support.waiting import value_within


class _StalledDisk:
    """A connection whose commit waits for ``release``, as a commit waits for a stalled
    disk's fsync; everything else is the real connection's."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db
        self.release = threading.Event()

    def commit(self) -> None:
        assert self.release.wait(10), "the test never released the commit"
        self._db.commit()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db, name)


def test_a_commit_waiting_for_the_disk_is_measured_and_then_logged(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The bound the log waits for, lowered so the test need not wait a second.
    monkeypatch.setattr(store, "SLOW_COMMIT_S", 0.05)
    journal = Journal(tmp_path / "journal.sqlite3")
    journal.record_answer("t", 1, None, 1)
    assert journal.commit_waiting() == 0.0  # none under way
    disk = _StalledDisk(journal._db)
    journal._db = disk  # type: ignore[assignment]
    with caplog.at_level(logging.WARNING, logger="risktable.journal.store"):
        writer = threading.Thread(target=journal.record_answer, args=("t", 1, None, 2))
        writer.start()
        value_within("the stalled commit seen", lambda: journal.commit_waiting() >= 0.05)
        assert not caplog.records  # logged once it is done, with how long it took
        disk.release.set()
        writer.join(10)
    assert journal.commit_waiting() == 0.0
    (record,) = caplog.records
    assert record.getMessage().startswith("journal: a commit waited ")
    assert "for the disk to confirm the write" in record.getMessage()
    assert str(tmp_path / "journal.sqlite3") in record.getMessage()
    # The write itself was not lost to the wait.
    journal._db = disk._db
    assert journal.answered_seqs("t", 1) == {None: 2}
    journal.close()

