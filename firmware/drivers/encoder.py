# Rotary encoder: quadrature decoding and an interrupt wrapper.
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

# Most panel encoders rest at 00 and step four quarters per detent; "half-step"
# ones rest at both 00 and 11 and step two.
_FULL_CYCLE = const(4)
_HALF_CYCLE = const(2)

_RING = const(64)
_RING_MASK = const(63)


class QuadratureDecoder:
    def __init__(self, half_step: bool = False, initial: int = 0) -> None:
        self._cycle = _HALF_CYCLE if half_step else _FULL_CYCLE
        self._half = half_step
        self._state = initial & 3
        self._sub = 0
        self.invalid = 0

    def _at_rest(self, state: int) -> bool:
        return state == 0 or (self._half and state == 3)

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
    def __init__(self, pin_a: "Pin", pin_b: "Pin", half_step: bool = False) -> None:
        self._a = pin_a
        self._b = pin_b
        self._ring = bytearray(_RING)
        self._head = 0
        self._tail = 0
        self.drops = 0
        self.flag = asyncio.ThreadSafeFlag()
        self._decoder = QuadratureDecoder(half_step, self._read())
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
