"""SIGKILL a process in the middle of journalling: nothing it reported committed is lost.

A child plays games into the journal and prints each action's index after
``append`` returns. The parent kills it at seeded random moments; after each
kill the journal must open, pass SQLite's integrity check, hold every reported
action, number each seat's actions 1, 2, 3... under each of its boot numbers
(the child restores the numbering from the journal, and seat 1 reboots at every
start), and replay every game.
This is a process crash, not a power cut: the operating system still writes
out what the child had written, so it tests WAL recovery and transaction
boundaries, not fsync (see docs/journal.md).
"""

from __future__ import annotations

import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from risktable.journal import Journal
from risktable.rules import replay
from risktable.rules.record import loads
from tests.support.tools import subprocess_env

CHILD = Path(__file__).with_name("crash_child.py")
KILLS = 24


def run_and_kill(path: Path, seed: int, delay: float) -> list[tuple[int, int]]:
    """Start the child, let it append for ``delay`` seconds after its first commit, kill it."""
    child = subprocess.Popen([sys.executable, str(CHILD), str(path), str(seed)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=subprocess_env())
    assert child.stdout is not None
    first = child.stdout.readline()
    if not first:
        raise AssertionError(f"child died before its first commit: {child.stderr.read()}")
    time.sleep(delay)
    child.send_signal(signal.SIGKILL)
    # Read the rest through the buffer readline() filled: communicate() would read the
    # pipe beneath it and lose what readline() had taken past the first line (under
    # load the child is lines ahead of the parent), leaving a line cut in two.
    out = child.stdout.read()
    assert child.stderr is not None
    err = child.stderr.read()
    child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL, err
    # A line cut short by the kill was never completely reported.
    lines = [first, *out.splitlines(keepends=True)]
    return [(int(g), int(i)) for g, i in (line.split() for line in lines if line.endswith("\n"))]


def check_journal(path: Path, reported: list[tuple[int, int]]) -> tuple[list[str], int]:
    """Check the journal after a kill; returns the games' statuses and the live actions."""
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    with Journal(path, create=False) as journal:
        games = journal.list_games()
        for info in games:
            entries = journal.actions(info.id, include_undone=True)
            indices = {e.index for e in entries}
            assert {i for g, i in reported if g == info.id} <= indices
            for seat in range(1, info.config.players + 1):
                boots = {e.meta.boot for e in entries if e.meta.seat == seat}
                for boot in boots:
                    seqs = [e.meta.seq for e in entries
                            if e.meta.seat == seat and e.meta.boot == boot]
                    assert seqs == list(range(1, len(seqs) + 1))
                    assert journal.applied_seqs(info.id, seat, boot) == seqs
            log = loads(journal.export(info.id))
            assert replay(log.config, log.actions()) == journal.state(info.id)
        assert {g for g, _ in reported} <= {info.id for info in games}
        return [info.status for info in games], sum(info.actions for info in games)


@pytest.mark.slow
def test_sigkill_never_loses_a_committed_action(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    rng = random.Random(20261129)
    reported: list[tuple[int, int]] = []
    statuses: list[str] = []
    total = 0
    for kill in range(KILLS):
        got = run_and_kill(path, rng.getrandbits(32), rng.uniform(0.0, 0.3))
        assert got, f"kill {kill}: nothing was reported"
        reported.extend(got)
        statuses, total = check_journal(path, reported)
    # The children got well past setup and across game boundaries between them
    # (the child abandons odd-numbered games early, so this holds on a slow machine).
    assert total >= len(set(reported)) > KILLS * 10
    assert len(statuses) >= 2 and "abandoned" in statuses, statuses
