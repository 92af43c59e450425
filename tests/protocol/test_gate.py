"""The hub's gate: every refusal is an error reply and never reaches the game."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from riskproto import topics
from riskproto.gate import APPLY, IGNORE, PRESENCE, REFUSED, HubGate
from riskproto.messages import (
    E_DUPLICATE,
    E_NOT_ALLOWED,
    E_SCHEMA,
    E_STALE,
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
    gate = HubGate("den", seats=6)
    inbound = gate.receive(EVENT, path.read_bytes())
    assert inbound.action == REFUSED
    assert inbound.msg is None
    [(topic, reply)] = inbound.replies
    assert topic == topics.seat("den", 1, topics.SEAT_ERROR)
    assert decode(encode(reply))["code"] == expected_code(path)


def test_an_invalid_event_from_a_seat_is_refused_naming_its_seq() -> None:
    # A seat's outbox does not check its events: this reply is what closes a bad one.
    box = Outbox(seat=1)
    seq = box.add(message("event", kind="encoder", steps=99))
    payload = box.due(0)
    assert payload is not None and box.due(0) is None
    inbound = HubGate("den", seats=2).receive(EVENT, payload)
    assert inbound.action == REFUSED
    [(topic, reply)] = inbound.replies
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
    assert gate.receive(STATUS, _status(True, 11, 500)).presence == BIRTH
    assert gate.receive(EVENT, _event(1)).action == REFUSED, "reconnect: same numbering"
    assert gate.receive(STATUS, _status(False, 10, 500)).presence == IGNORED
    assert gate.receive(STATUS, _status(True, 12, 501)).presence == BIRTH
    assert gate.receive(EVENT, _event(1)).action == APPLY, "reboot: numbering restarts"
    assert gate.receive(STATUS, _status(False, 12, 501)).presence == DEATH
    assert gate.presence.online() == []


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
        "presence",
        "apply",
        "refused",
        "apply",
        "refused",
        "refused",
        "refused",
        "refused",
        "refused",
        "presence",
        "apply",
        "presence",
        "presence",
        "apply",
        "presence",
        "ignore",
        "ignore",
    ]
    assert outputs[1] == outputs[0]
