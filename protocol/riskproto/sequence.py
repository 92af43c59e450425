# At-most-once delivery of seat events: the hub's tracker and the seat's outbox.
#
# A seat numbers its events 1, 2, 3, ... from power-on and keeps each in its outbox
# until the hub answers that sequence number (ack, or an error naming the seq). It
# retransmits unanswered events with growing delays, and all of them at once after a
# reconnect. The hub answers every event; it applies an event only when the tracker
# calls it NEW, so QoS 1 redelivery and seat retransmission are both harmless.
#
# Numbering restarts when a seat reboots; the seat's birth carries a `boot` number
# drawn at power-on, and the tracker starts afresh when that number changes.
#
# Both classes are pure: no clock reads, no I/O. Time comes in as milliseconds from
# any monotonic clock; `diff` (e.g. MicroPython's time.ticks_diff) handles clocks
# that wrap.

try:  # MicroPython has neither collections.abc nor typing
    from collections.abc import Callable
    from typing import Any
except ImportError:
    pass

from riskproto.messages import encode

NEW = "new"  # not answered yet: apply it, then record it
DUPLICATE = "duplicate"  # answered already: answer again, apply nothing
STALE = "stale"  # too old for the tracker to know: refuse it, apply nothing


class SeqTracker:
    # The hub's view of one seat's sequence numbers.
    #
    # It remembers which of the last `window` numbers up to the highest seen were
    # answered. Within that window an unanswered number is NEW even when it comes
    # after a higher one (MQTT keeps one connection's messages in order, so this is
    # only robustness); below it, a number is STALE. Nothing is recorded by check():
    # the hub calls record() once it has applied (journalled) or refused the event,
    # so a crash in between leaves it NEW.

    def __init__(self, window: int = 64) -> None:
        self.window = window
        self.boot = None  # type: int | None
        self.high = 0
        self._answered = set()  # type: set[int]

    def birth(self, boot: "int | None") -> bool:
        # A seat birth; True when it starts a new numbering (a reboot).
        if boot is None or boot == self.boot:
            return False
        self.boot = boot
        self.high = 0
        self._answered = set()
        return True

    def restore(self, boot: "int | None", applied: "list[int]") -> None:
        # Rebuild after a hub restart from the sequence numbers the journal holds for
        # this seat's current boot. Refused events are not journalled: a repeat of
        # one is judged afresh, which is harmless because a refusal changed nothing.
        self.boot = boot
        self.high = 0
        self._answered = set()
        for seq in applied:
            self.record(seq)

    def check(self, seq: int) -> str:
        if seq in self._answered:
            return DUPLICATE
        if seq > self.high - self.window:
            return NEW
        return STALE

    def record(self, seq: int) -> None:
        if seq > self.high:
            self.high = seq
        self._answered.add(seq)
        if len(self._answered) > self.window:
            floor = self.high - self.window
            self._answered = set(s for s in self._answered if s > floor)


def _subtract(a: int, b: int) -> int:
    return a - b


class Outbox:
    # The seat's bounded queue of unanswered events.
    #
    # add() numbers and encodes an event; due(now) returns the (seq, payload) pairs
    # to publish now; answered(seq) drops one. When full, the oldest entry is dropped
    # and counted in `dropped` (the hub then sees a gap, which it accepts). An entry
    # is sent at once, then again after `retry_ms`, and after each further silence
    # twice as long as the last, up to `max_retry_ms`. Times are only ever
    # subtracted (through `diff`), so a wrapping tick counter works.

    def __init__(
        self,
        seat: int,
        capacity: int = 16,
        retry_ms: int = 500,
        max_retry_ms: int = 8000,
        first_seq: int = 1,
        diff: "Callable[[int, int], int] | None" = None,
    ) -> None:
        self.seat = seat
        self.capacity = capacity
        self.retry_ms = retry_ms
        self.max_retry_ms = max_retry_ms
        self.next_seq = first_seq
        self.dropped = 0
        self._diff = diff if diff is not None else _subtract
        # Entries in sequence order: [seq, payload, last sent (None: not yet on
        # this connection), wait before the next send].
        self._entries = []  # type: list[list[Any]]

    def __len__(self) -> int:
        return len(self._entries)

    def add(self, msg: "dict[str, Any]") -> int:
        # Number `msg` (an event without seat and seq), queue it, return its seq.
        # Raises ProtocolError, queueing nothing, when the event is invalid.
        seq = self.next_seq
        msg["seat"] = self.seat
        msg["seq"] = seq
        payload = encode(msg)
        self.next_seq = seq + 1
        if len(self._entries) >= self.capacity:
            self._entries.pop(0)
            self.dropped += 1
        self._entries.append([seq, payload, None, self.retry_ms])
        return seq

    def due(self, now: int) -> "list[tuple[int, bytes]]":
        # Entries to publish now, oldest first; each is rescheduled with backoff.
        out = []
        for entry in self._entries:
            if entry[2] is None:
                entry[3] = self.retry_ms
            elif self._diff(now, entry[2]) >= entry[3]:
                entry[3] = min(entry[3] * 2, self.max_retry_ms)
            else:
                continue
            entry[2] = now
            out.append((entry[0], entry[1]))
        return out

    def answered(self, seq: int) -> bool:
        # The hub answered `seq` (ack or error); False if it was not waiting.
        for i in range(len(self._entries)):
            if self._entries[i][0] == seq:
                self._entries.pop(i)
                return True
        return False

    def reconnected(self) -> None:
        # A new connection: everything unanswered is due at once, backoff reset.
        for entry in self._entries:
            entry[2] = None

    def next_due(self, now: int) -> "int | None":
        # Milliseconds until the next entry is due (0 if one is), None when empty.
        best = None  # type: int | None
        for entry in self._entries:
            if entry[2] is None:
                return 0
            wait = max(0, entry[3] - self._diff(now, entry[2]))
            if best is None or wait < best:
                best = wait
        return best
