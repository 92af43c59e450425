# The seat's side of at-most-once delivery (riskproto/sequence.py explains it): the
# outbox that numbers events and resends them until the hub answers. Apart from the
# hub's tracker, so that a seat does not load the tracker into its small heap.

try:  # MicroPython has neither collections.abc nor typing
    from collections.abc import Callable
    from typing import Any
except ImportError:
    pass

from riskproto.codec import dumps


def _subtract(a: int, b: int) -> int:
    return a - b


class Outbox:
    # The seat's bounded queue of unanswered events.
    #
    # add() numbers and serialises an event; due(now) returns the (seq, payload) pairs
    # to publish now; answered(seq) drops one. When full, the oldest entry is dropped
    # and counted in `dropped` (the hub then sees a gap, which it accepts). An entry
    # is sent at once, then again after `retry_ms`, and after each further silence
    # twice as long as the last, up to `max_retry_ms`. Times are only ever
    # subtracted (through `diff`), so a wrapping tick counter works.
    #
    # Events are not checked here: the hub checks every event and answers an invalid
    # one with an error naming its seq, which closes it like an ack.

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
        # Entries in sequence order, four slots each: seq, payload, last sent (None:
        # not yet on this connection), wait before the next send. The list has its full
        # size from the start and never grows: in a seat's small, fragmented heap a list
        # that grows needs a larger free block just when the queue is fullest.
        self._q = [None] * (4 * capacity)  # type: list[Any]
        self._n = 0

    def __len__(self) -> int:
        return self._n

    def _remove(self, i: int) -> None:
        # Drop the entry at slot i, moving the later ones up (no allocation).
        q = self._q
        end = 4 * self._n - 4
        for j in range(i, end):
            q[j] = q[j + 4]
        for j in range(end, end + 4):
            q[j] = None
        self._n -= 1

    def add(self, msg: "dict[str, Any]") -> int:
        # Number `msg` (an event without seat and seq), queue it, return its seq.
        # Raises ProtocolError, queueing nothing, when it is too large to send.
        seq = self.next_seq
        msg["seat"] = self.seat
        msg["seq"] = seq
        payload = dumps(msg)
        self.next_seq = seq + 1
        if self._n >= self.capacity:
            self._remove(0)
            self.dropped += 1
        q = self._q
        i = 4 * self._n
        q[i] = seq
        q[i + 1] = payload
        q[i + 2] = None
        q[i + 3] = self.retry_ms
        self._n += 1
        return seq

    def due(self, now: int) -> "list[tuple[int, bytes]]":
        # Entries to publish now, oldest first; each is rescheduled with backoff.
        out = []
        q = self._q
        for i in range(0, 4 * self._n, 4):
            if q[i + 2] is None:
                q[i + 3] = self.retry_ms
            elif self._diff(now, q[i + 2]) >= q[i + 3]:
                q[i + 3] = min(q[i + 3] * 2, self.max_retry_ms)
            else:
                continue
            q[i + 2] = now
            out.append((q[i], q[i + 1]))
        return out

    def answered(self, seq: int) -> bool:
        # The hub answered `seq` (ack or error); False if it was not waiting.
        q = self._q
        for i in range(0, 4 * self._n, 4):
            if q[i] == seq:
                self._remove(i)
                return True
        return False

    def reconnected(self) -> None:
        # A new connection: everything unanswered is due at once, backoff reset.
        q = self._q
        for i in range(2, 4 * self._n, 4):
            q[i] = None

    def next_due(self, now: int) -> "int | None":
        # Milliseconds until the next entry is due (0 if one is), None when empty.
        best = None  # type: int | None
        q = self._q
        for i in range(0, 4 * self._n, 4):
            if q[i + 2] is None:
                return 0
            wait = max(0, q[i + 3] - self._diff(now, q[i + 2]))
            if best is None or wait < best:
                best = wait
        return best
