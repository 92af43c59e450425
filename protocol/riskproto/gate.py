# The hub's front door for everything seats publish: one call per MQTT message.
#
#   gate = HubGate("den", seats=4)
#   inbound = gate.receive(topic, payload)
#   publish every (topic, message) in inbound.replies
#   while inbound is not None and inbound.action == APPLY:
#       apply inbound.msg to the game and journal it (or, when inbound.error is set,
#       refuse it with that error: the contract refuses it, in its turn), then
#       publish gate.answered(seat, seq) (or answered(seat, seq, error) to refuse)
#       inbound = gate.release(seat)    # a held event that is next now, or None
#
# A seat's events are applied strictly in sequence order (riskproto/sequence.py): an
# event ahead of the next expected one is HELD, unanswered, and comes back from
# release() in its turn. Anything malformed, invalid, from a seat not at the table,
# far ahead, stale or repeated is answered with an error on the seat's error topic
# and never reaches the game: refusing changes no game state. Births and Wills
# update presence (and start a new sequence numbering when a seat rebooted).
#
# A repeat of an answered number is a `duplicate` only when it is the event answered
# under that number (its digest, riskproto/sequence.py): another event under an
# answered number (another device on the seat's account, a forged event) is refused
# with not_allowed naming `seq`, which the seat shows ("try again"), so no genuine
# press is taken for done because another event used its number.

try:
    from typing import Any
except ImportError:
    pass

from riskproto import MAX_MESSAGE_BYTES, topics
from riskproto.depth import loads as _loads
from riskproto.messages import (
    E_DUPLICATE,
    E_MALFORMED,
    E_NOT_ALLOWED,
    E_STALE,
    MAX_COUNTER,
    ProtocolError,
    error_reply,
    message,
)
from riskproto.presence import BIRTH, SeatPresence
from riskproto.routes import decode_from
from riskproto.sequence import AHEAD, DUPLICATE, HELD, NEW, REPEAT, SeqTracker, event_digest

# What the hub must do with a received message.
APPLY = "apply"  # the next event in order: act on it (or refuse it with `error`), then answered()
HOLD = "hold"  # ahead of the next expected event: kept, answered in its turn; nothing to do
PRESENCE = "presence"  # a birth or Will; `presence` says which (riskproto.presence)
REFUSED = "refused"  # answered with an error in `replies`; nothing else to do
IGNORE = "ignore"  # not a seat message of this table


class Inbound:
    # `seq` is the event's sequence number (APPLY, HOLD). For APPLY, `error` set means
    # the contract refuses the event (it did not validate; `msg` is None then): answer
    # it with that error. For HOLD, `repeat` tells a repeat of an event held already.
    # For REFUSED, `fault` is the exception the last-resort guard caught, if any.
    def __init__(
        self,
        action: str,
        seat: "int | None" = None,
        msg: "dict[str, Any] | None" = None,
        replies: "list[tuple[str, dict[str, Any]]] | None" = None,
        presence: "str | None" = None,
        seq: "int | None" = None,
        error: "ProtocolError | None" = None,
    ) -> None:
        self.action = action
        self.seat = seat
        self.msg = msg
        self.replies = replies if replies is not None else []
        self.presence = presence
        self.seq = seq
        self.error = error
        self.repeat = False
        self.fault = None  # type: Exception | None
        # REFUSED: another event than the one answered under this number came.
        self.conflict = False


def _seq_of(payload: bytes) -> "int | None":
    # The seq of a message refused before validation, so the seat's outbox can stop
    # retransmitting it; None when there is no usable one. An oversize payload is
    # never parsed, not even for this.
    if len(payload) > MAX_MESSAGE_BYTES:
        return None
    try:
        # The codec's own parser: a payload it calls malformed (NaN, Infinity, nested
        # too deep) has no seq.
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
        # Per seat, the (seq, digest) of the event handed out to APPLY and not yet
        # answered(): the digest the tracker keeps for that number once it is.
        self._in_hand = {}  # type: dict[int, tuple[int, str | None]]

    def tracker(self, seat: int) -> SeqTracker:
        return self.trackers[seat - 1]

    def _error(self, seat: int, exc: ProtocolError, seq: "int | None") -> Inbound:
        reply = (topics.seat(self.table, seat, topics.SEAT_ERROR), error_reply(exc, seq))
        return Inbound(REFUSED, seat, None, [reply])

    def receive(self, topic: str, payload: bytes) -> Inbound:
        parsed = topics.parse_seat_topic(topic)
        if parsed is None or parsed[0] != self.table or parsed[2] not in topics.SEAT_PUBLISHED:
            return Inbound(IGNORE)
        try:
            return self._receive(topic, payload, parsed[1], parsed[2])
        except Exception as exc:  # the last resort: every input is answered, once
            inbound = self._error(parsed[1], ProtocolError(
                E_MALFORMED, "the hub could not read this message"), None)
            inbound.fault = exc
            return inbound

    def _receive(self, topic: str, payload: bytes, seat: int, leaf: str) -> Inbound:
        try:
            seat, leaf, msg = decode_from(topic, payload, self.seats)
        except ProtocolError as exc:
            seq = _seq_of(payload)
            if seq is None or seat > self.seats or leaf != topics.SEAT_EVENT:
                return self._error(seat, exc, seq)
            return self._sequenced(seat, seq, None, exc)
        if leaf == topics.SEAT_STATUS:
            result = self.presence.apply(msg)
            if result == BIRTH:
                self.tracker(seat).birth(msg.get("boot"))
            return Inbound(PRESENCE, seat, msg, None, result)
        return self._sequenced(seat, msg["seq"], msg, None)

    def _sequenced(self, seat: int, seq: int, msg: "dict[str, Any] | None",
                   invalid: "ProtocolError | None") -> Inbound:
        # An event (or an invalid message naming an event's seq) judged by its number.
        tracker = self.tracker(seat)
        verdict = tracker.check(seq)
        digest = event_digest(msg) if msg is not None else None
        if verdict == NEW:
            self._in_hand[seat] = (seq, digest)
            return Inbound(APPLY, seat, msg, None, None, seq, invalid)
        if verdict in (HELD, REPEAT):
            if verdict == HELD:
                tracker.hold(seq, (msg, invalid, digest))
            held = Inbound(HOLD, seat, msg, None, None, seq)
            held.repeat = verdict == REPEAT
            return held
        if invalid is not None:
            return self._error(seat, invalid, seq)
        if verdict == AHEAD:
            expected = tracker.expected
            refusal = ProtocolError(
                E_NOT_ALLOWED, f"event {seq} is too far ahead: the hub expects {expected}", "seq")
        elif verdict == DUPLICATE:
            answered = tracker.digest(seq)
            if answered is not None and answered != digest:
                refused = self._error(seat, ProtocolError(
                    E_NOT_ALLOWED, f"event {seq} differs from the event {seq} answered: "
                    f"another device on seat {seat}'s account?", "seq"), seq)
                refused.conflict = True
                return refused
            refusal = ProtocolError(E_DUPLICATE, f"event {seq} was answered already", "seq")
        else:
            refusal = ProtocolError(E_STALE, f"event {seq} is too old to apply", "seq")
        return self._error(seat, refusal, seq)

    def release(self, seat: int) -> "Inbound | None":
        # The held event of `seat` that is next in order now (after answered()), as an
        # APPLY to act on like any other; None when the next one has not arrived.
        tracker = self.tracker(seat)
        seq = tracker.expected
        item = tracker.release()
        if item is None:
            return None
        self._in_hand[seat] = (seq, item[2])
        return Inbound(APPLY, seat, item[0], None, None, seq, item[1])

    def answered(
        self, seat: int, seq: int, error: "ProtocolError | None" = None
    ) -> "tuple[str, dict[str, Any]]":
        # Record that event `seq` of `seat` (the one APPLY gave) was applied (error
        # None: ack) or refused (e.g. E_NOT_ALLOWED); return the reply to publish.
        in_hand = self._in_hand.pop(seat, None)
        digest = in_hand[1] if in_hand is not None and in_hand[0] == seq else None
        self.tracker(seat).record(seq, digest)
        if error is None:
            return (topics.seat(self.table, seat, topics.SEAT_ACK), message("ack", seq=seq))
        return (topics.seat(self.table, seat, topics.SEAT_ERROR), error_reply(error, seq))
