# Rotary encoder: quadrature decoding, an interrupt wrapper, and detents from a
# hardware quadrature counter (the ESP32's PCNT through machine.Encoder).
#
# The decoder is a pure state machine fed with the 2-bit contact state (A in bit 1,
# B in bit 0). A lookup table turns each (previous, current) pair into a quarter
# step of -1, 0 or +1; pairs where both contacts changed at once are physically
# impossible for a clean signal, so they are ignored rather than guessed. Quarter
# steps are summed and a detent is counted only when the contacts come back to a
# rest state after a full cycle in one direction. Contact bounce produces +1/-1
# pairs that cancel, and an aborted half-turn returns to rest with a partial sum
# that is thrown away, so neither ever produces a count.

import asyncio

from micropython import const

TYPE_CHECKING = False
if TYPE_CHECKING:
    from machine import Pin

# Index: (previous << 2) | current, with states in Gray order 00 -> 01 -> 11 -> 10
# for the clockwise direction. 0 marks no change or an impossible double change.
_QUARTER = (0, 1, -1, 0, -1, 0, 0, 1, 1, 0, 0, -1, 0, -1, 1, 0)

# A detented encoder rests where both its contacts are open (Bourns PEC11R datasheet,
# quadrature output table: the detents sit in the OFF-OFF span). An open contact reads
# the pull resistor's level, so with pull-ups (common to GND, as the seat is wired) the
# rest state is 11, with pull-downs 00. Full-cycle encoders step four quarters per
# detent; "half-step" ones rest at both 00 and 11 and step two.
REST_PULL_UP = const(3)
REST_PULL_DOWN = const(0)
_FULL_CYCLE = const(4)
_HALF_CYCLE = const(2)


def rest_state(pull: str) -> int:
    # The contact state at a detent for the pinout's "pull" setting ("up" or "down").
    return REST_PULL_UP if pull == "up" else REST_PULL_DOWN

_RING = const(64)
_RING_MASK = const(63)


class QuadratureDecoder:
    # rest: the contact state at a detent (rest_state()). A decoder resting at the wrong
    # state counts a detent at its midpoint, and loses the first click after start and
    # after each change of direction.
    def __init__(self, half_step: bool = False, initial: int = 0,
                 rest: int = REST_PULL_DOWN) -> None:
        self._cycle = _HALF_CYCLE if half_step else _FULL_CYCLE
        self._half = half_step
        self._rest = rest & 3
        self._state = initial & 3
        self._sub = 0
        self.invalid = 0

    def _at_rest(self, state: int) -> bool:
        return state == self._rest or (self._half and state == self._rest ^ 3)

    # Feed one contact state; returns +1 or -1 when a detent completes, else 0.
    def feed(self, state: int) -> int:
        state &= 3
        prev = self._state
        if state == prev:
            return 0
        self._state = state
        step = _QUARTER[(prev << 2) | state]
        if step == 0:
            self.invalid += 1
        self._sub += step
        if not self._at_rest(state):
            return 0
        sub = self._sub
        self._sub = 0
        if sub >= self._cycle:
            return 1
        if sub <= -self._cycle:
            return -1
        return 0


class Encoder:
    # pin_a and pin_b are machine.Pin-like objects (value(), irq()). The interrupt
    # handler stores the contact state in a fixed ring and sets a ThreadSafeFlag;
    # decoding happens in take(), called from a task. When the task falls behind by
    # more than the ring holds, new transitions are dropped and counted.
    def __init__(self, pin_a: "Pin", pin_b: "Pin", half_step: bool = False,
                 rest: int = REST_PULL_DOWN) -> None:
        self._a = pin_a
        self._b = pin_b
        self._ring = bytearray(_RING)
        self._head = 0
        self._tail = 0
        self.drops = 0
        self.flag = asyncio.ThreadSafeFlag()
        self._decoder = QuadratureDecoder(half_step, self._read(), rest)
        self._handler = self._on_edge
        trigger = pin_a.IRQ_RISING | pin_a.IRQ_FALLING
        pin_a.irq(handler=self._handler, trigger=trigger)
        pin_b.irq(handler=self._handler, trigger=trigger)

    def _read(self) -> int:
        return (int(self._a.value()) << 1) | int(self._b.value())

    def _on_edge(self, _pin: object) -> None:
        nxt = (self._head + 1) & _RING_MASK
        if nxt == self._tail:
            self.drops += 1
        else:
            self._ring[self._head] = (int(self._a.value()) << 1) | int(self._b.value())
            self._head = nxt
        self.flag.set()

    @property
    def invalid(self) -> int:
        return self._decoder.invalid

    # Decode everything recorded since the last call; returns the net detents.
    def take(self) -> int:
        total = 0
        decoder = self._decoder
        ring = self._ring
        while self._tail != self._head:
            total += decoder.feed(ring[self._tail])
            self._tail = (self._tail + 1) & _RING_MASK
        return total

    async def turned(self) -> int:
        # Waits for edges until at least one full detent has been decoded.
        while True:
            await self.flag.wait()
            n = self.take()
            if n:
                return n


class CountedEncoder:
    # Detents from a hardware quadrature counter: anything with value() counting
    # `per_detent` edges a detent (machine.Encoder with phases=4 on the ESP32's PCNT,
    # which counts every edge in hardware, so no edge is lost while the CPU is busy
    # drawing the display or serving Wi-Fi, as deferred pin IRQs may be). The counter
    # starts at 0 at a detent; a detent counts once the count reaches the next
    # detent's value, so a half turn that comes back counts nothing, and contact
    # bounce (an edge and its undo) cancels in the counter itself.
    def __init__(self, counter: object, per_detent: int = _FULL_CYCLE,
                 poll_ms: int = 20) -> None:
        self._counter = counter
        self._per = per_detent
        self._poll_ms = poll_ms
        self._detent = 0  # the detent the knob last reached, in detents from the start

    def take(self) -> int:
        value = self._counter.value()  # type: ignore[attr-defined]
        per = self._per
        at = self._detent
        if value >= (at + 1) * per:
            reached = value // per
        elif value <= (at - 1) * per:
            reached = -((-value) // per)
        else:
            return 0
        self._detent = reached
        return reached - at

    async def turned(self) -> int:
        # A counter has no per-edge interrupt here: it is read every poll_ms (a
        # person's fastest spin is well under one detent per poll).
        while True:
            await asyncio.sleep_ms(self._poll_ms)
            n = self.take()
            if n:
                return n
