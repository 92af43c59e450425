"""Journal speed: appends per second (synchronous FULL vs NORMAL) and reopening a game.

    PYTHONPATH=hub:protocol python bench/bench_journal.py [--actions N] [--dir DIR]

Each append applies one action to the cached state and commits one
transaction, so the figure is a commit rate. With ``synchronous=FULL`` every
commit waits for an fsync of the WAL; with ``NORMAL`` it does not (a power cut
may lose the last commits). The figures depend on the disk: pass ``--dir`` on
the storage the hub will use (an SD card on a Raspberry Pi is far slower than
an SSD; a tmpfs makes fsync free and FULL looks like NORMAL). Then the time to
open the file and fold a game of ``--actions`` actions (what the hub does when
it restarts), next to the engine's bare replay of the same actions.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from risktable.journal import ActionMeta, Journal
from risktable.journal.store import Synchronous
from risktable.rules import CHANCE, Action, Config, current_actor, new_game, replay
from risktable.rules.engine import apply
from risktable.rules.selfplay import selfplay


def long_log(config: Config, actions: int) -> list[Action]:
    """The first ``actions`` actions of a seeded random-bot game long enough to have them."""
    for result in selfplay(config, 50, seed=7, bot="uniform", max_turns=400):
        if len(result.log) >= actions:
            return result.log[:actions]
    raise SystemExit(f"no game of {actions} actions found; ask for fewer")


def metas(config: Config, log: list[Action]) -> list[ActionMeta]:
    """Seat metadata as the hub would record it (seat numbers and sequence numbers)."""
    out: list[ActionMeta] = []
    seq: dict[int, int] = {}
    s = new_game(config)
    for a in log:
        actor = current_actor(s)
        if actor == CHANCE:
            out.append(ActionMeta("hub"))
        else:
            seq[actor + 1] = seq.get(actor + 1, 0) + 1
            out.append(ActionMeta("seat", seat=actor + 1, seq=seq[actor + 1]))
        s, _ = apply(s, a)
    return out


def appends(directory: Path, mode: Synchronous, config: Config, log: list[Action],
            meta: list[ActionMeta]) -> tuple[Path, int]:
    path = directory / f"journal-{mode.lower()}.sqlite3"
    latencies = []
    with Journal(path, synchronous=mode) as journal:
        game = journal.create_game(config, "bench")
        start = time.perf_counter()
        for a, m in zip(log, meta, strict=True):
            t = time.perf_counter()
            journal.append(game, a, m)
            latencies.append(time.perf_counter() - t)
        elapsed = time.perf_counter() - start
    latencies.sort()
    p99 = latencies[int(len(latencies) * 0.99)]
    print(f"  synchronous={mode:<6}  {len(log) / elapsed:>8,.0f} appends/s   median "
          f"{statistics.median(latencies) * 1e3:.2f} ms, p99 {p99 * 1e3:.2f} ms, "
          f"max {latencies[-1] * 1e3:.2f} ms")
    return path, game


def reopen(path: Path, game: int, config: Config, log: list[Action], repeats: int) -> None:
    opens, folds, exports, bare = [], [], [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        journal = Journal(path, create=False)
        t1 = time.perf_counter()
        journal.state(game)
        t2 = time.perf_counter()
        journal.export(game)
        t3 = time.perf_counter()
        journal.close()
        replay(config, log)
        t4 = time.perf_counter()
        opens.append(t1 - t0)
        folds.append(t2 - t1)
        exports.append(t3 - t2)
        bare.append(t4 - t3)
    ms = 1e3
    print(f"  reopen a {len(log)}-action game (median of {repeats}): open "
          f"{statistics.median(opens) * ms:.1f} ms + read and fold "
          f"{statistics.median(folds) * ms:.1f} ms = "
          f"{(statistics.median(opens) + statistics.median(folds)) * ms:.1f} ms")
    print(f"  for comparison: engine replay alone {statistics.median(bare) * ms:.1f} ms, "
          f"export {statistics.median(exports) * ms:.1f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--actions", type=int, default=1000)
    parser.add_argument("--dir", type=Path, default=None,
                        help="directory for the journal files (default: a temporary one)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: 200 actions, one repeat")
    args = parser.parse_args()
    if args.quick:
        args.actions, args.repeats = 200, 1
    config = Config(4)
    log = long_log(config, args.actions)
    meta = metas(config, log)
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        directory = Path(tmp)
        print(f"journal in {directory}, {len(log)} actions of a 4-player game")
        path, game = appends(directory, "FULL", config, log, meta)
        appends(directory, "NORMAL", config, log, meta)
        reopen(path, game, config, log, args.repeats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
