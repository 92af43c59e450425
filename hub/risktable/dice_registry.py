"""Which smart die belongs to which seat: the table's one dice registry.

A seat in pairing mode claims a smart die rolled next to it (a ``pair`` event,
protocol/README.md "Pairing smart dice"); the registry gives each die to at most one
seat, at most :data:`MAX_PER_SEAT` to a seat, and remembers each die's last reported
battery level and when it was last heard from. It lives in ``dice.sqlite3`` in the hub's
data directory, beside the enrolled decks, not in the journal: pairing is about the
table's hardware, not about any game, and a new game, an undo or a lost journal must
not take a seat's dice away. ``risktable dice list`` reads the same file.

Every refusal is a :class:`PairingRefused` whose text is written for the seat's
display (it names the seat that holds a die, so the player knows where to go).

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> registry = DiceRegistry(folder / REGISTRY_FILE, clock=lambda: 1000.0)
>>> registry.claim(1, "px-00c0ffee", battery=90)
>>> registry.claim(2, "px-00c0ffee")
Traceback (most recent call last):
...
risktable.dice_registry.PairingRefused: That die is seat 1's: unpair it there first
>>> registry.seat_dice(1), registry.owner("px-00c0ffee")
(['px-00c0ffee'], 1)
>>> registry.close()
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from risktable.dice_stats import SMART, die_kind
from risktable.i18n import _

REGISTRY_FILE = "dice.sqlite3"
MAX_PER_SEAT = 3  # the most dice one roll needs (an attack with three)
# The makers, by the id prefix the seat firmware gives their dice (protocol/README.md).
MAKERS = {"px-": "Pixels", "gd-": "GoDice"}

_SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS dice (
    die TEXT PRIMARY KEY,
    seat INTEGER NOT NULL,
    slot INTEGER NOT NULL,
    battery INTEGER,
    last_seen REAL,
    paired_at REAL NOT NULL
);
"""


class PairingRefused(ValueError):
    """A claim, release or roll the registry refuses; ``str()`` is the player's reason."""


@dataclass(frozen=True, slots=True)
class PairedDie:
    """One registered die: its seat, maker, last battery level (percent, None until
    reported) and last-seen time (seconds since the epoch)."""

    die: str
    seat: int
    maker: str
    battery: int | None
    last_seen: float | None
    paired_at: float


def maker(die: str) -> str | None:
    """The maker of a smart die by its id, or None for an id no maker gives.

    >>> maker("gd-a1b2c3d4e5f6"), maker("px-0000002a"), maker("e1")
    ('GoDice', 'Pixels', None)
    """
    return MAKERS.get(die[:3])


class DiceRegistry:
    """The registry in the SQLite file ``path`` (created when missing).

    ``clock`` gives the time recorded as a die's last sighting (tests fix it). The
    methods may be called from any thread; a lock serialises them. ``read_only``
    opens an existing file without writing (``risktable dice list`` beside a running
    hub).
    """

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time,
                 read_only: bool = False) -> None:
        self.path = path
        self._clock = clock
        self._lock = threading.Lock()
        if read_only:
            self._db = sqlite3.connect(f"file:{path}?mode=ro", uri=True,
                                       check_same_thread=False)
            return
        # The hub's worker writes; the CLI may read at the same time: WAL lets it.
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA busy_timeout=2000")
        self._db.execute("PRAGMA synchronous=NORMAL")
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version not in (0, _SCHEMA_VERSION):
            self._db.close()
            raise ValueError(f"{path}: dice registry version {version}; this hub knows "
                             f"version {_SCHEMA_VERSION}")
        self._db.executescript(_SCHEMA)
        self._db.execute(f"PRAGMA user_version={_SCHEMA_VERSION}")

    def close(self) -> None:
        """Close the file."""
        with self._lock:
            self._db.close()

    # -- reading ----------------------------------------------------------------

    def seat_dice(self, seat: int) -> list[str]:
        """The ids of ``seat``'s dice, in their slot order (a replacement keeps its
        predecessor's place)."""
        with self._lock:
            rows = self._db.execute("SELECT die FROM dice WHERE seat = ? ORDER BY slot",
                                    (seat,)).fetchall()
        return [row[0] for row in rows]

    def owner(self, die: str) -> int | None:
        """The seat ``die`` is paired to, or None."""
        with self._lock:
            row = self._db.execute("SELECT seat FROM dice WHERE die = ?", (die,)).fetchone()
        return None if row is None else int(row[0])

    def dice(self) -> list[PairedDie]:
        """Every registered die, by seat and slot."""
        with self._lock:
            rows = self._db.execute(
                "SELECT die, seat, battery, last_seen, paired_at FROM dice "
                "ORDER BY seat, slot").fetchall()
        return [PairedDie(die, seat, maker(die) or "?", battery, seen, paired)
                for die, seat, battery, seen, paired in rows]

    def check_roll(self, seat: int, dice: Iterable[str]) -> None:
        """Raise :class:`PairingRefused` unless ``seat`` may roll these dice: a smart
        die another seat holds, or one a seat with paired dice has not paired, is
        refused. A seat that has paired none rolls any die no other seat holds (a
        table that never pairs plays as before); its own dice (``e1``, ``m1``) are
        always its own."""
        smart = [d for d in dice if die_kind(d) == SMART]
        if not smart:
            return
        with self._lock:
            mine = {row[0] for row in self._db.execute(
                "SELECT die FROM dice WHERE seat = ?", (seat,))}
            for die in smart:
                if die in mine:
                    continue
                row = self._db.execute("SELECT seat FROM dice WHERE die = ?",
                                       (die,)).fetchone()
                if row is not None:
                    raise PairingRefused(_("Die {die} is seat {seat}'s: roll this seat's "
                                           "own dice").format(die=die, seat=row[0]))
                if mine:
                    raise PairingRefused(_("Die {die} is not paired here: pair it first")
                                         .format(die=die))

    # -- changing ---------------------------------------------------------------

    def claim(self, seat: int, die: str, battery: int | None = None,
              replace: str | None = None) -> None:
        """Pair ``die`` to ``seat`` (again: a no-op but for its battery), in the place of
        ``seat``'s die ``replace`` when given. Raises :class:`PairingRefused`."""
        if maker(die) is None:
            raise PairingRefused(_("Only Pixels and GoDice dice can be paired"))
        now = self._clock()
        with self._lock, self._transaction():
            db = self._db
            row = db.execute("SELECT seat FROM dice WHERE die = ?", (die,)).fetchone()
            if row is not None and row[0] != seat:
                raise PairingRefused(_("That die is seat {seat}'s: unpair it there first")
                                     .format(seat=row[0]))
            if row is not None:
                if replace is not None and replace != die:
                    raise PairingRefused(_("That die is paired here already"))
                self._saw(die, battery, now)
                return
            if replace is not None:
                old = db.execute("SELECT slot FROM dice WHERE die = ? AND seat = ?",
                                 (replace, seat)).fetchone()
                if old is None:
                    raise PairingRefused(_("Die {die} is not paired here: nothing to "
                                           "replace").format(die=replace))
                db.execute("DELETE FROM dice WHERE die = ?", (replace,))
                slot = int(old[0])
            else:
                count, top = db.execute("SELECT COUNT(*), COALESCE(MAX(slot), 0) FROM dice "
                                        "WHERE seat = ?", (seat,)).fetchone()
                if count >= MAX_PER_SEAT:
                    raise PairingRefused(_("This seat has {n} dice: replace or unpair one")
                                         .format(n=MAX_PER_SEAT))
                slot = int(top) + 1
            db.execute("INSERT INTO dice (die, seat, slot, battery, last_seen, paired_at) "
                       "VALUES (?, ?, ?, ?, ?, ?)", (die, seat, slot, battery, now, now))

    def release(self, seat: int, die: str) -> None:
        """Unpair ``seat``'s die ``die``. Raises :class:`PairingRefused` when ``seat``
        does not hold it."""
        with self._lock, self._transaction():
            gone = self._db.execute("DELETE FROM dice WHERE die = ? AND seat = ?",
                                    (die, seat)).rowcount
            if not gone:
                raise PairingRefused(_("Die {die} is not paired here").format(die=die))

    def seen(self, seat: int, dice: Iterable[Mapping[str, Any]]) -> None:
        """Note a dice event's smart dice of ``seat`` as seen now, with the battery level
        each carries. Written without waiting for the disk (a lost sighting costs
        nothing), unlike a claim."""
        now = self._clock()
        with self._lock:
            for d in dice:
                battery = d.get("battery")
                self._db.execute(
                    "UPDATE dice SET last_seen = ?, battery = COALESCE(?, battery) "
                    "WHERE die = ? AND seat = ?", (now, battery, d.get("id"), seat))

    def _saw(self, die: str, battery: int | None, now: float) -> None:
        self._db.execute("UPDATE dice SET last_seen = ?, battery = COALESCE(?, battery) "
                         "WHERE die = ?", (now, battery, die))

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)


class _Transaction:
    # One immediate transaction committed with a full sync (a pairing must survive a
    # power cut), rolled back when the block raises (a refusal changes nothing).
    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, exc: object, tb: object) -> None:
        self._db.execute("COMMIT" if kind is None else "ROLLBACK")
        self._db.execute("PRAGMA synchronous=NORMAL")
