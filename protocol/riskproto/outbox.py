# The seat's side of at-most-once delivery (riskproto/sequence.py explains it): the
# outbox that numbers events and resends them until the hub answers. Apart from the
# hub's tracker, so that a seat does not load the tracker into its small heap.

try:  # MicroPython has neither collections.abc nor typing
    from collections.abc import Callable
    from typing import Any
except ImportError:
    pass

from riskproto.messages import encode


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
