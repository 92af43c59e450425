"""Topic builders and parsers, and the hub's checks of where a message arrived."""

from __future__ import annotations

import pytest

from riskproto import topics
from riskproto.messages import E_SCHEMA, E_UNKNOWN_SEAT, ProtocolError, encode, message
from riskproto.routes import decode_from, leaf_type


def test_builders_and_parser_agree() -> None:
    for leaf in topics.SEAT_LEAVES:
        topic = topics.seat("t-1", 4, leaf)
        assert topic == f"risk/t-1/seat/4/{leaf}"
        assert topics.parse_seat_topic(topic) == ("t-1", 4, leaf)
    assert topics.hub_status("t") == "risk/t/hub/status"
    assert topics.board("t") == "risk/t/board"
    assert topics.parse_seat_topic("risk/t/board") is None
    assert topics.parse_seat_topic("risk/t/seat/7/event") is None
    assert topics.parse_seat_topic("risk/t/seat/1/other") is None


@pytest.mark.parametrize("table", ["", "a/b", "a+", "#", "x" * 33])
def test_bad_table_ids_are_refused(table: str) -> None:
    with pytest.raises(topics.TopicError):
        topics.board(table)


def test_subscriptions() -> None:
    assert topics.hub_subscriptions("t") == ["risk/t/seat/+/status", "risk/t/seat/+/event"]
    assert topics.seat_subscriptions("t", 2) == [
        "risk/t/hub/status",
        "risk/t/seat/2/view",
        "risk/t/seat/2/ack",
        "risk/t/seat/2/error",
        "risk/t/seat/2/cmd",
    ]


def test_every_leaf_has_a_message_type() -> None:
    assert [leaf_type(leaf) for leaf in topics.SEAT_LEAVES] == [
        "seat_status",
        "event",
        "view",
        "ack",
        "error",
        "cmd",
    ]


def _event(seat: int) -> bytes:
    return encode(message("event", seat=seat, seq=1, kind="resync"))


def test_decode_from_accepts_a_seat_speaking_for_itself() -> None:
    assert decode_from("risk/t/seat/2/event", _event(2), seats=3)[:2] == (2, "event")


def test_decode_from_refuses_a_seat_speaking_for_another() -> None:
    with pytest.raises(ProtocolError) as caught:
        decode_from("risk/t/seat/2/event", _event(1), seats=3)
    assert (caught.value.code, caught.value.field) == (E_SCHEMA, "seat")


def test_decode_from_refuses_a_seat_not_at_the_table() -> None:
    with pytest.raises(ProtocolError) as caught:
        decode_from("risk/t/seat/4/event", _event(4), seats=3)
    assert caught.value.code == E_UNKNOWN_SEAT


def test_decode_from_refuses_the_wrong_type_for_the_topic() -> None:
    with pytest.raises(ProtocolError) as caught:
        decode_from("risk/t/seat/1/event", encode(message("ack", seq=3)), seats=3)
    assert caught.value.field == "t"
