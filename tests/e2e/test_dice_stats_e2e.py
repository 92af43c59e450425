"""End to end: the faces seat firmwares read from their dice are exactly what `dice stats`
counts, per die, for every kind of dice (the seat's own, typed in, a smart die).

The opening roll arms one die on every seat and each seat answers in its own event,
so the hub never sees all the roll's dice in one event (as at a real table).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from riskproto import topics
from risktable.broker_address import BrokerAddress
from risktable.demo.seats import SeatProcess
from risktable.journal import Journal, journal_path
from risktable.rules.state import OPENING
from tests.e2e.hub_driver import LedLog, start_service
from tests.support.cli import run
from tests.support.mosquitto import Mosquitto
from tests.support.mqtt_client import Recorder

TABLE = "dicestats"
SMART_DIE = "px-0000002a"
# Seat number -> the seat's dice: seats 1 and 2 both have their own dice named e1.
KINDS = {1: "edice", 2: "edice", 3: "manual", 4: "pixels"}


def _armed(seat: SeatProcess) -> int:
    armed = seat.outputs.get("armed")
    return armed[0] if isinstance(armed, list) and armed[1] else 0


def test_dice_stats_count_every_face_the_seats_read(
    fresh_mosquitto: Mosquitto, micropython: str, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    broker = BrokerAddress(fresh_mosquitto.host, fresh_mosquitto.port)
    data_dir = tmp_path / "hub"
    events = Recorder(broker.host, broker.port, "events")
    events.subscribe(topics.seat_filter(TABLE, topics.SEAT_EVENT))
    service = start_service(broker.host, broker.port, TABLE, len(KINDS), data_dir, LedLog())
    seats = {n: SeatProcess(micropython, n, TABLE, broker, tmp_path, keepalive=5,
                            extra_config={"dice": kind}) for n, kind in KINDS.items()}
    injected: dict[str, list[int]] = {}  # die -> faces typed in or given to the smart die
    try:
        for seat in seats.values():
            seat.start()
        done: set[tuple[int, int]] = set()
        round_faces = iter([(3, 5), (6, 2), (4, 4), (1, 6), (2, 3)] * 20)
        deadline = time.monotonic() + 60
        while service.inspect(lambda s: s.state.phase) == OPENING:
            assert time.monotonic() < deadline, {n: s.outputs for n, s in seats.items()}
            for n, seat in seats.items():
                roll = _armed(seat)
                if not roll or (n, roll) in done:
                    continue
                done.add((n, roll))
                manual, smart = next(round_faces)
                if KINDS[n] == "edice":
                    seat.send({"button": "roll"})
                elif KINDS[n] == "manual":
                    seat.send({"encoder": manual - 1})
                    seat.send({"button": "confirm"})
                    injected.setdefault(f"seat {n} m1", []).append(manual)
                else:
                    seat.send({"reading": [SMART_DIE, "rolling", 0]})
                    seat.send({"reading": [SMART_DIE, "rolled", smart]})
                    injected.setdefault(SMART_DIE, []).append(smart)
            time.sleep(0.05)
    finally:
        for seat in seats.values():
            seat.stop()
        service.stop()
        events.close()

    # What every seat sent: settled readings, once per (seat, seq) whatever the link did.
    sent: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for _, payload, _ in events.messages:
        msg = json.loads(payload)
        if msg["kind"] == "dice" and all(d["state"] == "settled" for d in msg["dice"]):
            sent[(msg["seat"], msg["seq"])] = msg["dice"]
    read: dict[str, list[int]] = {}
    for (seat_no, _), dice in sorted(sent.items()):
        for die in dice:
            name = die["id"] if die["id"] == SMART_DIE else f"seat {seat_no} {die['id']}"
            read.setdefault(name, []).append(die["face"])
    assert {k: v for k, v in read.items() if k in injected} == injected
    assert set(read) == {"seat 1 e1", "seat 2 e1", "seat 3 m1", SMART_DIE}

    with Journal(journal_path(data_dir)) as journal:
        by_die = {s.die: s for s in journal.die_stats()}
    assert {d: list(s.counts) for d, s in by_die.items()} == {
        d: [faces.count(f) for f in range(1, 7)] for d, faces in read.items()}
    assert {d: s.kind for d, s in by_die.items()} == {
        "seat 1 e1": "seat", "seat 2 e1": "seat", "seat 3 m1": "manual", SMART_DIE: "smart"}

    code, out, _ = run(capsys, "dice", "stats", "--data-dir", str(data_dir))
    assert code == 0
    lines = {line.split("  ")[0].strip(): line for line in out.splitlines()[1:]}
    assert "typed in" in lines["seat 3 m1"] and "smart die" in lines[SMART_DIE]
    assert "seat dice" in lines["seat 1 e1"] and "seat dice" in lines["seat 2 e1"]
    assert all("too few rolls" in line for line in lines.values())
