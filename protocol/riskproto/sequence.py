# At-most-once delivery of seat events: the hub's tracker here, the seat's outbox in
# riskproto/outbox.py (re-exported here).
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

from riskproto.outbox import Outbox as Outbox

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
