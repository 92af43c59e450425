"""The hub panel on the Raspberry Pi's GPIO: buttons, status LED, buzzer.

Built on gpiozero so the same code runs on a Pi and, with gpiozero's
``MockFactory``, in tests. The panel knows nothing of the game: it reports
presses through callbacks and shows the status it is given.

>>> from gpiozero import Device
>>> from gpiozero.pins.mock import MockFactory
>>> Device.pin_factory = MockFactory()
>>> pressed = []
>>> panel = Panel(PanelPins(), on_start_pause=lambda: pressed.append("start"))
>>> Device.pin_factory.pin(PanelPins().start_pause).drive_low()
>>> pressed
['start']
>>> panel.close()
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

from gpiozero import LED, Button, Buzzer


@dataclass(frozen=True)
class PanelPins:
    """BCM pin numbers of the panel parts (defaults: see hardware/README.md)."""

    start_pause: int = 17
    undo: int = 27
    status_led: int = 22
    buzzer: int = 23  # an active buzzer through a transistor
    undo_hold_seconds: float = 1.5


class PanelStatus(enum.Enum):
    """What the status LED says, from least to most urgent."""

    DISCONNECTED = "disconnected"  # off: no broker
    CONNECTED = "connected"        # steady: broker up, no game running
    RUNNING = "running"            # slow blink: a game is in progress
    FAULT = "fault"                # fast blink: needs the referee


_BLINK = {PanelStatus.RUNNING: (1.0, 1.0), PanelStatus.FAULT: (0.15, 0.15)}


class Panel:
    """Start/pause button, referee undo (long press only, so it is never hit
    by accident), status LED and buzzer."""

    def __init__(
        self,
        pins: PanelPins,
        *,
        on_start_pause: Callable[[], None] | None = None,
        on_undo: Callable[[], None] | None = None,
    ) -> None:
        self.pins = pins
        self._start = Button(pins.start_pause, pull_up=True, bounce_time=None)
        self._undo = Button(pins.undo, pull_up=True, hold_time=pins.undo_hold_seconds)
        self._led = LED(pins.status_led)
        self._buzzer = Buzzer(pins.buzzer)
        self.status = PanelStatus.DISCONNECTED
        if on_start_pause is not None:
            self._start.when_pressed = lambda: on_start_pause()
        if on_undo is not None:
            self._undo.when_held = lambda: on_undo()

    def show(self, status: PanelStatus) -> None:
        """Set the status LED's pattern."""
        self.status = status
        if status is PanelStatus.DISCONNECTED:
            self._led.off()
        elif status is PanelStatus.CONNECTED:
            self._led.on()
        else:
            on_time, off_time = _BLINK[status]
            self._led.blink(on_time=on_time, off_time=off_time)

    def error_beep(self) -> None:
        """One short beep: an input was rejected."""
        self._buzzer.beep(on_time=0.15, off_time=0.1, n=1, background=True)

    def victory(self) -> None:
        """Five quick beeps: someone won."""
        self._buzzer.beep(on_time=0.2, off_time=0.1, n=5, background=True)

    def close(self) -> None:
        for device in (self._start, self._undo, self._led, self._buzzer):
            device.close()
