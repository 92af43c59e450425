"""Exactly-once, in-order delivery: the hub's SeqTracker and the seat's Outbox."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from riskproto import OUTBOX_CAPACITY
from riskproto.messages import E_TOO_LARGE, MAX_COUNTER, ProtocolError, decode, message
from riskproto.sequence import (
    AHEAD,
    DUPLICATE,
    HELD,
    NEW,
    REPEAT,
    STALE,
    Outbox,
    SeqTracker,
    event_digest,
)
from tests.protocol.examples import PROTOCOL
from tests.protocol.link_sim import run


def _deliver(tracker: SeqTracker, seq: int, applied: list[int]) -> str:
    # What the hub does with one arriving event: apply it and whatever held events
    # follow it, in order; hold it; or answer it at once. Returns the verdict.
    verdict = tracker.check(seq)
    if verdict == HELD:
        tracker.hold(seq, seq)
    elif verdict == NEW:
        item: int | None = seq
        while item is not None:
            applied.append(item)
            tracker.record(item)
            item = tracker.release()
    return verdict


def test_tracker_applies_in_order_and_holds_what_comes_early() -> None:
    tracker = SeqTracker()
    tracker.birth(77)
    applied: list[int] = []
    for seq in range(1, 94):
        assert _deliver(tracker, seq, applied) == NEW
    # The partition of issue 13: 95..102 reach the hub before 94.
    assert [_deliver(tracker, seq, applied) for seq in range(95, 103)] == [HELD] * 8
    assert applied == list(range(1, 94)), "nothing ahead of 94 is applied early"
    assert tracker.held() == 8
    assert _deliver(tracker, 94, applied) == NEW
    assert applied == list(range(1, 103))
    assert tracker.expected == 103 and tracker.held() == 0


def test_tracker_check_records_nothing_and_a_held_repeat_is_a_repeat() -> None:
    tracker = SeqTracker()
    assert tracker.check(1) == NEW
    assert tracker.check(1) == NEW, "check alone records nothing"
    tracker.hold(3, "three")
    assert tracker.check(3) == REPEAT
    with pytest.raises(ValueError):
        tracker.hold(3, "again")
    with pytest.raises(ValueError):
        tracker.record(2)
    assert tracker.release() is None, "1 is next and has not arrived"
    tracker.record(1)
    assert tracker.release() is None, "2 is next"
    tracker.record(2)
    assert tracker.release() == "three"


def test_tracker_holds_at_most_one_outbox_less_one_and_refuses_further_ahead() -> None:
    tracker = SeqTracker()
    tracker.restore(5, {5: 40})
    assert tracker.expected == 41
    verdicts = [tracker.check(seq) for seq in range(42, 42 + OUTBOX_CAPACITY)]
    assert verdicts == [HELD] * (OUTBOX_CAPACITY - 1) + [AHEAD]
    for seq in range(42, 41 + OUTBOX_CAPACITY):
        tracker.hold(seq, seq)
    assert tracker.held() == OUTBOX_CAPACITY - 1
    # Sequence poisoning: a huge number moves nothing, and genuine events go on.
    assert tracker.check(MAX_COUNTER) == AHEAD
    assert tracker.check(41 + OUTBOX_CAPACITY) == AHEAD
    assert tracker.expected == 41
    applied: list[int] = []
    assert _deliver(tracker, 41, applied) == NEW
    assert applied == list(range(41, 41 + OUTBOX_CAPACITY))


def test_tracker_duplicate_then_stale_below_the_expected_number() -> None:
    tracker = SeqTracker(window=4)
    tracker.birth(77)
    for seq in range(1, 10):
        tracker.record(seq)
    assert [tracker.check(s) for s in (9, 6, 5, 4, 10)] == [
        DUPLICATE, DUPLICATE, STALE, STALE, NEW]


def test_tracker_starts_afresh_only_on_a_new_boot() -> None:
    tracker = SeqTracker()
    assert tracker.birth(5) is True
    tracker.record(1)
    tracker.record(2)
    tracker.hold(4, "four")
    assert tracker.birth(5) is False, "a reconnect keeps the numbering"
    assert tracker.check(2) == DUPLICATE and tracker.check(4) == REPEAT
    assert tracker.birth(None) is False, "a birth without boot cannot prove a reboot"
    assert tracker.birth(6) is True
    assert tracker.check(1) == NEW and tracker.held() == 0, "held events of boot 5 are gone"


def test_tracker_restored_from_the_journal_continues_each_boot() -> None:
    tracker = SeqTracker(window=16)
    tracker.restore(9, {9: 5, 8: 70})
    assert (tracker.boot, tracker.expected) == (9, 6)
    assert [tracker.check(s) for s in (2, 5, 6, 7)] == [DUPLICATE, DUPLICATE, NEW, HELD]
    assert tracker.birth(8) is True, "a birth names a boot the journal knows"
    assert tracker.expected == 71
    assert tracker.birth(3) is True and tracker.expected == 1


def test_a_boot_born_again_carries_on_from_its_next_number() -> None:
    # Two devices on one seat's account take turns on it: each birth switches the
    # numbering, and neither is sent back to 1 (issue 29: "too far ahead: the hub
    # expects 1").
    tracker = SeqTracker()
    tracker.birth(5)
    for seq in (1, 2, 3):
        tracker.record(seq)
    assert tracker.birth(6) is True and tracker.expected == 1
    tracker.record(1)
    assert tracker.birth(5) is True and tracker.expected == 4
    assert tracker.check(3) == DUPLICATE and tracker.check(4) == NEW
    tracker.record(4)
    assert tracker.birth(6) is True and tracker.expected == 2


def test_the_tracker_keeps_a_digest_per_answered_number_of_each_boot() -> None:
    tracker = SeqTracker(window=4)
    tracker.birth(5)
    for seq in range(1, 11):
        tracker.record(seq, f"d{seq}")
    assert [tracker.digest(s) for s in (5, 6, 10)] == [None, "d6", "d10"]
    tracker.birth(6)
    tracker.record(1, "other")
    assert tracker.digest(10) is None and tracker.digest(1) == "other"
    tracker.birth(5)
    assert tracker.digest(10) == "d10", "a boot born again keeps its digests"
    assert len(tracker._digests) == 6, "the window of each boot, and no more"
    tracker.restore(5, {5: 10, 6: 1}, {(5, 10): "d10", (5, 2): "d2", (6, 1): "other"})
    assert tracker.digest(10) == "d10" and tracker.digest(2) is None, "outside the window"


def test_an_event_digest_is_the_events_not_its_spelling() -> None:
    one = {"v": 1, "t": "event", "seat": 1, "seq": 3, "kind": "dice", "roll": 2,
           "dice": [{"id": "e1", "face": 4, "state": "settled"}]}
    spelt = {"dice": [{"state": "settled", "face": 4, "id": "e1"}], "roll": 2, "kind": "dice",
             "seq": 3, "seat": 1, "t": "event", "v": 1}
    assert event_digest(one) == event_digest(spelt)
    other = dict(one, dice=[{"id": "e1", "face": 5, "state": "settled"}])
    assert event_digest(other) != event_digest(one)
    assert len(event_digest(one)) == 16


def test_tracker_memory_stays_bounded() -> None:
    tracker = SeqTracker()
    applied: list[int] = []
    for seq in range(1, 5_000):
        _deliver(tracker, seq + 1, applied)
        _deliver(tracker, seq, applied)
        assert tracker.held() <= OUTBOX_CAPACITY - 1
    assert applied == list(range(1, 5_001))


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_any_interleaving_applies_each_seq_once_in_order(data: st.DataObject) -> None:
    # A seat with at most OUTBOX_CAPACITY unanswered events: any of them may arrive,
    # any number of times, in any order (retransmission, QoS 1 redelivery, a
    # partition and a reconnect), answered ones too, and any answer may be lost.
    tracker = SeqTracker()
    tracker.birth(1)
    applied: list[int] = []
    made = 0
    closed: set[int] = set()  # what the seat has seen answered
    for _ in range(data.draw(st.integers(1, 150), label="steps")):
        waiting = [s for s in range(1, made + 1) if s not in closed]
        if len(waiting) < OUTBOX_CAPACITY and data.draw(st.booleans(), label="press"):
            made += 1
            waiting.append(made)
        if not made:
            continue
        if waiting and data.draw(st.integers(0, 4), label="redeliver") > 0:
            seq = data.draw(st.sampled_from(waiting), label="seq")
        else:
            seq = data.draw(st.integers(1, made), label="old seq")
        before = len(applied)
        verdict = _deliver(tracker, seq, applied)
        assert verdict != AHEAD, "a genuine seat is never too far ahead"
        assert tracker.held() <= OUTBOX_CAPACITY - 1
        assert applied == list(range(1, len(applied) + 1)), "in order, each once"
        answers = applied[before:] if verdict == NEW else [] if verdict in (HELD, REPEAT) \
            else [seq]
        closed.update(a for a in answers if not data.draw(st.booleans(), label="lost"))
    # The link heals: the seat resends what it waits for, oldest first, until answered.
    for seq in range(1, made + 1):
        if seq not in closed:
            _deliver(tracker, seq, applied)
    assert applied == list(range(1, made + 1))


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
    assert applied == list(range(1, 51)), "each once, in order"
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
