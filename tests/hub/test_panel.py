"""The hub panel with gpiozero's MockFactory: presses, long press, LED patterns, buzzer."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPin, MockPWMPin

from risktable.hardware.data import load_hub_panel_pinout
from risktable.hardware.panel import Panel, PanelPins, PanelStatus

PINS = PanelPins(undo_hold_seconds=0.1)


def test_defaults_follow_the_hardware_file() -> None:
    wiring = load_hub_panel_pinout()
    assert PanelPins().buzzer == wiring.pin("buzzer", "pwm")
    assert PanelPins().undo == wiring.pin("referee_undo", "input")


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    previous = Device.pin_factory
    Device.pin_factory = MockFactory(pin_class=MockPWMPin)
    yield Device.pin_factory
    Device.pin_factory.reset()
    Device.pin_factory = previous


def pin(factory: MockFactory, number: int) -> MockPin:
    result = factory.pin(number)
    assert isinstance(result, MockPin)
    return result


def wait_until(predicate: object, timeout: float = 3.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(predicate) and predicate():
            return True
        time.sleep(0.01)
    return False


def test_start_pause_press_calls_back(factory: MockFactory) -> None:
    calls: list[str] = []
    panel = Panel(PINS, on_start_pause=lambda: calls.append("start"))
    button = pin(factory, PINS.start_pause)
    button.drive_low()
    button.drive_high()
    button.drive_low()
    assert calls == ["start", "start"]
    panel.close()


def test_undo_needs_a_long_press(factory: MockFactory) -> None:
    calls: list[str] = []
    panel = Panel(PINS, on_undo=lambda: calls.append("undo"))
    button = pin(factory, PINS.undo)
    button.drive_low()
    button.drive_high()  # a tap: nothing
    assert calls == []
    button.drive_low()
    assert wait_until(lambda: calls == ["undo"])
    button.drive_high()
    panel.close()


def test_status_led_patterns(factory: MockFactory) -> None:
    panel = Panel(PINS)
    led = pin(factory, PINS.status_led)
    panel.show(PanelStatus.CONNECTED)
    assert led.state
    panel.show(PanelStatus.DISCONNECTED)
    assert not led.state
    led.clear_states()
    panel.show(PanelStatus.FAULT)
    # Fast blink: several on/off edges within a second.
    assert wait_until(lambda: sum(1 for s in led.states if s.state) >= 3)
    panel.close()


def test_buzzer_beeps_in_background(factory: MockFactory) -> None:
    panel = Panel(PINS)
    buzzer = pin(factory, PINS.buzzer)
    buzzer.clear_states()
    panel.victory()
    # Each beep drives the piezo at half duty, then silences it.
    assert wait_until(lambda: sum(1 for s in buzzer.states if s.state == 0.5) >= 5)
    assert buzzer.frequency == PINS.buzzer_hz
    panel.error_beep()
    panel.close()


def test_storage_full_flashes_and_sounds_the_alarm(factory: MockFactory) -> None:
    panel = Panel(PINS)
    led = pin(factory, PINS.status_led)
    buzzer = pin(factory, PINS.buzzer)
    led.clear_states()
    buzzer.clear_states()
    panel.show(PanelStatus.STORAGE_FULL)
    panel.alarm()
    assert panel.status is PanelStatus.STORAGE_FULL
    assert wait_until(lambda: sum(1 for s in led.states if s.state) >= 2)
    assert wait_until(lambda: sum(1 for s in buzzer.states if s.state == 0.5) >= 3)
    panel.close()


def test_holding_start_calls_the_new_game_callback_a_tap_does_not(
        factory: MockFactory) -> None:
    calls: list[str] = []
    panel = Panel(PINS, on_start_pause=lambda: calls.append("start"))
    panel.on_start_hold(lambda: calls.append("new game"))
    button = pin(factory, PINS.start_pause)
    button.drive_low()
    button.drive_high()  # a tap: start/pause only
    assert calls == ["start"]
    button.drive_low()
    assert wait_until(lambda: calls == ["start", "start", "new game"])
    button.drive_high()
    panel.close()
