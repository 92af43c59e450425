"""What a whole 6-player game takes on disk: the journal file and its write-ahead log.

    .venv/bin/python bench/bench_journal_budget.py [--seed N] [--players 6] [--dir DIR]
                                                   [--sqlite-defaults] [--quick]

Plays one complete classic game through a ``TableService`` (no broker: the
service's input path is called directly), every seat a heuristic bot typing
what a person types (``Autopilot``: encoder turns, buttons, dice, cards), so
every input is journalled as the hub journals it (``synchronous=FULL``). After
every input it measures the database file and its ``-wal`` file and prints the
peaks and the final sizes. ``--sqlite-defaults`` puts SQLite's own checkpoint
settings back (1000 pages, the log never cut back) to show what the hub's save.
Free space must be at least the peak total plus what the data directory holds
besides, and the hub's ``[data] min_free_kib`` margin.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "hub"), str(ROOT / "protocol")]

from risktable.config import HubConfig, TableConfig  # noqa: E402
from risktable.journal import journal_path  # noqa: E402
from risktable.rules.bots import HeuristicBot  # noqa: E402
from risktable.rules.state import GAME_OVER  # noqa: E402
from risktable.service.table_service import TableService  # noqa: E402
from risktable.table.autopilot import Autopilot  # noqa: E402
from tests.table.inputs import cards_of, uids_of  # noqa: E402

MAX_INPUTS = 200_000
QUICK_INPUTS = 300


def _size(path: Path) -> int:
    try:
        return os.path.getsize(path)
    except FileNotFoundError:
        return 0


def play(data_dir: Path, players: int, seed: int, sqlite_defaults: bool,
         limit: int = MAX_INPUTS) -> None:
    config = HubConfig(table=TableConfig(seats=players), data_dir=data_dir)
    service = TableService(config, card_uids=cards_of("1993"), seed=seed)
    if sqlite_defaults:
        # For the comparison only: the connection's settings as SQLite ships them.
        service.journal._db.execute("PRAGMA wal_autocheckpoint = 1000")
        service.journal._db.execute("PRAGMA journal_size_limit = -1")
    db = journal_path(data_dir)
    wal = db.with_name(db.name + "-wal")
    pilot = Autopilot(service.session,
                      {s: HeuristicBot(seed * 10 + s) for s in range(1, players + 1)},
                      uids_of("1993"), random.Random(seed))
    peak_wal = peak_total = inputs = 0
    started = time.perf_counter()
    while service.session.state.phase != GAME_OVER and inputs < limit:
        step = pilot.next_event()
        if step is None:
            raise SystemExit(f"nobody can act at {service.session.menu}")
        error = service._on_event(*step)  # the hub's input path, minus MQTT
        if error is not None:
            raise SystemExit(f"the hub refused {step}: {error}")
        inputs += 1
        w, total = _size(wal), _size(db) + _size(wal)
        peak_wal, peak_total = max(peak_wal, w), max(peak_total, total)
    elapsed = time.perf_counter() - started
    actions = len(service.session.log)
    service.journal.close()
    final = _size(db) + _size(wal)
    kib = 1024
    print(f"{players}-player classic game, seed {seed}"
          f"{' (SQLite default checkpoints)' if sqlite_defaults else ''}: "
          f"{inputs} inputs, {actions} actions, {elapsed:.1f} s "
          f"({'won' if service.session.state.phase == GAME_OVER else 'not finished'})")
    print(f"  peak write-ahead log {peak_wal / kib:8.0f} KiB")
    print(f"  peak database + log  {peak_total / kib:8.0f} KiB")
    print(f"  after closing        {final / kib:8.0f} KiB  "
          f"({final / max(inputs, 1):.0f} bytes per input)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--dir", type=Path, help="where the journal goes (a temporary folder)")
    parser.add_argument("--sqlite-defaults", action="store_true")
    parser.add_argument("--quick", action="store_true",
                        help=f"a smoke run: the first {QUICK_INPUTS} inputs of the game")
    args = parser.parse_args()
    limit = QUICK_INPUTS if args.quick else MAX_INPUTS
    if args.dir is not None:
        args.dir.mkdir(parents=True, exist_ok=True)
        play(Path(tempfile.mkdtemp(dir=args.dir)), args.players, args.seed, args.sqlite_defaults,
             limit)
        return
    with tempfile.TemporaryDirectory() as tmp:
        play(Path(tmp), args.players, args.seed, args.sqlite_defaults, limit)


if __name__ == "__main__":
    main()
