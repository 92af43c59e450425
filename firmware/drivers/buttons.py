# Push buttons: debounce, press and long press.
#
# ButtonLogic is a pure state machine: it is told the raw contact level and the
# time, and decides. A new raw level must hold for debounce_ms before it counts,
# so bounce on either edge is absorbed. A press that is released before long_ms
# is reported as PRESS at release; one held for long_ms is reported as LONG_PRESS
# at that moment (the player need not let go to see it act), and its release is
# silent. Times are ticks_ms values and compared with ticks_diff, so wrap-around
# of the millisecond counter is harmless.
#
# Button wraps a pin: its interrupt handler only sets a ThreadSafeFlag, and the
# task in events() samples the pin while something is in progress.

import asyncio
import time

from micropython import const

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

    from machine import Pin

PRESS = "press"
LONG_PRESS = "long_press"

_IDLE = const(0)
_HELD = const(1)
_LONG_SENT = const(2)

# While a press is unresolved the task samples the pin at this period.
_SAMPLE_MS = const(5)


class ButtonLogic:
    def __init__(self, debounce_ms: int = 25, long_ms: int = 700) -> None:
        self.debounce_ms = debounce_ms
        self.long_ms = long_ms
        self._raw = False
        self._raw_since = 0
        self._stable = False
        self._phase = _IDLE
        self._down_at = 0
        self._edge_at = 0
        self._seen = False

    # True while the logic needs more samples to reach a decision (bounce not
    # settled, or a press that may still become long).
    def busy(self) -> bool:
        return self._raw != self._stable or self._phase == _HELD

    def update(self, pressed: bool, now: int) -> "str | None":
        if pressed != self._raw:
            if self._raw == self._stable and (
                    not self._seen or time.ticks_diff(now, self._raw_since) >= self.debounce_ms):
                # First edge after a quiet spell: the press or release began here,
                # even if the contact bounces back for a moment.
                self._edge_at = now
            self._seen = True
            self._raw = pressed
            self._raw_since = now
        if self._raw != self._stable and time.ticks_diff(now, self._raw_since) >= self.debounce_ms:
            self._stable = self._raw
            if self._stable:
                self._phase = _HELD
                # The press began when the contact first closed, not when it settled.
                self._down_at = self._edge_at
            else:
                phase = self._phase
                self._phase = _IDLE
                if phase == _HELD:
                    return PRESS
                return None
        # An open contact that has not settled yet holds back the long press: it may
        # be the start of a release.
        if self._phase == _HELD and self._raw and \
                time.ticks_diff(now, self._down_at) >= self.long_ms:
            self._phase = _LONG_SENT
            return LONG_PRESS
        return None


class Button:
    # pin: machine.Pin-like. active_low: the usual wiring, a switch to ground with a
    # pull-up. ticks_ms is injected so tests can drive time.
    def __init__(self, pin: "Pin", ticks_ms: "Callable[[], int] | None" = None,
                 active_low: bool = True,
                 debounce_ms: int = 25, long_ms: int = 700) -> None:
        self._pin = pin
        # The stubs give ticks_ms an opaque return type; ticks are ints here.
        self._ticks: "Callable[[], int]" = (
            ticks_ms if ticks_ms is not None else time.ticks_ms)  # type: ignore[assignment]
        self._active_low = active_low
        self.logic = ButtonLogic(debounce_ms, long_ms)
        self.flag = asyncio.ThreadSafeFlag()
        pin.irq(handler=self._on_edge, trigger=pin.IRQ_RISING | pin.IRQ_FALLING)

    def _on_edge(self, _pin: object) -> None:
        self.flag.set()

    def pressed(self) -> bool:
        return bool(self._pin.value()) != self._active_low

    def sample(self) -> "str | None":
        return self.logic.update(self.pressed(), self._ticks())

    async def next_event(self) -> str:
        # Sleeps on the edge flag while idle; samples every few ms only while a
        # press is being resolved.
        while True:
            if not self.logic.busy():
                await self.flag.wait()
            event = self.sample()
            if event is not None:
                return event
            await asyncio.sleep_ms(_SAMPLE_MS)
