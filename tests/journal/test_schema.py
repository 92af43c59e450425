"""The file itself: WAL mode, schema versions, the migration path, files that are not journals."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from risktable.journal import CorruptJournal, Journal, MissingJournal, schema
from risktable.rules import Config
from risktable.rules.selfplay import selfplay


def pragma(path: Path, name: str) -> object:
    with sqlite3.connect(path) as db:
        return db.execute(f"PRAGMA {name}").fetchone()[0]


def test_new_file_is_wal_at_the_latest_version(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    Journal(path).close()
    assert pragma(path, "journal_mode") == "wal"
    assert pragma(path, "user_version") == schema.latest() == len(schema.MIGRATIONS)


def test_missing_file_is_not_created_when_asked_not_to(tmp_path: Path) -> None:
    with pytest.raises(MissingJournal):
        Journal(tmp_path / "journal.sqlite3", create=False)
    assert list(tmp_path.iterdir()) == []


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    Journal(path).close()
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {schema.latest() + 1}")
    with pytest.raises(CorruptJournal, match="newer than this hub's"):
        Journal(path)


def test_an_old_file_is_migrated_and_keeps_its_games(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "journal.sqlite3"
    config = Config(3)
    log = next(selfplay(config, 1, 4)).log
    with Journal(path) as j:
        game = j.create_game(config, "t1")
        for a in log:
            j.append(game, a)
    old = schema.latest()
    monkeypatch.setattr(schema, "MIGRATIONS",
                        [*schema.MIGRATIONS, "ALTER TABLE games ADD COLUMN venue TEXT;"])
    with Journal(path) as j:
        assert j.load(game) == (config, log)
    assert pragma(path, "user_version") == old + 1
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT venue FROM games").fetchall() == [(None,)]


def test_a_failing_migration_changes_nothing(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "journal.sqlite3"
    Journal(path).close()
    monkeypatch.setattr(schema, "MIGRATIONS", [
        *schema.MIGRATIONS, "ALTER TABLE games ADD COLUMN venue TEXT; SELECT * FROM nowhere;"])
    with pytest.raises(CorruptJournal, match="no such table: nowhere"):
        Journal(path)
    assert pragma(path, "user_version") == schema.latest() - 1
    with sqlite3.connect(path) as db:
        columns = [row[1] for row in db.execute("PRAGMA table_info(games)")]
    assert "venue" not in columns


def test_a_file_that_is_not_sqlite(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    path.write_bytes(b"\x00garbage" * 512)
    with pytest.raises(CorruptJournal, match="is not a usable journal"):
        Journal(path)


def test_a_version_2_file_passes_through_version_3_with_its_inputs(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    with sqlite3.connect(path) as db:
        for version, script in enumerate(schema.MIGRATIONS[:2], 1):
            db.executescript(f"{script}\nPRAGMA user_version = {version};")
        db.execute("INSERT INTO games (table_id, created, header) VALUES ('t1', 0, '{}')")
        db.execute("INSERT INTO inputs (game_id, seat, boot, seq, event, ui, after, at)"
                   " VALUES (1, 2, 7, 41, '{}', '{}', 0, 0)")
    with Journal(path) as j:
        assert pragma(path, "user_version") == schema.latest()
        assert j.answered_seqs("t1", 2) == {7: 41}
        j.record_answer("t1", 2, 7, 42)
        assert j.answered_seqs("t1", 2) == {7: 42}


def test_a_version_3_file_gets_the_die_readings_its_settled_dice_events_hold(
        tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"

    def dice(state: str, *faces: tuple[str, int]) -> str:
        return json.dumps({"kind": "dice", "roll": 9, "dice": [
            {"id": d, "face": f, "state": state} for d, f in faces]})

    with sqlite3.connect(path) as db:
        for version, script in enumerate(schema.MIGRATIONS[:3], 1):
            db.executescript(f"{script}\nPRAGMA user_version = {version};")
        db.execute("INSERT INTO games (table_id, created, header) VALUES ('t1', 0, '{}')")
        rows = [(1, dice("settled", ("e1", 6), ("e2", 3))),
                (2, dice("settled", ("e1", 6))),
                (2, dice("rolling", ("gd-0a", 1))),  # progress: acknowledged, never read
                (2, dice("settled", ("gd-0a", 2))),
                (3, json.dumps({"kind": "encoder", "steps": 1}))]
        db.executemany("INSERT INTO inputs (game_id, seat, boot, seq, event, ui, after, at)"
                       " VALUES (1, ?, 7, ?, ?, '{}', 0, 0)",
                       [(seat, n, event) for n, (seat, event) in enumerate(rows, 1)])
    with Journal(path) as j:
        assert pragma(path, "user_version") == schema.latest()
        stats = {s.die: (s.kind, s.counts) for s in j.die_stats()}
    assert stats == {"seat 1 e1": ("seat", (0, 0, 0, 0, 0, 1)),
                     "seat 1 e2": ("seat", (0, 0, 1, 0, 0, 0)),
                     "seat 2 e1": ("seat", (0, 0, 0, 0, 0, 1)),
                     "gd-0a": ("smart", (0, 1, 0, 0, 0, 0))}
