# The hub's front door for everything seats publish: one call per MQTT message.
#
#   gate = HubGate("den", seats=4)
#   inbound = gate.receive(topic, payload)
#   publish every (topic, message) in inbound.replies
#   if inbound.action == APPLY: apply inbound.msg to the game, journal it, then
#       publish gate.answered(seat, seq) (or answered(seat, seq, error) to refuse)
#
# Anything malformed, invalid, from a seat not at the table, stale or repeated is
# answered with an error on the seat's error topic and never reaches the game:
# refusing changes no game state. Births and Wills update presence (and start a new
# sequence numbering when a seat rebooted).

try:
    from typing import Any
except ImportError:
    pass

from riskproto import topics
from riskproto.codec import _loads
from riskproto.messages import (
    E_DUPLICATE,
    E_STALE,
    MAX_COUNTER,
    ProtocolError,
    error_reply,
    message,
)
from riskproto.presence import BIRTH, SeatPresence
from riskproto.routes import decode_from
from riskproto.sequence import DUPLICATE, NEW, SeqTracker

# What the hub must do with a received message.
APPLY = "apply"  # a new event: act on it, then call answered()
PRESENCE = "presence"  # a birth or Will; `presence` says which (riskproto.presence)
REFUSED = "refused"  # answered with an error in `replies`; nothing else to do
IGNORE = "ignore"  # not a seat message of this table


class Inbound:
    def __init__(
        self,
        action: str,
        seat: "int | None" = None,
        msg: "dict[str, Any] | None" = None,
        replies: "list[tuple[str, dict[str, Any]]] | None" = None,
        presence: "str | None" = None,
    ) -> None:
        self.action = action
        self.seat = seat
        self.msg = msg
        self.replies = replies if replies is not None else []
        self.presence = presence


def _seq_of(payload: bytes) -> "int | None":
    # The seq of a message refused before validation, so the seat's outbox can stop
    # retransmitting it; None when there is no usable one.
    try:
        # The codec's own parser: a payload it calls malformed (NaN, Infinity) has no seq.
        doc = _loads(payload)
    except (ValueError, UnicodeError):
        return None
    if not isinstance(doc, dict):
        return None
    seq = doc.get("seq")
    if isinstance(seq, int) and not isinstance(seq, bool) and 1 <= seq <= MAX_COUNTER:
        return seq
    return None


class HubGate:
    def __init__(self, table: str, seats: int, window: int = 64) -> None:
        self.table = topics.check_table(table)
        self.seats = seats
        self.presence = SeatPresence(seats)
        self.trackers = [SeqTracker(window) for _ in range(seats)]

    def tracker(self, seat: int) -> SeqTracker:
        return self.trackers[seat - 1]

    def _error(self, seat: int, exc: ProtocolError, seq: "int | None") -> Inbound:
        reply = (topics.seat(self.table, seat, topics.SEAT_ERROR), error_reply(exc, seq))
        return Inbound(REFUSED, seat, None, [reply])

    def receive(self, topic: str, payload: bytes) -> Inbound:
        parsed = topics.parse_seat_topic(topic)
        if parsed is None or parsed[0] != self.table or parsed[2] not in topics.SEAT_PUBLISHED:
            return Inbound(IGNORE)
        seat = parsed[1]
        try:
            seat, leaf, msg = decode_from(topic, payload, self.seats)
        except ProtocolError as exc:
            return self._error(seat, exc, _seq_of(payload))
        if leaf == topics.SEAT_STATUS:
            result = self.presence.apply(msg)
            if result == BIRTH:
                self.tracker(seat).birth(msg.get("boot"))
            return Inbound(PRESENCE, seat, msg, None, result)
        seq = msg["seq"]
        verdict = self.tracker(seat).check(seq)
        if verdict == NEW:
            return Inbound(APPLY, seat, msg)
        if verdict == DUPLICATE:
            refusal = ProtocolError(E_DUPLICATE, f"event {seq} was answered already", "seq")
        else:
            refusal = ProtocolError(E_STALE, f"event {seq} is too old to apply", "seq")
        return self._error(seat, refusal, seq)

    def answered(
        self, seat: int, seq: int, error: "ProtocolError | None" = None
    ) -> "tuple[str, dict[str, Any]]":
        # Record that event `seq` of `seat` was applied (error None: ack) or refused
        # (e.g. E_NOT_ALLOWED); return the reply to publish.
        self.tracker(seat).record(seq)
        if error is None:
            return (topics.seat(self.table, seat, topics.SEAT_ACK), message("ack", seq=seq))
        return (topics.seat(self.table, seat, topics.SEAT_ERROR), error_reply(error, seq))
