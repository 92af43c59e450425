"""riskproto.codec, the part of the codec a seat loads: it gives the hub's verdict on
every message a seat receives, and writes what a seat sends without checking it. It
writes no error texts (a seat logs code and field), but each of its errors carries
what the hub's text is written from: riskproto.messages.text gives the hub's text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from riskproto import codec, depth, messages, update
from riskproto.messages import ProtocolError, encode, message
from tests.protocol.examples import example_files

EXAMPLES = example_files("valid") + example_files("invalid")
SEAT_BOUND = [entry[0] for entry in codec.SEAT_BOUND]


def test_the_error_code_names_follow_the_codes() -> None:
    names = [getattr(messages, "E_" + code.upper()) for code in codec.ERROR_CODES]
    assert names == list(codec.ERROR_CODES)


def test_the_seat_receives_what_the_hub_publishes_to_it() -> None:
    assert sorted(SEAT_BOUND) == ["ack", "cmd", "error", "hub_status", "view"]


def _verdict(decode: object, data: bytes) -> tuple[str, str | None, str] | None:
    # The code, field and the hub's text of the error, the text written for a seat's.
    try:
        decode(data)  # type: ignore[operator]
    except ProtocolError as exc:
        return (exc.code, exc.field, messages.text(exc))
    return None


def _seat_decode(data: bytes) -> dict[str, Any]:
    # What a seat does: the codec, and for an update the fields of riskproto.update,
    # which it loads only then (firmware seat/ota.py).
    msg = codec.decode(data)
    if msg.get("t") == "cmd" and msg["cmd"] == "update":
        update.check(msg)
    return msg


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: f"{p.parent.name}-{p.stem}")
def test_a_seat_and_the_hub_give_the_same_verdict(path: Path) -> None:
    data = path.read_bytes()
    hub = _verdict(messages.decode, data)
    seat = _verdict(_seat_decode, data)
    try:
        mtype = depth.loads(data).get("t")  # json.loads would recurse without bound
    except (ValueError, AttributeError):
        mtype = None
    if hub is not None and hub[1] == "t":
        # Not a known type: the texts list the types each side knows.
        assert seat is not None and seat[:2] == hub[:2]
    elif mtype in SEAT_BOUND or (hub is not None and hub[1] in (None, "v")):
        assert seat == hub
    else:
        # A type only the hub receives, past the version check: unknown to a seat.
        assert seat is not None and seat[:2] == ("schema", "t")


def test_a_seat_checks_the_type_and_seat_its_topic_stands_for() -> None:
    view = encode(message("view", seat=2, colour=[1, 2, 3]))
    assert codec.decode(view, "view", 2)["colour"] == [1, 2, 3]
    with pytest.raises(ProtocolError) as caught:
        codec.decode(view, "cmd", 2)
    assert (caught.value.code, caught.value.field) == ("schema", "t")
    with pytest.raises(ProtocolError) as caught:
        codec.decode(view, "view", 3)
    assert (caught.value.code, caught.value.field) == ("schema", "seat")


def test_a_seat_writes_without_checking_but_within_the_size_limit() -> None:
    event = {"v": 1, "t": "event", "kind": "encoder", "steps": 99}
    assert json.loads(codec.dumps(event)) == event
    with pytest.raises(ProtocolError) as caught:
        codec.dumps({"v": 1, "t": "event", "kind": "card", "uid": "A" * 1024})
    assert caught.value.code == "too_large"
