"""At-most-once delivery: the hub's SeqTracker and the seat's Outbox."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from riskproto import OUTBOX_CAPACITY
from riskproto.messages import E_TOO_LARGE, ProtocolError, decode, message
from riskproto.sequence import DUPLICATE, NEW, STALE, Outbox, SeqTracker
from tests.protocol.examples import PROTOCOL
from tests.protocol.link_sim import run


def test_tracker_new_duplicate_stale() -> None:
    tracker = SeqTracker(window=4)
    tracker.birth(77)
    assert tracker.check(1) == NEW
    assert tracker.check(1) == NEW, "check alone records nothing"
    for seq in (1, 2, 3, 5, 6, 7, 8, 9):
        tracker.record(seq)
    assert tracker.check(9) == DUPLICATE
    assert tracker.check(6) == DUPLICATE
    assert tracker.check(10) == NEW
    assert tracker.check(5) == STALE, "below the window of 4"
    assert tracker.check(4) == STALE


def test_tracker_accepts_a_late_number_inside_the_window() -> None:
    tracker = SeqTracker(window=8)
    for seq in (1, 2, 4, 5):
        tracker.record(seq)
    assert tracker.check(3) == NEW
    tracker.record(3)
    assert tracker.check(3) == DUPLICATE


def test_tracker_starts_afresh_only_on_a_new_boot() -> None:
    tracker = SeqTracker()
    assert tracker.birth(5) is True
    tracker.record(1)
    tracker.record(2)
    assert tracker.birth(5) is False, "a reconnect keeps the numbering"
    assert tracker.check(2) == DUPLICATE
    assert tracker.birth(None) is False, "a birth without boot cannot prove a reboot"
    assert tracker.birth(6) is True
    assert tracker.check(1) == NEW


def test_tracker_restored_from_the_journal() -> None:
    tracker = SeqTracker(window=16)
    tracker.restore(9, [1, 2, 3, 5])
    assert (tracker.boot, tracker.high) == (9, 5)
    assert [tracker.check(s) for s in (2, 4, 5, 6)] == [DUPLICATE, NEW, DUPLICATE, NEW]


def test_tracker_memory_stays_bounded() -> None:
    tracker = SeqTracker(window=32)
    for seq in range(1, 10_000):
        tracker.record(seq)
    assert len(tracker._answered) <= 33


def _encoder(steps: int) -> dict[str, object]:
    return message("event", kind="encoder", steps=steps)


def _sent(box: Outbox, now: int) -> list[tuple[int, bytes]]:
    # What the seat's loop publishes at `now`: due(now) until it gives None.
    out = []
    payload = box.due(now)
    while payload is not None:
        out.append((decode(payload)["seq"], payload))
        payload = box.due(now)
    return out


def test_outbox_numbers_sends_at_once_then_backs_off() -> None:
    box = Outbox(seat=2, retry_ms=100, max_retry_ms=350)
    assert box.add(_encoder(1)) == 1
    assert box.add(_encoder(2)) == 2
    first = _sent(box, 1000)
    assert [seq for seq, _ in first] == [1, 2]
    assert decode(first[0][1]) == {
        "v": 1,
        "t": "event",
        "kind": "encoder",
        "steps": 1,
        "seat": 2,
        "seq": 1,
    }
    assert _sent(box, 1099) == []
    assert [s for s, _ in _sent(box, 1100)] == [1, 2]
    assert _sent(box, 1299) == [], "the second wait is twice the first"
    assert [s for s, _ in _sent(box, 1300)] == [1, 2]
    assert box.answered(1) is True
    assert box.answered(1) is False
    assert _sent(box, 1649) == [], "capped at max_retry_ms"
    assert [s for s, _ in _sent(box, 1650)] == [2]
    assert [s for s, _ in _sent(box, 2000)] == [2]


def test_outbox_resends_everything_after_a_reconnect() -> None:
    box = Outbox(seat=1, retry_ms=1000)
    box.add(_encoder(1))
    _sent(box, 0)
    assert _sent(box, 10) == []
    box.reconnected()
    assert [s for s, _ in _sent(box, 10)] == [1]


def test_a_full_outbox_refuses_new_events_and_drops_none() -> None:
    box = Outbox(seat=1, capacity=3)
    assert [box.add(_encoder(i)) for i in range(5)] == [1, 2, 3, 0, 0]
    assert len(box) == 3 and box.full()
    assert [s for s, _ in _sent(box, 0)] == [1, 2, 3], "the oldest are kept, in order"
    assert box.answered(1)
    assert not box.full()
    assert box.add(_encoder(9)) == 4, "a refused event used no number"
    for seq in (2, 3, 4):
        assert box.answered(seq)
    assert len(box) == 0
    assert _sent(box, 10_000) == []


def test_the_default_capacity_is_the_contracts() -> None:
    assert OUTBOX_CAPACITY == 16
    box = Outbox(seat=1)
    assert [box.add(_encoder(0)) for _ in range(17)][-2:] == [16, 0]


def test_outbox_walk_sends_each_due_entry_once_even_with_no_wait() -> None:
    box = Outbox(seat=1, retry_ms=0, max_retry_ms=0)
    for i in range(3):
        box.add(_encoder(i))
    assert [s for s, _ in _sent(box, 0)] == [1, 2, 3]
    assert [s for s, _ in _sent(box, 1)] == [1, 2, 3], "no wait: due again a tick later"
    # An answer during the walk (the seat's loop awaits each publish) skips nothing.
    box.reconnected()
    assert decode(box.due(2) or b"")["seq"] == 1
    assert box.answered(1)
    assert [s for s, _ in _sent(box, 2)] == [2, 3]


def test_outbox_leaves_checking_to_the_hub_but_refuses_what_it_cannot_send() -> None:
    box = Outbox(seat=1)
    assert box.add(message("event", kind="encoder", steps=99)) == 1, "the hub refuses it"
    with pytest.raises(ProtocolError) as caught:
        box.add(message("event", kind="card", uid="A" * 1024))
    assert caught.value.code == E_TOO_LARGE
    assert len(box) == 1
    assert box.add(_encoder(1)) == 2, "a refused event uses no number"


def test_outbox_copes_with_a_wrapping_clock() -> None:
    period = 1 << 30

    def ticks_diff(a: int, b: int) -> int:
        return ((a - b + period // 2) % period) - period // 2

    box = Outbox(seat=1, retry_ms=100, diff=ticks_diff)
    box.add(_encoder(1))
    _sent(box, period - 50)
    assert _sent(box, 20) == [], "70 ms after, across the wrap"
    assert [s for s, _ in _sent(box, 50)] == [1]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 60))
def test_every_event_is_applied_exactly_once_over_a_lossy_link(seed: int, loss: int) -> None:
    applied, sends, _ = run(seed, events=50, loss_pct=loss)
    assert sorted(applied) == list(range(1, 51))
    assert sends >= 50


def test_micropython_runs_the_same_link_simulation(micropython: str) -> None:
    script = str(Path(__file__).with_name("link_sim.py"))
    seeds = ["1", "2", "3", "99", "4096"]
    outputs = [
        subprocess.run(
            [exe, script, str(PROTOCOL), *seeds],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        ).stdout
        for exe in (sys.executable, micropython)
    ]
    assert len(outputs[0].splitlines()) == len(seeds)
    assert outputs[1] == outputs[0]
