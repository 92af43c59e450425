# The seat's side of at-most-once delivery (riskproto/sequence.py explains it): the
# outbox that numbers events and resends them until the hub answers. Apart from the
# hub's tracker, so that a seat does not load the tracker into its small heap.

try:  # MicroPython has neither collections.abc nor typing
    from collections.abc import Callable
    from typing import Any
except ImportError:
    pass

from riskproto import OUTBOX_CAPACITY
from riskproto.codec import dumps


class Outbox:
    # The seat's bounded queue of unanswered events.
    #
    # add() numbers and serialises an event; due(now) gives the next payload to
    # publish now, one at a time and oldest first, until it gives None; answered(seq)
    # drops one. Nothing a person made is ever dropped: a full outbox refuses the new
    # event (add() gives 0 and numbers nothing), and the seat says so and takes no
    # input until the hub answers. The hub applies events strictly in order, so a gap
    # would stall the seat. An entry is sent at once, then again after `retry_ms`,
    # and after each further silence twice as long as the last, up to `max_retry_ms`.
    # Times are only ever subtracted (through `diff`, plain subtraction by default),
    # so a wrapping tick counter works. The seat polls due() often, and once an event
    # is queued nothing here leaves garbage for the collector. (A call whose locals and
    # stack take more than 11 slots gets its frame from the heap, but gives it back on
    # return, and takes the C stack when the heap has no room.)
    #
    # Events are not checked here: the hub checks every event and answers an invalid
    # one with an error naming its seq, which closes it like an ack.

    def __init__(
        self,
        seat: int,
        capacity: int = OUTBOX_CAPACITY,
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
        self._diff = diff
        # Entries in sequence order, four slots each: seq, payload, last sent (None:
        # not yet on this connection), wait before the next send. The list has its full
        # size from the start and never grows: in a seat's small, fragmented heap a list
        # that grows needs a larger free block just when the queue is fullest.
        self._q = [None] * (4 * capacity)  # type: list[Any]
        self._n = 0

    def __len__(self) -> int:
        return self._n

    def full(self) -> bool:
        return self._n >= self.capacity

    def add(self, msg: "dict[str, Any]") -> int:
        # Number `msg` (an event without seat and seq), queue it, return its seq; 0,
        # numbering and queueing nothing, when the outbox is full. Raises
        # ProtocolError, queueing nothing, when it is too large to send.
        if self._n >= self.capacity:
            return 0
        seq = self.next_seq
        msg["seat"] = self.seat
        msg["seq"] = seq
        payload = dumps(msg)
        self.next_seq = seq + 1
        q = self._q
        i = 4 * self._n
        q[i] = seq
        q[i + 1] = payload
        q[i + 2] = None
        q[i + 3] = self.retry_ms
        self._n += 1
        return seq

    def due(self, now: int) -> "bytes | None":
        # The payload of the oldest entry due now, rescheduled with backoff; None when
        # none is. An entry sent at `now` is not due again at `now`, so calling due(now)
        # until it gives None sends each due entry once, without building a list.
        q = self._q
        for i in range(0, 4 * self._n, 4):
            last = q[i + 2]
            if last is None:
                q[i + 3] = self.retry_ms
            else:
                waited = now - last if self._diff is None else self._diff(now, last)
                if waited <= 0 or waited < q[i + 3]:
                    continue
                q[i + 3] = min(q[i + 3] * 2, self.max_retry_ms)
            q[i + 2] = now
            payload = q[i + 1]  # type: bytes
            return payload
        return None

    def answered(self, seq: int) -> bool:
        # The hub answered `seq` (ack or error); False if it was not waiting. Its entry
        # goes, the later ones move up a place, in place.
        q = self._q
        end = 4 * self._n
        for i in range(0, end, 4):
            if q[i] == seq:
                for j in range(i, end - 4):
                    q[j] = q[j + 4]
                for j in range(end - 4, end):
                    q[j] = None
                self._n -= 1
                return True
        return False

    def reconnected(self) -> None:
        # A new connection: everything unanswered is due at once, backoff reset.
        q = self._q
        for i in range(2, 4 * self._n, 4):
            q[i] = None
