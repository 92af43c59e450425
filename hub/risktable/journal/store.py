"""The journal: every accepted action of every game, in one SQLite file (WAL).

The hub appends each action it accepts and acknowledges it only after
:meth:`Journal.append` returns, by which time the row is committed and, with
``synchronous=FULL``, on disk. A game's state is the fold of its live actions;
the journal keeps that fold in memory for each game it has touched, so an
append applies one action to a cached state instead of replaying the game.
See ``docs/journal.md`` for the schema, undo and durability.

>>> import tempfile, pathlib
>>> from risktable.rules import Config, OpeningRoll
>>> with tempfile.TemporaryDirectory() as tmp, Journal(pathlib.Path(tmp) / FILE_NAME) as j:
...     game = j.create_game(Config(players=3), "table1")
...     j.append(game, OpeningRoll((2, 6, 4)), ActionMeta("hub")).index
0
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from riskproto.messages import CARD_MODES
from risktable.dice_stats import NAMED, DieStats, die_identity, die_kind
from risktable.journal import schema
from risktable.journal.errors import (
    AppendConflict,
    CorruptJournal,
    GameClosed,
    JournalError,
    MissingJournal,
    NothingToUndo,
    UnknownGame,
)
from risktable.journal.records import (
    ActionMeta,
    Appended,
    DieFace,
    Entry,
    GameInfo,
    SeatInput,
    SeatSeq,
    Undone,
)
from risktable.rules.actions import Action, OpeningRoll, Roll
from risktable.rules.board import Board
from risktable.rules.engine import apply, current_actor, new_game
from risktable.rules.errors import MalformedActionError, RulesError
from risktable.rules.options import Config
from risktable.rules.record import LogFormatError, decode_action, encode_action, header, loads
from risktable.rules.state import CHANCE, State

FILE_NAME = "journal.sqlite3"
Synchronous = Literal["FULL", "NORMAL"]
# A commit waiting this long for the disk is logged: the table waits with it (every input
# is answered only once it is on disk), and a person should hear why. A healthy SD card
# syncs in milliseconds; the development VM's disk has stalled for up to 6.7 s.
SLOW_COMMIT_S = 1.0

log = logging.getLogger(__name__)
# The write-ahead log is folded into the database file once it holds this many pages
# (4 KiB each) and then cut back to WAL_SIZE_LIMIT bytes. SQLite's defaults (1000
# pages, never cut back) let the log alone take 4 MB of a small card; docs/journal.md
# has what a whole game takes with these.
WAL_CHECKPOINT_PAGES = 64
WAL_SIZE_LIMIT = 256 * 1024


def journal_path(data_dir: Path) -> Path:
    """Where the journal lives in the hub's data directory."""
    return data_dir / FILE_NAME


@dataclass
class _Live:
    """The cached fold of one game, and the row ids it was built from.

    ``last_action`` and ``last_undo`` are the highest row ids seen; if another
    connection has written to the game since, they differ from the file's and
    the fold is rebuilt rather than trusted.
    """

    config: Config
    state: State
    count: int
    last_action: int | None
    last_undo: int | None


_ENTRY_COLUMNS = "id, idx, action, actor, origin, seat, boot, seq, at, undo_id"
_NO_BOOT = -1  # how the unique index spells a missing boot number


class Journal:
    """One open journal database.

    ``path`` is the SQLite file; with ``create=False`` a missing file raises
    :class:`~risktable.journal.errors.MissingJournal` instead of creating an
    empty journal (what the read-only CLI commands want). ``synchronous`` is
    ``"FULL"`` for the hub (a committed action survives a power cut) and
    ``"NORMAL"`` only for measurements. One connection is shared by the
    caller's threads under a lock.
    """

    def __init__(self, path: Path, *, create: bool = True, synchronous: Synchronous = "FULL",
                 clock: Callable[[], float] = time.time) -> None:
        if synchronous not in ("FULL", "NORMAL"):
            raise ValueError(f"synchronous must be FULL or NORMAL, not {synchronous!r}")
        self.path = path
        self._clock = clock
        self._lock = threading.RLock()
        self._live: dict[int, _Live] = {}
        self._committing: float | None = None  # time.monotonic() of the commit under way
        if not create and not path.is_file():
            raise MissingJournal(f"no journal at {path}")
        try:
            # isolation_level=None: transactions are begun and ended here, explicitly.
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False,
                                       timeout=30.0)
        except sqlite3.Error as exc:
            raise JournalError(f"cannot open the journal {path}: {exc}") from None
        try:
            mode = self._db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode != "wal":
                raise JournalError(f"{path}: SQLite refused WAL mode (got {mode})")
            self._db.execute(f"PRAGMA synchronous = {synchronous}")
            self._db.execute(f"PRAGMA wal_autocheckpoint = {WAL_CHECKPOINT_PAGES}")
            self._db.execute(f"PRAGMA journal_size_limit = {WAL_SIZE_LIMIT}")
            self._db.execute("PRAGMA foreign_keys = ON")
            schema.migrate(self._db)
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise CorruptJournal(f"{path} is not a usable journal: {exc}") from None
        except JournalError:
            self._db.close()
            raise

    # -- life cycle -----------------------------------------------------------

    def close(self) -> None:
        """Close the database; the journal object is unusable afterwards."""
        with self._lock:
            self._live.clear()
            self._db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        # BEGIN IMMEDIATE takes the write lock before the first read, so the checks
        # made inside the transaction still hold when it commits.
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
                self._commit()
            except BaseException:
                # A failed commit (disk full, I/O error) leaves the transaction open.
                if self._db.in_transaction:
                    self._db.rollback()
                raise

    def _commit(self) -> None:
        # The commit is where the disk is waited for (the WAL's fsync): timed, so that a
        # stalled disk is named rather than seen as a table that stopped answering.
        started = self._committing = time.monotonic()
        try:
            self._db.commit()
        finally:
            self._committing = None
        waited = time.monotonic() - started
        if waited >= SLOW_COMMIT_S:
            log.warning("journal: a commit waited %.1f s for the disk to confirm the write "
                        "(%s); the table waited with it: a slow or failing SD card?",
                        waited, self.path)

    def commit_waiting(self) -> float:
        """Seconds the commit under way has waited for the disk so far (0.0 when none):
        what a table that stopped answering may be waiting for."""
        started = self._committing
        return 0.0 if started is None else time.monotonic() - started

    # -- games ------------------------------------------------------------------

    def create_game(self, config: Config, table: str, cards: str = "physical",
                    bots: Mapping[int, str] | None = None) -> int:
        """Start a new running game at ``table``; returns its id. ``cards`` is how the
        table handles its cards: "physical" (tapped) or "hub" (dealt by the hub);
        ``bots`` the seats the hub plays in this game, seat -> bot name (None: the
        table configuration's, whatever it says when the game is loaded)."""
        if cards not in CARD_MODES:
            raise JournalError(f"cards must be one of {', '.join(CARD_MODES)}, not {cards!r}")
        head = json.dumps(header(config))
        chosen = None if bots is None else json.dumps({str(s): n for s, n in bots.items()})
        with self._lock:
            with self._write() as db:
                cur = db.execute(
                    "INSERT INTO games (table_id, created, header, cards, bots)"
                    " VALUES (?, ?, ?, ?, ?)", (table, self._clock(), head, cards, chosen))
                game_id = cur.lastrowid
            assert game_id is not None
            self._live[game_id] = _Live(config, new_game(config), 0, None, None)
        return game_id

    def finish(self, game_id: int, winner: int | None = None) -> None:
        """Mark a running game finished.

        When the rules have ended the game, ``winner`` defaults to the rules'
        winner and may not contradict it; otherwise (a game ended by agreement)
        it is whatever the referee says, or ``None``.
        """
        with self._write() as db:
            self._require_running(db, game_id)
            live = self._fold(db, game_id)
            if live.state.is_terminal:
                if winner is None:
                    winner = live.state.winner
                elif winner != live.state.winner:
                    raise JournalError(f"game {game_id} was won by seat {live.state.winner}, "
                                       f"not seat {winner}")
            if winner is not None and not 0 <= winner < live.config.players:
                raise JournalError(f"game {game_id} has no seat {winner}")
            db.execute("UPDATE games SET status = 'finished', finished = ?, winner = ? "
                       "WHERE id = ?", (self._clock(), winner, game_id))

    def abandon(self, game_id: int) -> None:
        """Mark a running game abandoned (it can be resumed with :meth:`set_current_game`)."""
        with self._write() as db:
            self._require_running(db, game_id)
            db.execute("UPDATE games SET status = 'abandoned', finished = ? WHERE id = ?",
                       (self._clock(), game_id))

    def list_games(self) -> list[GameInfo]:
        """Every game, oldest first, with its live action count."""
        return self._games("", ())

    def game(self, game_id: int) -> GameInfo:
        """One game's row, as :meth:`list_games` shows it."""
        found = self._games(" WHERE g.id = ?", (game_id,))
        if not found:
            raise UnknownGame(f"no game {game_id}")
        return found[0]

    def _games(self, where: str, params: tuple[Any, ...]) -> list[GameInfo]:
        with self._lock:
            rows = self._db.execute(
                "SELECT g.id, g.table_id, g.header, g.created, g.finished, g.status, g.winner,"
                " (SELECT COUNT(*) FROM actions a WHERE a.game_id = g.id AND a.undo_id IS NULL),"
                " t.current_game IS g.id, g.cards, g.bots"
                f" FROM games g LEFT JOIN tables t ON t.table_id = g.table_id{where}"
                " ORDER BY g.id", params).fetchall()
        return [GameInfo(gid, table, _config(gid, head), created, finished, status, winner,
                         count, bool(current), cards,
                         None if bots is None else {int(s): n for s, n in json.loads(bots).items()})
                for gid, table, head, created, finished, status, winner, count, current, cards,
                bots in rows]

    def current_game(self, table: str) -> int | None:
        """The game the hub at ``table`` resumes on start, if one was set."""
        with self._lock:
            row = self._db.execute("SELECT current_game FROM tables WHERE table_id = ?",
                                   (table,)).fetchone()
        return None if row is None else row[0]

    def set_current_game(self, table: str, game_id: int) -> State:
        """Make ``game_id`` the current game of ``table``; returns the state it resumes from.

        The game must belong to that table and must not be finished; an
        abandoned game is running again. The game is replayed first, so a game
        that does not replay is never made current.
        """
        with self._write() as db:
            row = db.execute("SELECT table_id, status FROM games WHERE id = ?",
                             (game_id,)).fetchone()
            if row is None:
                raise UnknownGame(f"no game {game_id}")
            if row[0] != table:
                raise JournalError(f"game {game_id} belongs to table {row[0]!r}, not {table!r}")
            if row[1] == "finished":
                raise GameClosed(f"game {game_id} is finished")
            self._live.pop(game_id, None)
            state = self._fold(db, game_id).state
            db.execute("UPDATE games SET status = 'running', finished = NULL WHERE id = ?",
                       (game_id,))
            db.execute("INSERT INTO tables (table_id, current_game) VALUES (?, ?) "
                       "ON CONFLICT (table_id) DO UPDATE SET current_game = excluded.current_game",
                       (table, game_id))
        return state

    # -- actions ------------------------------------------------------------------

    def append(self, game_id: int, action: Action, meta: ActionMeta | None = None, *,
               index: int | None = None) -> Appended:
        """Journal one action and commit; returns its index, the new state and its events.

        The action is applied to the game's state first: one the rules refuse
        raises the engine's ``MalformedActionError`` or ``IllegalActionError``
        and leaves no row. A retry is recognised, and answered with
        ``duplicate=True`` and no new row, by the seat's sequence number
        (``meta.seat``, ``meta.boot`` and ``meta.seq``) or by ``index`` (the position the caller
        believes the action takes); the same index or sequence number with a
        different action raises :class:`~risktable.journal.errors.AppendConflict`.
        """
        return self.append_all(game_id, [(action, meta or ActionMeta())], index=index)[0]

    def append_all(self, game_id: int, items: Sequence[tuple[Action, ActionMeta]], *,
                   index: int | None = None) -> list[Appended]:
        """Journal several actions in one transaction: all of them or none.

        One seat input can settle several actions (the defender's dice arrive
        and the roll follows); a crash between them must not leave half. Each
        action is checked and deduplicated as :meth:`append` describes;
        ``index`` applies to the first.
        """
        # The lock spans the commit and the cache update after it, so no other
        # thread sees the file ahead of the cache.
        with self._lock:
            with self._write() as db:
                self._require_running(db, game_id)
                live, results = self._append_rows(db, game_id, self._fold(db, game_id), items,
                                                  index)
            # The cache changes only after the commit has succeeded, so a failed
            # commit cannot leave it ahead of the file.
            self._live[game_id] = live
        return results

    def record_input(self, game_id: int, seat_input: SeatInput,
                     items: Sequence[tuple[Action, ActionMeta]], *,
                     retracted: int = 0, dice: Sequence[DieFace] = ()) -> list[Appended]:
        """Journal one accepted seat input with everything it did, in one transaction.

        ``retracted`` actions are first withdrawn from the end (a Back press),
        then ``items`` are appended, then the input itself is recorded with
        the table's choice state after it (``seat_input.ui``), so that a
        restarted hub shows the same cursor and knows the input's sequence
        number was spent. ``dice`` are the faces the input read from the
        seat's physical dice (its settled dice event), kept for
        :meth:`die_stats` whether or not they completed a roll. A repeated
        (seat, boot, seq) records nothing and returns no entries.
        """
        with self._lock:
            with self._write() as db:
                # One statement for what three would ask (is the game running, was this
                # input seen, is the cached fold current): it is on every input's path.
                row = db.execute(
                    "SELECT g.status, EXISTS (SELECT 1 FROM inputs WHERE game_id = g.id"
                    " AND seat = ? AND coalesce(boot, -1) = ? AND seq = ?),"
                    " (SELECT MAX(id) FROM actions WHERE game_id = g.id),"
                    " (SELECT MAX(id) FROM undos WHERE game_id = g.id)"
                    " FROM games g WHERE g.id = ?",
                    (seat_input.seat, _boot(seat_input.boot), seat_input.seq, game_id)
                ).fetchone()
                _check_running(game_id, None if row is None else row[0])
                if row[1]:
                    return []
                meta = ActionMeta("seat", seat=seat_input.seat, at=seat_input.at)
                for _ in range(retracted):
                    self._undo_rows(db, game_id, meta)
                live = self._fold(db, game_id, None if retracted else (row[2], row[3]))
                live, results = self._append_rows(db, game_id, live, items, None)
                cur = db.execute(
                    "INSERT INTO inputs (game_id, seat, boot, seq, event, ui, after, at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (game_id, seat_input.seat, seat_input.boot, seat_input.seq,
                     json.dumps(seat_input.event, separators=(",", ":")),
                     json.dumps(seat_input.ui, separators=(",", ":")), live.count,
                     seat_input.at))
                if dice:
                    db.executemany(
                        "INSERT INTO die_readings (input_id, position, die, face)"
                        " VALUES (?, ?, ?, ?)",
                        [(cur.lastrowid, k, d.die, d.face) for k, d in enumerate(dice)])
            self._live[game_id] = live
        return results

    def last_input(self, game_id: int) -> tuple[int, dict[str, Any]] | None:
        """The live action count after the game's latest input, and the table's choice
        state then; ``None`` before the first input."""
        self._header(game_id)
        with self._lock:
            row = self._db.execute("SELECT after, ui FROM inputs WHERE game_id = ?"
                                   " ORDER BY id DESC LIMIT 1", (game_id,)).fetchone()
        return None if row is None else (int(row[0]), json.loads(row[1]))

    def input_seqs(self, game_id: int, seat: int) -> tuple[int | None, list[int]]:
        """The boot of the seat's latest input and every sequence number recorded under
        it, ascending."""
        self._header(game_id)
        with self._lock:
            last = self._db.execute("SELECT boot FROM inputs WHERE game_id = ? AND seat = ?"
                                    " ORDER BY id DESC LIMIT 1", (game_id, seat)).fetchone()
            if last is None:
                return None, []
            rows = self._db.execute(
                "SELECT seq FROM inputs WHERE game_id = ? AND seat = ?"
                " AND coalesce(boot, -1) = ? ORDER BY seq",
                (game_id, seat, _boot(last[0]))).fetchall()
        return last[0], [int(r[0]) for r in rows]

    def record_answer(self, table: str, seat: int, boot: int | None, seq: int) -> None:
        """Make durable that ``seat``'s event ``seq`` (under ``boot``) was answered without
        an input row: refused, or a resync acknowledged. Commits before it returns, so
        the answer may go out."""
        with self._write() as db:
            db.execute(
                "INSERT INTO seat_answers (table_id, seat, boot, seq) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (table_id, seat, boot) DO UPDATE SET seq = max(seq, excluded.seq)",
                (table, seat, _boot(boot), seq))

    def answered_seqs(self, table: str, seat: int) -> dict[int | None, int]:
        """The highest sequence number answered from ``seat`` at ``table`` under each of
        its boots, in any game (inputs, actions and :meth:`record_answer`): where a restarted
        hub's ``SeqTracker.restore`` continues each numbering."""
        with self._lock:
            rows = self._db.execute(
                "SELECT boot, MAX(seq) FROM ("
                " SELECT coalesce(i.boot, -1) AS boot, i.seq AS seq FROM inputs i"
                " JOIN games g ON g.id = i.game_id WHERE g.table_id = ? AND i.seat = ?"
                " UNION ALL SELECT coalesce(a.boot, -1), a.seq FROM actions a"
                " JOIN games g ON g.id = a.game_id"
                " WHERE g.table_id = ? AND a.seat = ? AND a.seq IS NOT NULL"
                " UNION ALL SELECT boot, seq FROM seat_answers WHERE table_id = ? AND seat = ?"
                ") GROUP BY boot", (table, seat, table, seat, table, seat)).fetchall()
        return {(None if boot == _NO_BOOT else int(boot)): int(seq) for boot, seq in rows}

    def recent_events(self, table: str, seat: int,
                      window: int) -> dict[tuple[int | None, int], dict[str, Any]]:
        """The events applied from ``seat`` at ``table`` in the last ``window`` numbers
        of each of its boots, by (boot, seq), in any game: the hub keeps their digests
        so that another event under one of those numbers is not taken for a repeat."""
        with self._lock:
            rows = self._db.execute(
                "SELECT coalesce(i.boot, -1), i.seq, i.event FROM inputs i"
                " JOIN games g ON g.id = i.game_id WHERE g.table_id = ? AND i.seat = ?"
                " AND i.seq > (SELECT MAX(j.seq) FROM inputs j JOIN games h ON h.id = j.game_id"
                "  WHERE h.table_id = ? AND j.seat = ?"
                "  AND coalesce(j.boot, -1) = coalesce(i.boot, -1)) - ?",
                (table, seat, table, seat, window)).fetchall()
        return {(None if boot == _NO_BOOT else int(boot), int(seq)): json.loads(event)
                for boot, seq, event in rows}

    def _append_rows(self, db: sqlite3.Connection, game_id: int, live: _Live,
                     items: Sequence[tuple[Action, ActionMeta]],
                     index: int | None) -> tuple[_Live, list[Appended]]:
        results: list[Appended] = []
        for n, (action, meta) in enumerate(items):
            text = _encode(live.config.board, action)
            retry = self._retry(db, game_id, live, text, meta,
                                index + n if index is not None else None)
            if retry is not None:
                results.append(retry)
                continue
            actor = current_actor(live.state)
            state, events = apply(live.state, action)
            _check_dice(action, meta.dice)
            cur = db.execute(
                "INSERT INTO actions (game_id, idx, action, actor, origin, seat, boot,"
                " seq, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (game_id, live.count, text, actor, meta.origin, meta.seat, meta.boot,
                 meta.seq, meta.at))
            if meta.dice:
                db.executemany(
                    "INSERT INTO dice (action_id, position, die, face) VALUES (?, ?, ?, ?)",
                    [(cur.lastrowid, k, d.die, d.face) for k, d in enumerate(meta.dice)])
            live = _Live(live.config, state, live.count + 1, cur.lastrowid, live.last_undo)
            results.append(Appended(live.count - 1, state, events))
        return live, results

    def _retry(self, db: sqlite3.Connection, game_id: int, live: _Live, text: str,
               meta: ActionMeta, index: int | None) -> Appended | None:
        if meta.seq is not None:
            # Spelled as in the unique index, so that index answers the lookup.
            row = db.execute(
                "SELECT idx, action FROM actions WHERE game_id = ? AND seat = ?"
                " AND coalesce(boot, -1) = ? AND seq = ? AND seq IS NOT NULL",
                (game_id, meta.seat, _boot(meta.boot), meta.seq)).fetchone()
            if row is not None:
                if row[1] != text:
                    raise AppendConflict(f"game {game_id}: seat {meta.seat} sequence number "
                                         f"{meta.seq} was already used for {row[1]}")
                return Appended(row[0], live.state, [], duplicate=True)
        if index is None or index == live.count:
            return None
        if index > live.count or index < 0:
            raise AppendConflict(f"game {game_id}: cannot append at index {index}, "
                                 f"the next index is {live.count}")
        row = db.execute("SELECT action FROM actions WHERE game_id = ? AND idx = ?"
                         " AND undo_id IS NULL", (game_id, index)).fetchone()
        if row is None or row[0] != text:
            raise AppendConflict(f"game {game_id}: index {index} already holds "
                                 f"{row[0] if row else 'nothing'}, not {text}")
        return Appended(index, live.state, [], duplicate=True)

    def undo_last(self, game_id: int, meta: ActionMeta | None = None) -> Undone:
        """Withdraw the last seat, bot or referee action and the chance outcomes after it.

        The rows stay in the journal, marked with an undo record (``meta`` says
        who asked, by default the referee); the export and the state leave
        them out. Chance outcomes that answered the undone action (the roll
        after an attack, the card drawn at the end of a turn) go with it, since
        they belong to a decision that no longer stands; the returned entries
        tell the table what to put back on the board.
        """
        meta = meta or ActionMeta("referee")
        with self._lock, self._write() as db:
            self._require_running(db, game_id)
            live = self._fold(db, game_id)
            undo_id, withdrawn = self._undo_rows(db, game_id, meta)
            state = self._fold(db, game_id).state
        board = live.config.board
        entries = [replace(_entry(game_id, board, row), undone=True)
                   for row in reversed(withdrawn)]
        return Undone(undo_id, entries, state)

    def _undo_rows(self, db: sqlite3.Connection, game_id: int,
                   meta: ActionMeta) -> tuple[int, list[tuple[Any, ...]]]:
        withdrawn: list[tuple[Any, ...]] = []
        for row in db.execute(f"SELECT {_ENTRY_COLUMNS} FROM actions WHERE game_id = ?"
                              " AND undo_id IS NULL ORDER BY idx DESC", (game_id,)):
            withdrawn.append(row)
            if row[3] != CHANCE:
                break
        else:
            raise NothingToUndo(f"game {game_id} has no seat, bot or referee action to undo")
        cur = db.execute("INSERT INTO undos (game_id, at, origin, seat) VALUES (?, ?, ?, ?)",
                         (game_id, meta.at, meta.origin, meta.seat))
        undo_id = cur.lastrowid
        assert undo_id is not None
        db.executemany("UPDATE actions SET undo_id = ? WHERE id = ?",
                       [(undo_id, row[0]) for row in withdrawn])
        self._live.pop(game_id, None)
        return undo_id, withdrawn

    def state(self, game_id: int) -> State:
        """The game's current state: the fold of its live actions."""
        with self._lock:
            return self._fold(self._db, game_id).state

    def config(self, game_id: int) -> Config:
        """The game's board, player count and options."""
        return _config(game_id, self._header(game_id))

    def load(self, game_id: int) -> tuple[Config, list[Action]]:
        """The game's config and live actions, read from the file (not the cache)."""
        config = self.config(game_id)
        return config, [e.action for e in self.actions(game_id)]

    def actions(self, game_id: int, *, include_undone: bool = False) -> list[Entry]:
        """The game's journalled actions in order; undone ones too if asked."""
        config = self.config(game_id)
        where = "" if include_undone else " AND undo_id IS NULL"
        with self._lock:
            rows = self._db.execute(f"SELECT {_ENTRY_COLUMNS} FROM actions WHERE game_id = ?"
                                    f"{where} ORDER BY id", (game_id,)).fetchall()
        return [_entry(game_id, config.board, row) for row in rows]

    def export(self, game_id: int) -> str:
        """The game as an action log (``docs/action-log.md``): header and live actions."""
        config, actions = self.load(game_id)
        board = config.board
        lines = [json.dumps(header(config))]
        lines.extend(json.dumps(encode_action(board, a)) for a in actions)
        return "\n".join(lines) + "\n"

    def last_seq(self, game_id: int, seat: int) -> SeatSeq | None:
        """The boot and sequence number of the last action journalled from ``seat`` (undone too).

        ``None`` when the seat has sent no action in this game.
        """
        self._header(game_id)
        with self._lock:
            row = self._db.execute("SELECT boot, seq FROM actions WHERE game_id = ? AND seat = ?"
                                   " AND seq IS NOT NULL ORDER BY id DESC LIMIT 1",
                                   (game_id, seat)).fetchone()
        return None if row is None else SeatSeq(row[0], row[1])

    def applied_seqs(self, game_id: int, seat: int, boot: int | None) -> list[int]:
        """Every sequence number journalled in actions from ``seat`` under ``boot``, ascending."""
        self._header(game_id)
        with self._lock:
            rows = self._db.execute(
                "SELECT seq FROM actions WHERE game_id = ? AND seat = ?"
                " AND coalesce(boot, -1) = ? AND seq IS NOT NULL ORDER BY seq",
                (game_id, seat, _boot(boot))).fetchall()
        return [r[0] for r in rows]

    def die_stats(self, game_id: int | None = None) -> list[DieStats]:
        """Face counts of every physical die ever journalled, by die, sorted by name.

        The faces are those the seats read (every settled dice event accepted,
        whichever side's dice it carried, named by :func:`die_identity`) and those
        named with a journalled roll (``ActionMeta.dice``). Rolls that were later
        undone count too: the die really showed those faces. With ``game_id``,
        only the faces read or named in that game (the game report's dice).
        """
        if game_id is not None:
            self._header(game_id)  # UnknownGame for a game that is not there
        # One query text for both: a NULL game id matches every game.
        with self._lock:
            read = self._db.execute(
                "SELECT i.seat, r.die, r.face, COUNT(*) FROM die_readings AS r"
                " JOIN inputs AS i ON i.id = r.input_id"
                " WHERE ?1 IS NULL OR i.game_id = ?1 GROUP BY i.seat, r.die, r.face",
                (game_id,)).fetchall()
            named = self._db.execute(
                "SELECT d.die, d.face, COUNT(*) FROM dice AS d"
                " JOIN actions AS a ON a.id = d.action_id"
                " WHERE ?1 IS NULL OR a.game_id = ?1 GROUP BY d.die, d.face",
                (game_id,)).fetchall()
        counts: dict[tuple[str, str], list[int]] = {}
        for seat, die, face, n in read:
            key = (die_identity(seat, die), die_kind(die))
            counts.setdefault(key, [0] * 6)[face - 1] += n
        for die, face, n in named:
            counts.setdefault((die, NAMED), [0] * 6)[face - 1] += n
        return [DieStats(die, tuple(c), kind) for (die, kind), c in sorted(counts.items())]

    # -- internals ----------------------------------------------------------------

    def _header(self, game_id: int) -> str:
        with self._lock:
            row = self._db.execute("SELECT header FROM games WHERE id = ?",
                                   (game_id,)).fetchone()
        if row is None:
            raise UnknownGame(f"no game {game_id}")
        return str(row[0])

    def _require_running(self, db: sqlite3.Connection, game_id: int) -> None:
        row = db.execute("SELECT status FROM games WHERE id = ?", (game_id,)).fetchone()
        _check_running(game_id, None if row is None else row[0])

    def _fold(self, db: sqlite3.Connection, game_id: int,
              marks: tuple[int | None, int | None] | None = None) -> _Live:
        """The cached fold of ``game_id``, rebuilt if the file has moved on without it.

        ``marks``: the game's highest action and undo ids, read in this transaction
        by the caller; read here when not given."""
        if marks is None:
            marks = db.execute(
                "SELECT (SELECT MAX(id) FROM actions WHERE game_id = ?),"
                " (SELECT MAX(id) FROM undos WHERE game_id = ?)",
                (game_id, game_id)).fetchone()
        live = self._live.get(game_id)
        if live is not None and (live.last_action, live.last_undo) == tuple(marks):
            return live
        config = _config(game_id, self._header(game_id))
        board = config.board
        state = new_game(config)
        count = 0
        for idx, text in db.execute("SELECT idx, action FROM actions WHERE game_id = ?"
                                    " AND undo_id IS NULL ORDER BY idx", (game_id,)):
            if idx != count:
                raise CorruptJournal(f"game {game_id}: action {count} is missing")
            try:
                state, _ = apply(state, decode_action(board, json.loads(text)))
            except (json.JSONDecodeError, RulesError) as exc:
                raise CorruptJournal(f"game {game_id}: action {idx} ({text}) does not "
                                     f"replay: {exc}") from None
            count += 1
        live = _Live(config, state, count, marks[0], marks[1])
        self._live[game_id] = live
        return live


def _check_running(game_id: int, status: str | None) -> None:
    if status is None:
        raise UnknownGame(f"no game {game_id}")
    if status != "running":
        raise GameClosed(f"game {game_id} is {status}")


def _boot(boot: int | None) -> int:
    return _NO_BOOT if boot is None else boot


def _config(game_id: int, head: str) -> Config:
    try:
        return loads(head).config
    except LogFormatError as exc:
        raise CorruptJournal(f"game {game_id}: bad header: {exc}") from None


def _entry(game_id: int, board: Board, row: tuple[Any, ...]) -> Entry:
    _, idx, text, actor, origin, seat, boot, seq, at, undo_id = row
    try:
        raw = json.loads(text)
        action = decode_action(board, raw)
    except (json.JSONDecodeError, RulesError) as exc:
        raise CorruptJournal(f"game {game_id}: action {idx} ({text}) is corrupt: {exc}") from None
    return Entry(idx, action, raw, actor, ActionMeta(origin, seat, seq, boot, (), at),
                 undone=undo_id is not None)


def _encode(board: Board, action: Action) -> str:
    """The action's log line; malformed unless it decodes back to exactly this action.

    The round trip guards the journal against an action the log cannot express
    faithfully (a negative territory index would otherwise wrap to another
    territory), which would replay differently from how it was applied.
    """
    try:
        raw = encode_action(board, action)
        same = decode_action(board, raw) == action
    except (IndexError, TypeError, ValueError) as exc:
        if isinstance(exc, MalformedActionError):
            raise
        raise MalformedActionError(f"not an action of this game: {action!r}") from None
    if not same:
        raise MalformedActionError(f"not an action of this game: {action!r}")
    return json.dumps(raw)


def _check_dice(action: Action, dice: tuple[DieFace, ...]) -> None:
    """Die observations must name exactly the faces of the roll they belong to, in order."""
    if not dice:
        return
    if type(action) is Roll:
        faces = (*action.attack, *action.defend)
    elif type(action) is OpeningRoll:
        faces = tuple(action.faces)
    else:
        raise JournalError(f"die faces given for an action that rolls no dice: {action!r}")
    if tuple(d.face for d in dice) != faces:
        raise JournalError(f"die faces {[d.face for d in dice]} do not match the roll "
                           f"{list(faces)}")
