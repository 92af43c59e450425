"""The fault suite: a seat's link fails in the middle of a game, and nothing is
lost, doubled or reordered.

A fault-free table (real seat firmwares under MicroPython, the real hub,
mosquitto) records a script of the demo bots' inputs; each fault run replays it
on a new table while one seat's path to the broker is black-holed by the tests'
proxy (tests/support/fault_proxy.py) and that seat's player keeps pressing,
until that seat has typed a few lines after the fault. Every run must end with
the reference's ``actions`` after as many script lines (same hash), each seat's
journaled sequence numbers going up by exactly one, no input refused, and the
seat back online at the hub. The runs of a test are independent tables on one
broker and run at the same time: the suite's length is its longest fault.

The long fault runs on a shorter clock than a table's: the faulted seat's MQTT
keepalive (which mosquitto honours: it gives up on a silent client some time after
1.5 keepalives) and its own clocks (resends and their largest backoff, the "waiting
for the hub" timer, reconnect backoff) are shortened together, so the fault stands
in the same proportion to them as on a table with the firmware's defaults.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from risktable.broker_address import BrokerAddress
from tests.faults.table_run import (
    Fault,
    Run,
    Step,
    differences,
    fault_windows,
    firmware_defaults,
    gaps,
    record,
    replay,
)
from tests.support.mosquitto import Mosquitto
from tests.support.seat_client import BROKER_NO_DELAY
from tests.support.tools import mosquitto_binary

SCRIPT_STEPS = 400  # into the first player turns, where a seat types many lines in a row
# A black hole of 60 s against the firmware's default keepalive of 30 s: the dead path
# goes unnoticed for 45 s, and mosquitto gives up on the seat (its Will reaches the hub)
# some 2 s after that, well before the path heals. Here every clock of the seat is
# three times shorter (keepalive 10 s, resends backing off to 2.7 s instead of 8 s):
# the dead path goes unnoticed for 15 s, and the path heals 10 s after that (15 s on
# the table's clock): the broker's Will, which does not come sooner on a shorter
# clock, still reaches the hub well inside the fault.
LONG_KEEPALIVE = 10
LONG_CLOCK = firmware_defaults("_BROKER_DEFAULTS")["keepalive"] / LONG_KEEPALIVE
LONG_BLACK_HOLE = 1.5 * LONG_KEEPALIVE + 10.0
LONG_PRESSES = 10
# The shortest keepalive MQTT has (1 s): mosquitto gives up on a silent client 5 to 6 s
# after it fell silent (its keepalive check is coarser than 1.5 keepalives).
SHORT_KEEPALIVE = 1
MAX_RETRANSMIT_BACKOFF = firmware_defaults()["retry_max_ms"] / 1000  # the outbox's
SHORT_BLACK_HOLE = 3 * SHORT_KEEPALIVE + MAX_RETRANSMIT_BACKOFF + 1.0
SHORT_PRESSES = 8
SHORT_RUNS = 10


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerAddress]:
    with Mosquitto(mosquitto_binary(), tmp_path_factory.mktemp("faults-broker"),
                   extra_config=BROKER_NO_DELAY) as started:
        yield BrokerAddress(started.host, started.port)


@pytest.fixture(scope="module")
def script(broker: BrokerAddress, micropython: str,
           tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Step], Run]:
    """The recorded script and its fault-free run (the reference)."""
    steps, reference = record(broker, micropython, tmp_path_factory.mktemp("record"),
                              SCRIPT_STEPS)
    assert len(steps) == SCRIPT_STEPS and len(reference.hashes) == SCRIPT_STEPS + 1
    for seat, seqs in reference.seqs.items():
        assert not gaps(seqs), (seat, gaps(seqs))
    return steps, reference


def _replay_all(broker: BrokerAddress, micropython: str, workdir: Path, steps: list[Step],
                faults: list[Fault], name: str) -> list[Run | BaseException]:
    # One thread per run, each its own table id, hub, seats and proxy.
    results: list[Run | BaseException] = [RuntimeError("did not finish")] * len(faults)

    def one(n: int) -> None:
        try:
            results[n] = replay(broker, micropython, workdir / f"{name}{n}", steps, faults[n],
                                f"{name}{n}")
        except BaseException as exc:
            results[n] = exc

    threads = [threading.Thread(target=one, args=(n,)) for n in range(len(faults))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def _verdicts(results: list[Run | BaseException], faults: list[Fault],
              reference: Run) -> list[str]:
    """What went wrong in each run (empty when all held)."""
    wrong = []
    for fault, result in zip(faults, results, strict=True):
        where = f"seat {fault.seat} black-holed {fault.seconds:g} s at line {fault.start}"
        if isinstance(result, BaseException):
            wrong.append(f"{where}: {result!r}")
            continue
        wrong += [f"{where}: {what}" for what in differences(result, reference)]
    return wrong


def _faults(steps: list[Step], presses: int, count: int, seconds: float, keepalive: int,
            clock: float, seed: int) -> list[Fault]:
    windows = fault_windows(steps, presses)
    assert len(windows) >= count, windows
    chosen = sorted(random.Random(seed).sample(windows, count), key=lambda w: w[1])
    return [Fault(seat, start, presses, seconds, keepalive, clock) for seat, start in chosen]


@pytest.mark.slow
@pytest.mark.timeout(300)  # a 60 s black hole by design, 70 s of wall on a quiet machine
def test_a_seat_black_holed_60_s_while_its_player_keeps_pressing(
        broker: BrokerAddress, micropython: str, script: tuple[list[Step], Run],
        tmp_path: Path) -> None:
    steps, reference = script
    faults = _faults(steps, LONG_PRESSES, 3, LONG_BLACK_HOLE, LONG_KEEPALIVE, LONG_CLOCK,
                     seed=60)
    results = _replay_all(broker, micropython, tmp_path, steps, faults, "long")
    assert _verdicts(results, faults, reference) == []


@pytest.mark.slow
@pytest.mark.timeout(300)  # ten black holes of keepalives and backoffs: 74 s on a quiet machine
def test_a_black_hole_longer_than_three_keepalives_and_the_largest_backoff(
        broker: BrokerAddress, micropython: str, script: tuple[list[Step], Run],
        tmp_path: Path) -> None:
    steps, reference = script
    faults = _faults(steps, SHORT_PRESSES, SHORT_RUNS, SHORT_BLACK_HOLE, SHORT_KEEPALIVE,
                     1.0, seed=13)
    results = _replay_all(broker, micropython, tmp_path, steps, faults, "short")
    assert _verdicts(results, faults, reference) == []
