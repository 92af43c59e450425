"""The wiring diagrams: regenerated from the pinouts and the parts table, every pin drawn.

The datasheet pin numbers themselves are checked in test_part_pins.py, against facts typed
there; these tests hold the diagrams to the pinout files and to their own rules (power
colours, a wire for every pinout role, a part that lacks a pin refused).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from risktable.hardware import wiring
from risktable.hardware.parts import load_parts
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
    # A pinout or parts table changed without
    # `python -m risktable.hardware.wiring --out hardware/diagrams` fails here.
    checked_in = (DIAGRAMS / f"{name}.{suffix}").read_text(encoding="utf-8")
    assert (fresh / f"{name}.{suffix}").read_text(encoding="utf-8") == checked_in


def test_the_svg_carries_no_tool_version(fresh: Path) -> None:
    for svg in fresh.glob("*.svg"):
        assert "graphviz version" not in svg.read_text(encoding="utf-8")


def svg_texts(svg: str) -> str:
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    return "\n".join(t.replace("&#45;", "-").replace("&amp;", "&") for t in texts)


def _pinout(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ROOT / "hardware" / name).read_text(encoding="utf-8"))
    return data


def test_every_pin_of_the_seat_pinout_is_a_labelled_wire_from_its_gpio(fresh: Path) -> None:
    h = wiring.seat_harness()
    board = load_parts()[wiring.SEAT_BOARD]
    texts = svg_texts((fresh / "seat.svg").read_text(encoding="utf-8"))
    for name, device in _pinout("seat-pinout.json")["devices"].items():
        for role, gpio in device["pins"].items():
            pin = board.pin_of_gpio(gpio)
            wires = list(h.wires_at(f"DevKitC-1 {pin.header}", pin.pin))
            assert len(wires) == 1, f"{name}.{role}: GPIO{gpio} not wired once"
            label = wires[0].signal
            assert f"GPIO{gpio}" in label, label
            assert label in texts, f"{label!r} not drawn in seat.svg"
            if device["kind"] not in ("ws2812", "pwm_buzzer"):
                assert role in label, label


def test_every_pin_of_the_hub_panel_is_a_wire_from_its_header_pin(fresh: Path) -> None:
    h = wiring.hub_panel_harness()
    texts = svg_texts((fresh / "hub-panel.svg").read_text(encoding="utf-8"))
    for name, device in _pinout("hub-panel.json")["devices"].items():
        settings = device["settings"]
        (gpio,) = device["pins"].values()
        wires = list(h.wires_at("Pi J8", settings["header_pin"]))
        assert len(wires) == 1, name
        assert f"GPIO{gpio}" in wires[0].signal and wires[0].signal in texts
        grounds = [w for w in h.wires_at("Pi J8", settings["ground_pin"]) if w.signal == "GND"]
        assert grounds, f"{name}: no ground wire at header pin {settings['ground_pin']}"


def test_the_led_board_wires_the_controllers_data_pin_through_the_buffer(fresh: Path) -> None:
    controller = _pinout("led-map.json")["controller"]
    h = wiring.led_board_harness()
    pico = load_parts()[wiring.PICO]
    data_pin = pico.pin_of_gpio(controller["data_gpio"])
    assert [(w.b, w.b_pin) for w in h.wires_at("Pico", data_pin.pin)] == [("U1", 2)]
    assert any(w.b == "LEDS" and w.b_pin == "DIN" for w in h.wires_at("R1", 2))
    texts = svg_texts((fresh / "led-board.svg").read_text(encoding="utf-8"))
    for part in controller["parts"]:
        assert part in texts, part


def test_every_part_of_a_device_is_drawn(fresh: Path) -> None:
    # The level shifter, resistors, capacitors and transistors the pinouts list are on
    # the diagrams, not only the devices.
    for harness, source in (("seat", "seat-pinout.json"), ("hub-panel", "hub-panel.json")):
        texts = svg_texts((fresh / f"{harness}.svg").read_text(encoding="utf-8"))
        for device in _pinout(source)["devices"].values():
            for part in device["parts"]:
                if part.startswith(("knob", "12 mm")):
                    continue  # mechanical: nothing to wire
                assert part in texts, f"{part} missing from {harness}.svg"


def _cables(diagram: dict[str, Any]) -> list[tuple[str, str]]:
    return [(c["wirelabels"][0], c["colors"][0]) for c in diagram["cables"].values()]


@pytest.mark.parametrize("name", sorted(wiring.HARNESSES))
def test_power_wires_wear_their_rails_colours_and_data_wires_never_do(name: str) -> None:
    diagram = yaml.safe_load((DIAGRAMS / f"{name}.yml").read_text(encoding="utf-8"))
    power = {"5V": "RD", "VSYS": "RD", "3V3": "OG", "GND": "BK"}
    for label, colour in _cables(diagram):
        if label in power:
            assert colour == power[label], (label, colour)
        else:
            assert colour not in power.values(), (label, colour)


def test_a_pin_the_part_does_not_have_or_a_shared_name_is_refused() -> None:
    parts = load_parts()
    h = wiring.Harness("t")
    h.part("Pico", parts[wiring.PICO], used_only=True)
    h.part("U1", parts[wiring.BUFFER])
    with pytest.raises(KeyError, match="no pin 'VCC'"):
        h.link("Pico", "VCC", "U1", "VCC", "5V")
    with pytest.raises(KeyError, match="names several pins"):
        h.link("Pico", "GND", "U1", "GND", "GND")
    h.link("Pico", 38, "U1", "GND", "GND")
    assert h.links[-1].a_pin == 38 and h.links[-1].b_pin == 7


def test_a_pinout_role_the_part_lacks_is_refused() -> None:
    seat = _pinout("seat-pinout.json")
    seat["devices"]["display"]["pins"]["dc"] = 47
    with pytest.raises(KeyError, match="role 'dc'"):
        wiring.seat_harness(seat)


def test_a_changed_pin_changes_the_diagram() -> None:
    seat = _pinout("seat-pinout.json")
    seat["devices"]["buzzer"]["pins"]["pwm"] = 47
    h = wiring.seat_harness(seat)
    # GPIO47 is pin 17 of J3 (Espressif's J3 table), GPIO17 pin 10 of J1.
    # The buzzer's base resistor, now at J3-17.
    assert [h.parts[w.b] for w in h.wires_at("DevKitC-1 J3", 17)] == ["1k"]
    assert not list(h.wires_at("DevKitC-1 J1", 10))
