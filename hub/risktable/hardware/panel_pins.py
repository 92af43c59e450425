"""The hub panel's pin numbers, read from ``hardware/hub-panel.json``.

Kept apart from :mod:`risktable.hardware.panel` so that reading a configuration does not
import gpiozero.
"""

from __future__ import annotations

from dataclasses import dataclass

from risktable.hardware.data import load_hub_panel_pinout

_WIRING = load_hub_panel_pinout()


@dataclass(frozen=True)
class PanelPins:
    """BCM pin numbers of the panel parts; defaults from ``hardware/hub-panel.json``."""

    start_pause: int = _WIRING.pin("start_pause", "input")
    undo: int = _WIRING.pin("referee_undo", "input")
    status_led: int = _WIRING.pin("status_led", "output")
    buzzer: int = _WIRING.pin("buzzer", "pwm")
    undo_hold_seconds: float = float(_WIRING.devices["referee_undo"].settings["hold_s"])
    buzzer_hz: int = int(_WIRING.devices["buzzer"].settings["freq"])
