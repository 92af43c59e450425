"""A sweep of link faults over seeds and moments (issue 13): 20 runs by default.

Records the fault suite's script once (tests/faults/table_run.py: the demo
bots' first inputs on a fault-free table of real seat firmwares under
MicroPython, the real hub and mosquitto), then replays it with one seat's path
black-holed by the tests' proxy. Each run draws from its seed the seat and the
moment (a place where that seat types several lines in a row, which its player
keeps typing through the fault), how many lines, the black-hole's length and the
seat's keepalive. Runs go ``--parallel`` at a time (independent tables on one
broker), each until that seat has typed a few lines after the fault. For each it
prints whether the game went as the reference did (the same ``actions`` hash after
as many lines), whether each seat's journaled sequence numbers went up by one
with no gap, how long the hub took to see the seat offline, and, after the path
healed, how long until every line typed was answered and the seat was online.

    python bench/bench_fault_sweep.py [--runs 20] [--parallel 5] [--steps 400]
                                      [--first-seed 1]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from risktable.broker_address import BrokerAddress
from tests.faults.table_run import Fault, Run, differences, fault_windows, record, replay
from tests.support.mosquitto import Mosquitto
from tests.support.seat_client import BROKER_NO_DELAY
from tests.support.tools import micropython_binary, mosquitto_binary

KEEPALIVES = (1, 2, 5, 10, 30)  # 30: the firmware's default


def draw(seed: int, script_windows: dict[int, list[tuple[int, int]]]) -> Fault:
    """The fault of run ``seed``: seat, moment, lines typed, length, keepalive."""
    rng = random.Random(f"sweep:{seed}")
    presses = rng.choice(sorted(script_windows))
    seat, start = rng.choice(script_windows[presses])
    keepalive = rng.choice(KEEPALIVES)
    # Longer than the broker needs to give up on the seat (1.5 keepalives).
    shortest = 2 * keepalive + 1
    seconds = round(rng.uniform(shortest, max(45.0, shortest + 15)), 1)
    return Fault(seat, start, presses, seconds, keepalive)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--parallel", type=int, default=5)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--first-seed", type=int, default=1)
    args = parser.parse_args()
    micropython = micropython_binary()
    with tempfile.TemporaryDirectory(prefix="fault-sweep-") as tmp, \
            Mosquitto(mosquitto_binary(), Path(tmp) / "broker",
                      extra_config=BROKER_NO_DELAY) as broker:
        address = BrokerAddress(broker.host, broker.port)
        started = time.monotonic()
        script, reference = record(address, micropython, Path(tmp) / "record", args.steps)
        print(f"script: {len(script)} lines recorded in {time.monotonic() - started:.1f} s")
        windows = {n: fault_windows(script, n) for n in (4, 6, 8, 10)}
        windows = {n: w for n, w in windows.items() if w}
        seeds = list(range(args.first_seed, args.first_seed + args.runs))
        faults = {seed: draw(seed, windows) for seed in seeds}
        results: dict[int, Run | BaseException] = {}

        def one(seed: int) -> None:
            try:
                results[seed] = replay(address, micropython, Path(tmp) / f"run{seed}", script,
                                       faults[seed], f"sweep{seed}")
            except BaseException as exc:
                results[seed] = exc

        for at in range(0, len(seeds), args.parallel):
            batch = [threading.Thread(target=one, args=(s,)) for s in seeds[at:at + args.parallel]]
            for thread in batch:
                thread.start()
            for thread in batch:
                thread.join()
        print(f"{'seed':>4} {'seat':>4} {'line':>4} {'lines':>5} {'ka s':>4} {'hole s':>6} "
              f"{'offline s':>9} {'answered s':>10} {'online s':>8}  verdict")
        good = 0
        answered: list[float] = []
        online: list[float] = []
        for seed in seeds:
            fault, result = faults[seed], results[seed]
            head = (f"{seed:>4} {fault.seat:>4} {fault.start:>4} {fault.presses:>5} "
                    f"{fault.keepalive:>4} {fault.seconds:>6.1f}")
            if isinstance(result, BaseException):
                print(f"{head} {'':>9} {'':>10} {'':>8}  FAILED: {str(result)[:160]}")
                continue
            wrong = differences(result, reference)
            good += not wrong
            if result.answered_s is not None:
                answered.append(result.answered_s)
            if result.online_s is not None:
                online.append(result.online_s)
            print(f"{head} {_s(result.noticed_s):>9} {_s(result.answered_s):>10} "
                  f"{_s(result.online_s):>8}  {'; '.join(wrong) or 'ok'}")
        print(f"{good} of {len(seeds)} runs ended as the reference, in order, seat online")
        if answered:
            print(f"after the heal, all typed lines answered: median "
                  f"{statistics.median(answered):.1f} s, max {max(answered):.1f} s; "
                  "seat online: median "
                  f"{statistics.median(online):.1f} s, max {max(online):.1f} s")
        print(f"total {time.monotonic() - started:.0f} s")
    return 0


def _s(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


if __name__ == "__main__":
    sys.exit(main())
