"""The hub's gate: every refusal is an error reply and never reaches the game."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from riskproto import OUTBOX_CAPACITY, topics
from riskproto import gate as gate_module
from riskproto.gate import APPLY, HOLD, IGNORE, PRESENCE, REFUSED, HubGate, Inbound, _seq_of
from riskproto.messages import (
    E_DUPLICATE,
    E_NOT_ALLOWED,
    E_SCHEMA,
    E_STALE,
    MAX_COUNTER,
    ProtocolError,
    decode,
    encode,
    message,
)
from riskproto.outbox import Outbox
from riskproto.presence import BIRTH, DEATH, IGNORED
from tests.protocol.examples import PROTOCOL, example_files, expected_code

EVENT = topics.seat("den", 1, topics.SEAT_EVENT)
STATUS = topics.seat("den", 1, topics.SEAT_STATUS)


def _event(seq: int, seat: int = 1) -> bytes:
    return encode(message("event", seat=seat, seq=seq, kind="encoder", steps=1))


def _status(online: bool, session: int, boot: int) -> bytes:
    return encode(message("seat_status", seat=1, online=online, session=session, boot=boot))


@pytest.mark.parametrize("path", example_files("invalid"), ids=lambda p: p.stem)
def test_every_invalid_example_is_refused_with_a_valid_error_reply(path: Path) -> None:
    payload = path.read_bytes()
    gate = HubGate("den", seats=6)
    seq = _seq_of(payload)
    if seq is not None:
        # An invalid event naming a seq is refused in its turn: make it the next one.
        gate.tracker(1).restore(None, {None: seq - 1})
    inbound = gate.receive(EVENT, payload)
    if seq is None:
        assert inbound.action == REFUSED
        [(topic, reply)] = inbound.replies
    else:
        assert (inbound.action, inbound.msg, inbound.replies) == (APPLY, None, [])
        assert inbound.seq == seq and inbound.error is not None
        topic, reply = gate.answered(1, seq, inbound.error)
        assert reply["seq"] == seq
    assert topic == topics.seat("den", 1, topics.SEAT_ERROR)
    assert decode(encode(reply))["code"] == expected_code(path)


def test_an_invalid_event_from_a_seat_is_refused_naming_its_seq() -> None:
    # A seat's outbox does not check its events: this reply is what closes a bad one.
    box = Outbox(seat=1)
    seq = box.add(message("event", kind="encoder", steps=99))
    payload = box.due(0)
    assert payload is not None and box.due(0) is None
    gate = HubGate("den", seats=2)
    inbound = gate.receive(EVENT, payload)
    assert (inbound.action, inbound.seq, inbound.replies) == (APPLY, seq, [])
    assert inbound.error is not None, "refused by the contract, in its turn"
    topic, reply = gate.answered(1, seq, inbound.error)
    assert topic == topics.seat("den", 1, topics.SEAT_ERROR)
    assert (reply["code"], reply["field"], reply["seq"]) == (E_SCHEMA, "steps", seq)
    assert box.answered(reply["seq"]) and len(box) == 0


def test_new_then_duplicate_then_stale() -> None:
    gate = HubGate("den", seats=2, window=4)
    first = gate.receive(EVENT, _event(1))
    assert (first.action, first.replies) == (APPLY, [])
    assert gate.receive(EVENT, _event(1)).action == APPLY, "not answered yet: still new"
    assert gate.answered(1, 1) == (topics.seat("den", 1, "ack"), message("ack", seq=1))
    repeat = gate.receive(EVENT, _event(1))
    assert repeat.action == REFUSED and repeat.replies[0][1]["code"] == E_DUPLICATE
    for seq in range(2, 10):
        gate.answered(1, seq)
    old = gate.receive(EVENT, _event(1))
    assert old.replies[0][1]["code"] == E_STALE
    assert old.replies[0][1]["seq"] == 1


def _answers(gate: HubGate, inbound: Inbound | None) -> list[int]:
    # Act as the hub does on an APPLY: answer it, then every held event now next.
    seqs = []
    while inbound is not None and inbound.action == APPLY:
        assert inbound.seat is not None and inbound.seq is not None
        gate.answered(inbound.seat, inbound.seq, inbound.error)
        seqs.append(inbound.seq)
        inbound = gate.release(inbound.seat)
    return seqs


def test_events_that_arrive_early_are_held_then_applied_in_order() -> None:
    gate = HubGate("den", seats=2)
    assert _answers(gate, gate.receive(EVENT, _event(1))) == [1]
    for seq in (3, 4, 3):
        held = gate.receive(EVENT, _event(seq))
        assert (held.action, held.seq, held.replies) == (HOLD, seq, []), "no answer yet"
    assert held.repeat, "the second 3 is a repeat of a held event"
    assert gate.release(1) is None, "2 has not come"
    applied = gate.receive(EVENT, _event(2))
    assert applied.msg is not None and applied.msg["seq"] == 2
    assert _answers(gate, applied) == [2, 3, 4]
    assert gate.receive(EVENT, _event(3)).replies[0][1]["code"] == E_DUPLICATE


def test_an_event_too_far_ahead_is_refused_and_the_window_stays() -> None:
    gate = HubGate("den", seats=2)
    for seq in (MAX_COUNTER, 1 + OUTBOX_CAPACITY):
        far = gate.receive(EVENT, _event(seq))
        assert far.action == REFUSED
        [(topic, reply)] = far.replies
        assert topic == topics.seat("den", 1, topics.SEAT_ERROR)
        assert (reply["code"], reply["seq"], reply["field"]) == (E_NOT_ALLOWED, seq, "seq")
        assert "expects 1" in reply["detail"]
    assert gate.receive(EVENT, _event(OUTBOX_CAPACITY)).action == HOLD, "the last one held"
    assert _answers(gate, gate.receive(EVENT, _event(1))) == [1]
    assert gate.tracker(1).expected == 2


def test_an_invalid_event_ahead_is_refused_in_its_turn() -> None:
    gate = HubGate("den", seats=2)
    bad = encode(message("event", seat=1, seq=2, kind="encoder", steps=1))
    bad = bad.replace(b'"steps":1', b'"steps":99')
    held = gate.receive(EVENT, bad)
    assert (held.action, held.seq) == (HOLD, 2)
    first = gate.receive(EVENT, _event(1))
    gate.answered(1, 1)
    turn = gate.release(1)
    assert turn is not None and (turn.action, turn.seq, turn.msg) == (APPLY, 2, None)
    assert turn.error is not None and turn.error.field == "steps"
    assert first.seq == 1


@pytest.mark.parametrize("payload", [
    b"[" * 2000,  # over the size limit: answered without being parsed at all
    b"[" * 1020,  # under it, deep enough to exhaust CPython's recursion
    b"[" * 500 + b"]" * 500,
    b'{"seq":1,"x":' * 70 + b"1" + b"}" * 70,
    b'{"v":1,"t":"event","seat":1,"seq":1,"kind":"encoder","steps":' + b"[" * 900 + b"]" * 90,
], ids=["open-2000", "open-1020", "balanced-1000", "objects-70", "event-with-deep-steps"])
def test_pathological_payloads_are_answered_once_without_a_seq(payload: bytes) -> None:
    gate = HubGate("den", seats=2)
    inbound = gate.receive(EVENT, payload)
    assert inbound.action == REFUSED and inbound.fault is None
    [(topic, reply)] = inbound.replies
    assert topic == topics.seat("den", 1, topics.SEAT_ERROR)
    assert reply["code"] in ("malformed", "too_large") and "seq" not in reply
    assert gate.tracker(1).expected == 1


def test_the_last_resort_guard_answers_malformed(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(topic: str, payload: bytes, seats: int) -> None:
        raise RecursionError("a parser bug")

    monkeypatch.setattr(gate_module, "decode_from", broken)
    inbound = HubGate("den", seats=2).receive(EVENT, _event(1))
    assert inbound.action == REFUSED and isinstance(inbound.fault, RecursionError)
    [(topic, reply)] = inbound.replies
    assert (topic, reply["code"]) == (topics.seat("den", 1, topics.SEAT_ERROR), "malformed")


def test_a_refusal_by_the_game_is_an_error_reply_and_counts_as_answered() -> None:
    gate = HubGate("den", seats=2)
    assert gate.receive(EVENT, _event(1)).action == APPLY
    topic, reply = gate.answered(1, 1, ProtocolError(E_NOT_ALLOWED, "not your turn"))
    assert topic == topics.seat("den", 1, "error")
    assert (reply["code"], reply["seq"]) == (E_NOT_ALLOWED, 1)
    assert gate.receive(EVENT, _event(1)).action == REFUSED


def test_births_wills_and_reboots() -> None:
    gate = HubGate("den", seats=2)
    born = gate.receive(STATUS, _status(True, 10, 500))
    assert (born.action, born.presence) == (PRESENCE, BIRTH)
    gate.answered(1, 1)
    assert gate.receive(EVENT, _event(3)).action == HOLD
    assert gate.receive(STATUS, _status(True, 11, 500)).presence == BIRTH
    assert gate.receive(EVENT, _event(1)).action == REFUSED, "reconnect: same numbering"
    assert gate.receive(STATUS, _status(False, 10, 500)).presence == IGNORED
    assert gate.receive(STATUS, _status(True, 12, 501)).presence == BIRTH
    assert gate.receive(EVENT, _event(1)).action == APPLY, "reboot: numbering restarts"
    assert gate.tracker(1).held() == 0, "what boot 500 sent ahead is gone"
    assert gate.receive(STATUS, _status(False, 12, 501)).presence == DEATH
    assert gate.presence.online() == []


def _status_of(seat: int, session: int, boot: int) -> bytes:
    return encode(message("seat_status", seat=seat, online=True, session=session, boot=boot))


def test_two_devices_on_one_account_each_carry_on_their_own_numbering() -> None:
    # A seat controller (boot 500) and a phone page (boot 700) take turns on seat 1's
    # account: every birth switches the numbering, and each device's next event is
    # applied in its turn, never held for or refused against the other's numbers.
    gate = HubGate("den", seats=2)
    applied: list[tuple[int, int]] = []

    def play(boot: int, seq: int, steps: int) -> None:
        payload = encode(message("event", seat=1, seq=seq, kind="encoder", steps=steps))
        inbound = gate.receive(EVENT, payload)
        assert (inbound.action, inbound.seq) == (APPLY, seq), (boot, seq)
        gate.answered(1, seq)
        applied.append((boot, seq))

    for turn in range(6):
        boot = (500, 700)[turn % 2]
        assert gate.receive(STATUS, _status_of(1, turn + 1, boot)).presence == BIRTH
        for _ in range(3):
            play(boot, gate.tracker(1).expected, turn + 1)
    assert [seq for boot, seq in applied if boot == 500] == list(range(1, 10))
    assert [seq for boot, seq in applied if boot == 700] == list(range(1, 10))


def test_a_repeat_that_differs_from_the_answered_event_is_refused_not_a_duplicate() -> None:
    gate = HubGate("den", seats=2)
    gate.receive(STATUS, _status(True, 1, 500))
    sent = message("event", seat=1, seq=1, kind="button", button="confirm", press="short")
    assert gate.receive(EVENT, encode(sent)).action == APPLY
    gate.answered(1, 1)
    # The same event, another spelling (key order, spacing): a duplicate, done.
    spelt = b'{ "press": "short", "button": "confirm", "kind": "button", "seq": 1,' \
        b' "seat": 1, "t": "event", "v": 1 }'
    again = gate.receive(EVENT, spelt)
    assert again.action == REFUSED and not again.conflict
    assert again.replies[0][1]["code"] == E_DUPLICATE
    # Another event under number 1 (another device, a forged event): refused with the
    # seq named, which the seat shows and closes as not done ("try again"), and flagged
    # for the hub's log.
    other = gate.receive(EVENT, encode(dict(sent, button="back")))
    assert other.action == REFUSED and other.conflict
    reply = other.replies[0][1]
    assert (reply["code"], reply["seq"], reply["field"]) == (E_NOT_ALLOWED, 1, "seq")
    assert "differs" in reply["detail"]
    assert gate.tracker(1).expected == 2, "nothing moved"


def test_a_held_event_keeps_its_digest_until_it_is_answered_in_its_turn() -> None:
    gate = HubGate("den", seats=2)
    three = encode(message("event", seat=1, seq=3, kind="encoder", steps=3))
    assert gate.receive(EVENT, _event(2)).action == HOLD
    assert gate.receive(EVENT, three).action == HOLD
    assert gate.receive(EVENT, _event(1)).action == APPLY
    gate.answered(1, 1)
    for seq in (2, 3):
        held = gate.release(1)
        assert held is not None and held.seq == seq
        gate.answered(1, seq, ProtocolError(E_NOT_ALLOWED, "not your turn") if seq == 3 else None)
    assert gate.receive(EVENT, three).replies[0][1]["code"] == E_DUPLICATE
    assert gate.receive(EVENT, _event(3)).conflict, "a refused event's number keeps its digest"
    assert gate.receive(EVENT, _event(2)).replies[0][1]["code"] == E_DUPLICATE


def test_messages_the_hub_does_not_take_are_ignored() -> None:
    gate = HubGate("den", seats=2)
    assert gate.receive("risk/other/seat/1/event", _event(1)).action == IGNORE
    assert gate.receive(topics.seat("den", 1, "view"), b"{}").action == IGNORE
    assert gate.receive("risk/den/board", b"{}").action == IGNORE


def test_micropython_gate_behaves_like_cpython(micropython: str) -> None:
    script = str(Path(__file__).with_name("gate_script.py"))
    outputs = [
        subprocess.run(
            [exe, script, str(PROTOCOL)], capture_output=True, text=True, timeout=60, check=True
        ).stdout
        for exe in (sys.executable, micropython)
    ]
    lines = outputs[0].splitlines()
    assert [line.split()[0] for line in lines] == [
        "presence", "apply", "refused", "apply",
        "apply",  # an invalid event, refused in its turn
        "refused",  # truncated: no seq to go by
        "hold", "hold",  # invalid ones ahead, refused in their turn (never: seat 1 reboots)
        "refused", "presence", "apply", "presence", "presence", "apply",
        "hold", "hold", "hold",  # 3, 3 again, 4: the hub waits for 2
        "apply",  # 2, then 3 and 4
        "refused",  # 99: far ahead
        "apply", "presence", "ignore", "ignore",
    ]
    assert outputs[1] == outputs[0]
