# Exactly-once, in-order delivery of seat events: the hub's tracker here, the seat's
# outbox in riskproto/outbox.py (re-exported here).
#
# A seat numbers its events 1, 2, 3, ... from power-on and keeps each in its outbox
# (at most OUTBOX_CAPACITY) until the hub answers that sequence number (ack, or an
# error naming the seq). It retransmits unanswered events, oldest first. The hub
# applies a seat's events strictly in sequence order, each once: the tracker keeps
# the next number it expects, holds a few events that arrive ahead of it, and calls
# everything below it a repeat. QoS 1 redelivery, seat retransmission and a
# reordering after a reconnect are therefore all harmless.
#
# Numbering restarts when a seat reboots; the seat's birth carries a `boot` number
# drawn at power-on, and the tracker starts afresh when that number changes.
#
# Pure: no clock reads, no I/O.

from riskproto import OUTBOX_CAPACITY
from riskproto.outbox import Outbox as Outbox

try:
    from typing import Any
except ImportError:
    pass

NEW = "new"  # the next number expected: apply it, then record it
HELD = "held"  # ahead of the next expected, within reach: hold it, answer it in its turn
REPEAT = "repeat"  # held already: its answer comes when it is applied
AHEAD = "ahead"  # too far ahead for any genuine seat: refuse it, the window stays
DUPLICATE = "duplicate"  # answered already: answer again, apply nothing
STALE = "stale"  # too old for the tracker to know: refuse it, apply nothing


class SeqTracker:
    # The hub's view of one seat's sequence numbers under one boot.
    #
    # `expected` is the next number the hub will apply. Every number below it was
    # answered, in order (the hub answers only the expected number), so the last
    # `window` below it are DUPLICATE and older ones STALE. Up to OUTBOX_CAPACITY - 1
    # numbers above it are HELD (the seat cannot have more unanswered events than its
    # outbox holds); anything further is AHEAD and moves nothing, so one forged event
    # with a huge number cannot make every genuine one stale. Nothing is recorded by
    # check(): the hub calls record() once it has applied (journalled) or refused the
    # expected event, so a crash in between leaves it NEW.

    def __init__(self, window: int = 64, reach: int = OUTBOX_CAPACITY) -> None:
        self.window = window
        self.reach = reach
        self.boot = None  # type: int | None
        self.expected = 1
        self._held = {}  # type: dict[int, Any]
        # The highest number answered under each boot the journal knows (restore()).
        self._known = {}  # type: dict[int | None, int]

    def birth(self, boot: "int | None") -> bool:
        # A seat birth; True when it starts a new numbering (a reboot, or a boot this
        # tracker was not following): held events of the old boot are discarded.
        if boot is None or boot == self.boot:
            return False
        self.boot = boot
        self.expected = self._known.get(boot, 0) + 1
        self._held = {}
        return True

    def restore(self, boot: "int | None", known: "dict[int | None, int]") -> None:
        # Rebuild after a hub restart: `known` maps each boot of this seat to the
        # highest number answered under it (applied or refused), `boot` is the one
        # to follow until a birth names another.
        self._known = dict(known)
        self.boot = boot
        self.expected = self._known.get(boot, 0) + 1
        self._held = {}

    def check(self, seq: int) -> str:
        if seq == self.expected:
            return NEW
        if seq > self.expected:
            if seq >= self.expected + self.reach:
                return AHEAD
            return REPEAT if seq in self._held else HELD
        if seq >= self.expected - self.window:
            return DUPLICATE
        return STALE

    def hold(self, seq: int, item: "Any") -> None:
        # Keep `item` (whatever the caller applies later) for a HELD number.
        if self.check(seq) != HELD:
            raise ValueError("only a held number can be held")
        self._held[seq] = item

    def held(self) -> int:
        return len(self._held)

    def record(self, seq: int) -> None:
        # The expected event was answered (applied or refused): the window moves on.
        if seq != self.expected:
            raise ValueError("only the expected number can be recorded")
        self.expected = seq + 1

    def release(self) -> "Any":
        # The held item that is now next in order, taken out; None if there is none.
        return self._held.pop(self.expected, None)
