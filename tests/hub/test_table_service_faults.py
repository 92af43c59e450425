"""A journal that refuses a write never leaves the table ahead of it, and costs no replay."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from risktable.config import HubConfig, TableConfig
from risktable.rules.bots import HeuristicBot
from risktable.service import storage
from risktable.service.hub import Unanswered
from risktable.service.table_service import TableService
from risktable.table.autopilot import Autopilot
from tests.table.inputs import CARDS


def journalled(service: TableService) -> list[Any]:
    return [entry.action for entry in service.journal.actions(service.game_id)]


def test_a_refused_write_rolls_the_session_back_and_the_retry_applies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    free = [8 * 1024 * 1024]  # what the file system reports free
    monkeypatch.setattr(storage, "free_bytes", lambda path: free[0])
    service = TableService(HubConfig(table=TableConfig(seats=3), data_dir=tmp_path),
                           card_uids=CARDS)
    real = service.journal.record_input

    def full_disk_for_actions(game_id: int, seat_input: Any, items: Any, **kw: Any) -> Any:
        # Cursor-only inputs still fit; the first input that settles an action does not.
        if items:
            raise sqlite3.OperationalError("database or disk is full")
        return real(game_id, seat_input, items, **kw)

    monkeypatch.setattr(service.journal, "record_input", full_disk_for_actions)

    def no_replay(game_id: int) -> Any:
        raise AssertionError("a refused write replayed the game from the journal")

    monkeypatch.setattr(service.journal, "load", no_replay)
    pilot = Autopilot(service.session, {s: HeuristicBot(s) for s in (1, 2, 3)}, {},
                      random.Random(4))
    while True:
        step = pilot.next_event()
        assert step is not None
        seat, event = step
        before = service.session.view(seat)
        try:
            assert service._on_event(seat, event) is None
        except Unanswered:
            break
    # Nothing of the refused input stayed in memory: the session equals the journal,
    # and the seat's view is what it was (the cursor included).
    assert service.session.log == journalled(service) == []
    assert service.session.view(seat) == before
    # The journal's "disk is full" counts: every seat is told until there is room.
    assert service.storage.full
    # The disk has room again and the seat retransmits the unanswered input.
    monkeypatch.setattr(service.journal, "record_input", real)
    free[0] += 1024 * 1024
    assert service._on_event(seat, event) is None
    assert service.session.log == journalled(service) != []
    service.journal.close()
