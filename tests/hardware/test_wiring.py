"""The wiring diagrams: regenerated from the pinouts, every pin drawn and labelled."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from risktable.hardware import wiring
from tests.support.tools import ROOT, require_tool

DIAGRAMS = ROOT / "hardware" / "diagrams"


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_tool("dot", "the Debian package graphviz")
    out = tmp_path_factory.mktemp("diagrams")
    assert wiring.main(["--out", str(out)]) == 0
    return out


@pytest.mark.parametrize("name", sorted(wiring.HARNESSES))
@pytest.mark.parametrize("suffix", ["yml", "svg"])
def test_checked_in_diagrams_match_a_fresh_run(fresh: Path, name: str, suffix: str) -> None:
    # A pinout changed without `python -m risktable.hardware.wiring --out hardware/diagrams`
    # fails here.
    checked_in = (DIAGRAMS / f"{name}.{suffix}").read_text(encoding="utf-8")
    assert (fresh / f"{name}.{suffix}").read_text(encoding="utf-8") == checked_in


def test_the_svg_carries_no_tool_version(fresh: Path) -> None:
    for svg in fresh.glob("*.svg"):
        assert "graphviz version" not in svg.read_text(encoding="utf-8")


def _svg_texts(svg: str) -> str:
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    return "\n".join(t.replace("&#45;", "-").replace("&amp;", "&") for t in texts)


def _pinout(name: str) -> dict[str, object]:
    data: dict[str, object] = json.loads((ROOT / "hardware" / name).read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize(("harness", "source", "prefix"), [
    ("seat", "seat-pinout.json", "GPIO"),
    ("hub-panel", "hub-panel.json", "GPIO"),
])
def test_every_pin_of_the_pinout_is_a_labelled_connection(
        fresh: Path, harness: str, source: str, prefix: str) -> None:
    h = wiring.HARNESSES[harness](None)
    devices = _pinout(source)["devices"]
    assert isinstance(devices, dict)
    texts = _svg_texts((fresh / f"{harness}.svg").read_text(encoding="utf-8"))
    mcu = next(iter(h.connectors))
    for name, device in devices.items():
        assert name in h.connectors or device["kind"] in ("ws2812", "pwm_buzzer"), name
        for role, gpio in device["pins"].items():
            # A wire leaves the board's GPIO pin, labelled with the signal and the GPIO.
            wires = [(a_pin, signal) for a, a_pin, _b, _b_pin, signal in h.links
                     if a == mcu and a_pin.split()[0] == f"{prefix}{gpio}"]
            assert wires, f"{name}.{role}: GPIO{gpio} not wired"
            label = wires[0][1]
            assert f"GPIO{gpio}" in label, label
            assert label in texts, f"{label!r} not drawn in {harness}.svg"
            if device["kind"] not in ("ws2812", "pwm_buzzer"):
                assert role in label, label
                if harness == "seat":  # the seat's devices name their pins by role
                    assert role.upper() in h.connectors[name]["pinlabels"]


def test_the_led_board_wires_the_controllers_data_pin_through_the_buffer(fresh: Path) -> None:
    led_map = _pinout("led-map.json")
    controller = led_map["controller"]
    assert isinstance(controller, dict)
    h = wiring.led_board_harness(None)
    data_pin = f"GP{controller['data_gpio']}"
    assert ("Pico", data_pin, "U1", "1A", f"chain data ({data_pin})") in h.links
    assert ("R1", "2", "LEDS", "DIN", "chain data 5 V") in h.links
    texts = _svg_texts((fresh / "led-board.svg").read_text(encoding="utf-8"))
    for part in ("SN74AHCT125N", "330R", "1N5817", "EEU-FR1A102", "100nF 50V X7R"):
        assert part in texts


def test_every_part_of_a_device_is_drawn(fresh: Path) -> None:
    # The level shifter, resistors, capacitors and MOSFETs the pinouts list are on the
    # diagrams, not only the devices.
    for harness, source in (("seat", "seat-pinout.json"), ("hub-panel", "hub-panel.json")):
        texts = _svg_texts((fresh / f"{harness}.svg").read_text(encoding="utf-8"))
        devices = _pinout(source)["devices"]
        assert isinstance(devices, dict)
        for device in devices.values():
            for part in device["parts"]:
                if part.startswith(("knob", "12 mm")):
                    continue  # mechanical: nothing to wire
                assert part in texts, f"{part} missing from {harness}.svg"


def test_a_pin_the_part_does_not_have_is_refused() -> None:
    h = wiring.Harness("t")
    h.part("A", "x", ["1"])
    h.part("B", "y", ["2"])
    with pytest.raises(KeyError):
        h.link("A", "1", "B", "3", "sig")


def test_a_changed_pin_changes_the_diagram() -> None:
    seat = _pinout("seat-pinout.json")
    devices = seat["devices"]
    assert isinstance(devices, dict)
    devices["buzzer"]["pins"]["pwm"] = 47
    h = wiring.seat_harness(seat)
    assert ("ESP32-S3", "GPIO47", "Q1", "G", "buzzer PWM (GPIO47)") in h.links
    assert not any(a_pin == "GPIO17" for _a, a_pin, *_ in h.links)
