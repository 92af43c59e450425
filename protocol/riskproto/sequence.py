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
# drawn at power-on, and the tracker starts afresh when that number changes. It
# remembers how far every boot it followed had got, so a boot born again (a device
# that another one on the same seat account had displaced, reconnecting) carries on
# from its next number.
#
# Each answered number keeps a digest of the event answered under it (event_digest),
# for the last `window` numbers of each boot: a repeat that differs from what was
# answered is not the same event, and the hub refuses it rather than calling it a
# duplicate (riskproto/gate.py).
#
# Pure: no clock reads, no I/O.

import hashlib
import json

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


def _canonical(value: "Any") -> str:
    # One text per decoded message whatever its key order or spacing on the wire
    # (MicroPython's json has no sort_keys).
    if isinstance(value, dict):
        return "{" + ",".join([json.dumps(k) + ":" + _canonical(value[k])
                               for k in sorted(value)]) + "}"
    if isinstance(value, list):
        return "[" + ",".join([_canonical(v) for v in value]) + "]"
    return json.dumps(value)


def event_digest(msg: "dict[str, Any]") -> str:
    # The digest of a decoded event: equal for every copy of one event (a
    # retransmission, a QoS 1 redelivery, the journal's copy after a restart),
    # different for another event under the same number. 16 hex digits.
    digest = hashlib.sha256(_canonical(msg).encode()).digest()
    return "".join(["%02x" % b for b in digest[:8]])


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
        # The highest number answered under each boot (the journal's at restore(),
        # then every record()): a boot born again continues from there.
        self._known = {}  # type: dict[int | None, int]
        # (boot, seq) -> the digest of the event answered under that number, for the
        # last `window` numbers of each boot; an answer without one (a refusal of an
        # invalid event) keeps none.
        self._digests = {}  # type: dict[tuple[int | None, int], str]

    def birth(self, boot: "int | None") -> bool:
        # A seat birth; True when it starts another numbering (a reboot, another
        # device on the seat's account, or that device's boot again): the tracker
        # follows `boot` from the number after the last it answered under it, and
        # held events of the boot it leaves are discarded (their seat resends them).
        if boot is None or boot == self.boot:
            return False
        self.boot = boot
        self.expected = self._known.get(boot, 0) + 1
        self._held = {}
        return True

    def restore(self, boot: "int | None", known: "dict[int | None, int]",
                digests: "dict[tuple[int | None, int], str] | None" = None) -> None:
        # Rebuild after a hub restart: `known` maps each boot of this seat to the
        # highest number answered under it (applied or refused), `boot` is the one
        # to follow until a birth names another; `digests` the digests of the
        # events the journal holds in each boot's window.
        self._known = dict(known)
        self._digests = {}
        for key in digests or {}:
            if key[1] > self._known.get(key[0], 0) - self.window:
                self._digests[key] = (digests or {})[key]
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

    def record(self, seq: int, digest: "str | None" = None) -> None:
        # The expected event was answered (applied or refused): the window moves on,
        # keeping the answered event's digest (None: not known) for its number.
        if seq != self.expected:
            raise ValueError("only the expected number can be recorded")
        self.expected = seq + 1
        self._known[self.boot] = seq
        self._digests.pop((self.boot, seq - self.window - 1), None)
        if digest is not None:
            self._digests[(self.boot, seq)] = digest

    def digest(self, seq: int) -> "str | None":
        # The digest of the event answered as `seq` under the boot followed now, if
        # the tracker keeps one.
        return self._digests.get((self.boot, seq))

    def release(self) -> "Any":
        # The held item that is now next in order, taken out; None if there is none.
        return self._held.pop(self.expected, None)
