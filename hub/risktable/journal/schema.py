"""The journal's tables and the steps that bring an older file up to date.

``PRAGMA user_version`` holds the schema version. :data:`MIGRATIONS` lists one
script per version; opening a file runs the scripts it has not seen yet, each
in its own transaction together with its ``user_version`` bump, so a file is
always at exactly one version. A file from a newer hub is refused rather than
guessed at. A new version appends a script here; old scripts never change.
"""

from __future__ import annotations

import sqlite3

from risktable.journal.errors import CorruptJournal

# Version 1. Times are Unix seconds (REAL, UTC). `actor` is the rules' seat index
# (0..players-1) or -1 for a chance outcome, fixed when the action was accepted.
_V1 = """
CREATE TABLE games (
    id        INTEGER PRIMARY KEY,
    table_id  TEXT    NOT NULL,
    created   REAL    NOT NULL,
    finished  REAL,
    header    TEXT    NOT NULL,
    status    TEXT    NOT NULL DEFAULT 'running'
              CHECK (status IN ('running', 'finished', 'abandoned')),
    winner    INTEGER
);

CREATE TABLE undos (
    id       INTEGER PRIMARY KEY,
    game_id  INTEGER NOT NULL REFERENCES games(id),
    at       REAL    NOT NULL,
    origin   TEXT    NOT NULL,
    seat     INTEGER
);

CREATE TABLE actions (
    id       INTEGER PRIMARY KEY,
    game_id  INTEGER NOT NULL REFERENCES games(id),
    idx      INTEGER NOT NULL CHECK (idx >= 0),
    action   TEXT    NOT NULL,
    actor    INTEGER NOT NULL,
    origin   TEXT    NOT NULL CHECK (origin IN ('seat', 'bot', 'referee', 'hub')),
    seat     INTEGER,
    boot     INTEGER,
    seq      INTEGER,
    at       REAL    NOT NULL,
    undo_id  INTEGER REFERENCES undos(id),
    CHECK (seq IS NULL OR seat IS NOT NULL),
    CHECK (boot IS NULL OR seq IS NOT NULL)
);
-- The highest row ids of a game tell a connection whether its cached fold is current.
CREATE INDEX actions_game ON actions(game_id);
CREATE INDEX undos_game ON undos(game_id);
-- One live action per position; undone rows keep their index for the history.
CREATE UNIQUE INDEX actions_live ON actions(game_id, idx) WHERE undo_id IS NULL;
-- A seat's sequence number is spent once per game and seat boot (a rebooted seat
-- numbers from 1 again), undone or not: a late redelivery of an undone action
-- must not bring it back. Boot numbers are 0..2^30-1, so -1 stands for "none"
-- (a unique index treats NULLs as all different).
CREATE UNIQUE INDEX actions_seq ON actions(game_id, seat, coalesce(boot, -1), seq)
    WHERE seq IS NOT NULL;

CREATE TABLE dice (
    action_id  INTEGER NOT NULL REFERENCES actions(id),
    position   INTEGER NOT NULL,
    die        TEXT    NOT NULL,
    face       INTEGER NOT NULL CHECK (face BETWEEN 1 AND 6),
    PRIMARY KEY (action_id, position)
);
CREATE INDEX dice_die ON dice(die);

CREATE TABLE tables (
    table_id      TEXT PRIMARY KEY,
    current_game  INTEGER REFERENCES games(id)
);
"""

# Version 2: every accepted seat input, including those that move only a cursor, so
# a restarted hub knows which sequence numbers were spent and shows the same choice
# state (``ui``: the table's cursor and half-made choice after the input; ``after``:
# the number of live actions then).
_V2 = """
CREATE TABLE inputs (
    id       INTEGER PRIMARY KEY,
    game_id  INTEGER NOT NULL REFERENCES games(id),
    seat     INTEGER NOT NULL,
    boot     INTEGER,
    seq      INTEGER NOT NULL,
    event    TEXT    NOT NULL,
    ui       TEXT    NOT NULL,
    after    INTEGER NOT NULL,
    at       REAL    NOT NULL
);
CREATE UNIQUE INDEX inputs_seq ON inputs(game_id, seat, coalesce(boot, -1), seq);
"""

# Version 3: the highest sequence number answered without an input row (a refusal,
# a resync's ack), per table, seat and seat boot (-1: none). With the inputs it tells
# a restarted hub which number each seat's events continue from.
_V3 = """
CREATE TABLE seat_answers (
    table_id  TEXT    NOT NULL,
    seat      INTEGER NOT NULL,
    boot      INTEGER NOT NULL,
    seq       INTEGER NOT NULL,
    PRIMARY KEY (table_id, seat, boot)
);
"""

# Version 4: every face a seat read from a physical die, from the seat input that
# carried it (one side's dice: the attacker's and the defender's arrive in separate
# events, and an opening roll in one event per contender). The seat and the die's
# id name the die (see risktable.dice_stats.die_identity). The script fills it from
# the settled dice events the inputs of older files already hold.
_V4 = """
CREATE TABLE die_readings (
    input_id  INTEGER NOT NULL REFERENCES inputs(id),
    position  INTEGER NOT NULL,
    die       TEXT    NOT NULL,
    face      INTEGER NOT NULL CHECK (face BETWEEN 1 AND 6),
    PRIMARY KEY (input_id, position)
);
INSERT INTO die_readings (input_id, position, die, face)
    SELECT i.id, CAST(d.key AS INTEGER), json_extract(d.value, '$.id'),
           json_extract(d.value, '$.face')
    FROM inputs AS i, json_each(i.event, '$.dice') AS d
    WHERE json_extract(i.event, '$.kind') = 'dice'
      AND NOT EXISTS (SELECT 1 FROM json_each(i.event, '$.dice') AS s
                      WHERE json_extract(s.value, '$.state') IS NOT 'settled');
"""

# Version 5: how a game's cards are handled, a table matter the rules' header leaves out:
# 'physical' (the seats tap the enrolled deck) or 'hub' (the hub deals and keeps the
# hands). Older games were all physical.
_V5 = """
ALTER TABLE games ADD COLUMN cards TEXT NOT NULL DEFAULT 'physical'
    CHECK (cards IN ('physical', 'hub'));
"""

# Version 6: the bots a game was started with (`risktable games new --bot SEAT=LEVEL`),
# a JSON object of seat -> bot name; NULL: the table configuration's `[table] bots`, as
# every older game has.
_V6 = """
ALTER TABLE games ADD COLUMN bots TEXT CHECK (bots IS NULL OR json_valid(bots));
"""

MIGRATIONS: list[str] = [_V1, _V2, _V3, _V4, _V5, _V6]


def latest() -> int:
    """The schema version this code writes."""
    return len(MIGRATIONS)


def migrate(conn: sqlite3.Connection) -> int:
    """Bring the open database up to :func:`latest`; return the version it was at."""
    found = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if found > latest():
        raise CorruptJournal(
            f"the journal has schema version {found}, newer than this hub's {latest()}: "
            "upgrade risktable")
    for version in range(found, latest()):
        # executescript() commits first, so the script and its version bump are
        # wrapped in an explicit transaction of their own.
        try:
            conn.executescript(
                f"BEGIN IMMEDIATE;\n{MIGRATIONS[version]}\n"
                f"PRAGMA user_version = {version + 1};\nCOMMIT;")
        except sqlite3.Error:
            if conn.in_transaction:
                conn.rollback()
            raise
    return found
