# Which message type travels on which topic, and the hub's one call for anything a
# seat publishes: decode_from(topic, payload, seats) checks the topic, the payload,
# and that the message speaks for the seat whose topic it arrived on.

from riskproto import topics
from riskproto.messages import E_SCHEMA, E_UNKNOWN_SEAT, ProtocolError, decode

try:
    from typing import Any
except ImportError:
    pass

# Message type carried under each seat/<n>/ leaf.
LEAF_TYPES = (
    (topics.SEAT_STATUS, "seat_status"),
    (topics.SEAT_EVENT, "event"),
    (topics.SEAT_VIEW, "view"),
    (topics.SEAT_ACK, "ack"),
    (topics.SEAT_ERROR, "error"),
    (topics.SEAT_CMD, "cmd"),
)


def leaf_type(leaf: str) -> str:
    for name, mtype in LEAF_TYPES:
        if name == leaf:
            return mtype
    raise topics.TopicError("unknown seat topic leaf: " + str(leaf))


def check_route(leaf: str, seat_no: int, msg: "dict[str, Any]") -> None:
    # Raise ProtocolError unless msg is the type `leaf` carries and names seat_no.
    expected = leaf_type(leaf)
    if msg["t"] != expected:
        raise ProtocolError(
            E_SCHEMA, f"a {msg['t']} message does not belong on the {leaf} topic", "t"
        )
    if "seat" in msg and msg["seat"] != seat_no:
        raise ProtocolError(
            E_SCHEMA,
            f"field 'seat' is {msg['seat']} but the message came on seat {seat_no}'s topic",
            "seat",
        )


def decode_from(topic: str, data: bytes, seats: int) -> "tuple[int, str, dict[str, Any]]":
    # (seat, leaf, message) for a payload a seat published on `topic` of a table with
    # `seats` seats; ProtocolError for anything the hub must refuse. Raises TopicError
    # for a topic that is not a seat topic at all (the hub never subscribes to one).
    parsed = topics.parse_seat_topic(topic)
    if parsed is None:
        raise topics.TopicError("not a seat topic: " + topic)
    seat_no = parsed[1]
    leaf = parsed[2]
    if seat_no > seats:
        raise ProtocolError(
            E_UNKNOWN_SEAT, f"seat {seat_no} is not playing at this table of {seats}", "seat"
        )
    msg = decode(data)
    check_route(leaf, seat_no, msg)
    return (seat_no, leaf, msg)
