"""The hub panel on the Raspberry Pi's GPIO: buttons, status LED, buzzer.

Built on gpiozero so the same code runs on a Pi and, with gpiozero's
``MockFactory``, in tests. The panel knows nothing of the game: it reports
presses through callbacks and shows the status it is given.

>>> from gpiozero import Device
>>> from gpiozero.pins.mock import MockFactory, MockPWMPin
>>> Device.pin_factory = MockFactory(pin_class=MockPWMPin)
>>> pressed = []
>>> panel = Panel(PanelPins(), on_start_pause=lambda: pressed.append("start"))
>>> Device.pin_factory.pin(PanelPins().start_pause).drive_low()
>>> pressed
['start']
>>> panel.close()
"""

from __future__ import annotations

import enum
import threading
import time
from collections.abc import Callable

from gpiozero import LED, Button, PWMOutputDevice

from risktable.hardware.panel_pins import PanelPins


class PanelStatus(enum.Enum):
    """What the status LED says, from least to most urgent."""

    DISCONNECTED = "disconnected"  # off: no broker
    CONNECTED = "connected"        # steady: broker up, no game running
    RUNNING = "running"            # slow blink: a game is in progress
    FAULT = "fault"                # fast blink: needs the referee
    STORAGE_FULL = "storage_full"  # short flashes, long gaps: the journal's disk is full


_BLINK = {PanelStatus.RUNNING: (1.0, 1.0), PanelStatus.FAULT: (0.15, 0.15),
          PanelStatus.STORAGE_FULL: (0.15, 0.85)}


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
        # Held as long as undo is, the start button starts a new game (none running).
        self._start = Button(pins.start_pause, pull_up=True, bounce_time=None,
                             hold_time=pins.undo_hold_seconds)
        self._undo = Button(pins.undo, pull_up=True, hold_time=pins.undo_hold_seconds)
        self._led = LED(pins.status_led)
        # A passive piezo: it sounds while driven with a square wave at its resonance.
        self._buzzer = PWMOutputDevice(pins.buzzer, frequency=pins.buzzer_hz, initial_value=0)
        self._tune: threading.Thread | None = None
        self.status = PanelStatus.DISCONNECTED
        if on_start_pause is not None:
            self.on_start_pause(on_start_pause)
        if on_undo is not None:
            self.on_undo(on_undo)

    def on_start_pause(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` when the start/pause button is pressed."""
        self._start.when_pressed = lambda: callback()

    def on_start_hold(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` when the start/pause button is held (new game)."""
        self._start.when_held = lambda: callback()

    def on_undo(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` when the referee undo button is held."""
        self._undo.when_held = lambda: callback()

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
        self._beep(on_time=0.15, off_time=0.1, count=1)

    def alarm(self) -> None:
        """Three long beeps: the table needs someone (the hub's disk is full)."""
        self._beep(on_time=0.5, off_time=0.25, count=3)

    def victory(self) -> None:
        """Five quick beeps: someone won."""
        self._beep(on_time=0.2, off_time=0.1, count=5)

    def _beep(self, on_time: float, off_time: float, count: int) -> None:
        # A thread of its own, so the hub never waits on a tune; a new tune
        # waits for the previous one rather than interleaving with it.
        previous = self._tune

        def play() -> None:
            if previous is not None:
                previous.join()
            for _ in range(count):
                self._buzzer.value = 0.5  # 50 % duty: the loudest square wave
                time.sleep(on_time)
                self._buzzer.value = 0
                time.sleep(off_time)

        self._tune = threading.Thread(target=play, name="panel-buzzer", daemon=True)
        self._tune.start()

    def close(self) -> None:
        if self._tune is not None:
            self._tune.join()
        for device in (self._start, self._undo, self._led, self._buzzer):
            device.close()
