"""Datasheet pin numbers: the parts table, the diagrams, the pinouts, the firmware and the BOM.

The pin numbers below are typed here from the parts' own documents, not read from
``hardware/parts.json``, so that a slip in the table (or in the code that draws it) shows
as a difference between two independent copies:

- Raspberry Pi Pico Datasheet, chapter 1 Figure 2, and the Pico R3 pinout sheet;
- TI SCLS264R (SNx4AHCT125), section 4 Pin Configuration and Functions, 14-pin packages
  (N = PDIP-14);
- Espressif ESP32-S3-DevKitC-1 user guide, Header Block, tables J1 and J3 (GPIO pins
  given here by GPIO number);
- Raspberry Pi documentation, GPIO and the 40-pin header (BCM numbers);
- the TO-92 pin order of the onsemi 2N3904 data sheet (2N3903/D, case 29 style 1).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
import yaml

from risktable.hardware import wiring
from risktable.hardware.bom import OPTIONAL_BOARDS, load_bom
from risktable.hardware.panel_pins import PanelPins
from risktable.hardware.parts import Part, load_parts
from tests.support.tools import ROOT

PICO: dict[int, str] = {
    1: "GP0", 2: "GP1", 3: "GND", 4: "GP2", 5: "GP3", 6: "GP4", 7: "GP5", 8: "GND",
    9: "GP6", 10: "GP7", 11: "GP8", 12: "GP9", 13: "GND", 14: "GP10", 15: "GP11",
    16: "GP12", 17: "GP13", 18: "GND", 19: "GP14", 20: "GP15", 21: "GP16", 22: "GP17",
    23: "GND", 24: "GP18", 25: "GP19", 26: "GP20", 27: "GP21", 28: "GND", 29: "GP22",
    30: "RUN", 31: "GP26", 32: "GP27", 33: "AGND", 34: "GP28", 35: "ADC_VREF",
    36: "3V3(OUT)", 37: "3V3_EN", 38: "GND", 39: "VSYS", 40: "VBUS",
}
SN74AHCT125N: dict[int, str] = {
    1: "1OE", 2: "1A", 3: "1Y", 4: "2OE", 5: "2A", 6: "2Y", 7: "GND",
    8: "3Y", 9: "3A", 10: "3OE", 11: "4Y", 12: "4A", 13: "4OE", 14: "VCC",
}
# DevKitC-1 headers: a GPIO pin by its GPIO number, any other by its name (J3's TX and RX
# are the console UART's GPIO43 and GPIO44).
DEVKITC_J1: dict[int, str | int] = {
    1: "3V3", 2: "3V3", 3: "RST", 4: 4, 5: 5, 6: 6, 7: 7, 8: 15, 9: 16, 10: 17, 11: 18,
    12: 8, 13: 3, 14: 46, 15: 9, 16: 10, 17: 11, 18: 12, 19: 13, 20: 14, 21: "5V", 22: "G",
}
DEVKITC_J3: dict[int, str | int] = {
    1: "G", 2: "TX", 3: "RX", 4: 1, 5: 2, 6: 42, 7: 41, 8: 40, 9: 39, 10: 38, 11: 37, 12: 36,
    13: 35, 14: 0, 15: 45, 16: 48, 17: 47, 18: 21, 19: 20, 20: 19, 21: "G", 22: "G",
}
PI_J8: dict[int, str | int] = {
    1: "3V3", 2: "5V", 3: 2, 4: "5V", 5: 3, 6: "GND", 7: 4, 8: 14, 9: "GND", 10: 15,
    11: 17, 12: 18, 13: 27, 14: "GND", 15: 22, 16: 23, 17: "3V3", 18: 24, 19: 10,
    20: "GND", 21: 9, 22: 25, 23: 11, 24: 8, 25: "GND", 26: 7, 27: 0, 28: 1, 29: 5,
    30: "GND", 31: 6, 32: 12, 33: 13, 34: "GND", 35: 19, 36: 16, 37: 26, 38: 20,
    39: "GND", 40: 21,
}
TO92_2N3904 = {1: "E", 2: "B", 3: "C"}

# The label a diagram gives a header pin: its GPIO as GPIOn, a power pin by name.
def _label(fact: str | int) -> str:
    return f"GPIO{fact}" if isinstance(fact, int) else fact


# Diagram connector -> the datasheet facts its pins must match.
FACTS: dict[str, Mapping[int, str]] = {
    "Pico": PICO,
    "U1": SN74AHCT125N,
    "DevKitC-1 J1": {pin: _label(f) for pin, f in DEVKITC_J1.items()},
    "DevKitC-1 J3": {pin: _label(f) for pin, f in DEVKITC_J3.items()},
    "Pi J8": {pin: _label(f) for pin, f in PI_J8.items()},
}

# BOM parts that have no pins to wire.
PINLESS = {
    "knob 6 mm D", "12 mm round cap", "perfboard 7x9", "USB 5V 2A", "assorted",
    "18AWG silicone", "3-core 22AWG", "base sheet", "USB micro-B cable",
    "official 15.3 W USB-C PSU", "microSD 32GB A1", "Pi 4 case", "Dupont F-F",
    "NTAG213 sticker", "ABS box 200x120x56",
}
DIAGRAM_BOARD = {"seat": "seat", "led-board": "led_board", "hub-panel": "hub"}


@pytest.fixture(scope="module")
def parts() -> dict[str, Part]:
    return load_parts()


def _json(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ROOT / "hardware" / name).read_text(encoding="utf-8"))
    return data


def test_the_parts_table_holds_the_datasheet_numbers(parts: dict[str, Part]) -> None:
    pico = parts[wiring.PICO]
    assert {p.pin: p.name for p in pico.pins()} == PICO
    assert {p.pin: p.name for p in parts[wiring.BUFFER].pins()} == SN74AHCT125N
    board = parts[wiring.SEAT_BOARD]
    for header, facts in (("J1", DEVKITC_J1), ("J3", DEVKITC_J3)):
        table = {p.pin: (p.gpio if p.gpio is not None and p.name.startswith("GPIO") else p.name)
                 for p in board.headers[header]}
        assert table == facts, header
    # TX and RX of J3 name the console UART's GPIO43 and GPIO44.
    assert (board.pin("J3", 2).gpio, board.pin("J3", 3).gpio) == (43, 44)
    pi = parts[wiring.HUB_BOARD]
    assert {p.pin: (p.gpio if p.gpio is not None else p.name)
            for p in pi.headers["J8"]} == PI_J8
    assert {p.pin: p.name for p in parts["2N3904"].pins()} == TO92_2N3904


def test_every_part_names_where_its_pins_come_from(parts: dict[str, Part]) -> None:
    for number, part in parts.items():
        assert part.source.title, number
        if not part.source.title.startswith("none: "):
            assert part.source.where and part.source.address.startswith("https://"), number


def _drawn_pins(diagram: dict[str, Any]) -> Iterator[tuple[str, str, int | str, str]]:
    """(connector, part number, pin, label) for every pin a diagram's connector shows."""
    for name, connector in diagram["connectors"].items():
        labels = connector.get("pinlabels") or [str(p) for p in connector.get("pins", [])]
        for pin, label in zip(connector.get("pins", []), labels, strict=True):
            yield name, connector.get("type", ""), pin, label


@pytest.mark.parametrize("name", sorted(wiring.HARNESSES))
def test_every_labelled_pin_sits_at_its_datasheet_number_in_the_diagrams(name: str) -> None:
    diagram = yaml.safe_load((ROOT / "hardware" / "diagrams" / f"{name}.yml").read_text())
    checked = 0
    for connector, _part, pin, label in _drawn_pins(diagram):
        facts = FACTS.get(connector)
        if facts is not None:
            assert facts.get(int(pin)) == label, f"{name}: {connector} pin {pin} is {label}"
            checked += 1
    assert checked, name
    # Every wire ends at a pin its connector has.
    pins = {n: set(c.get("pins", [1])) for n, c in diagram["connectors"].items()}
    for connection in diagram["connections"]:
        for end in (connection[0], connection[2]):
            ((connector, (pin,)),) = end.items()
            assert pin in pins[connector], (name, connector, pin)


# "Pico:4:GP2" at a wire's end in the drawing: connector, physical pin, label.
_WIRE_END = re.compile(r"(Pico|U1|DevKitC-1 J[13]|Pi J8):(\d+):([^<\s]+)")


@pytest.mark.parametrize("name", sorted(wiring.HARNESSES))
def test_the_drawn_wire_ends_name_datasheet_pins(name: str) -> None:
    # What a maker reads: each wire's box names its ends as connector:pin:label. The
    # checked-in SVG is the one test_wiring.py holds equal to a fresh run.
    svg = (ROOT / "hardware" / "diagrams" / f"{name}.svg").read_text(encoding="utf-8")
    ends = _WIRE_END.findall(svg.replace("&#45;", "-"))
    assert ends, name
    for connector, pin, label in ends:
        assert FACTS[connector][int(pin)] == label, (name, connector, pin, label)


def test_the_power_pins_are_wired_where_the_datasheets_put_them() -> None:
    led = wiring.led_board_harness()
    # The Schottky diode feeds VSYS (39); no wire reaches VBUS (40) or any pin named 5V.
    assert [(w.a, w.a_pin) for w in led.wires_at("Pico", 39)] == [("D1", "K")]
    assert not list(led.wires_at("Pico", 40))
    assert {w.signal for w in led.wires_at("Pico", 38)} == {"GND"}
    for h in (led, wiring.seat_harness()):
        assert {w.signal for w in h.wires_at("U1", 14)} == {"5V"}
        assert {w.signal for w in h.wires_at("U1", 7)} == {"GND"}
        for pin in (1, 4, 5, 9, 10, 12, 13):  # every OE and the unused inputs
            assert {w.signal for w in h.wires_at("U1", pin)} == {"GND"}, pin
        for pin in (6, 8, 11):  # unused outputs stay open
            assert not list(h.wires_at("U1", pin))
    seat = wiring.seat_harness()
    assert {w.signal for w in seat.wires_at("DevKitC-1 J1", 21)} == {"5V"}
    assert {w.signal for w in seat.wires_at("DevKitC-1 J1", 1)} == {"3V3"}
    assert {w.signal for w in seat.wires_at("DevKitC-1 J1", 22)} == {"GND"}


# TI SCLS264R, Electrical Characteristics: VIL at most 0.8 V, input current at most 1 uA.
AHCT_VIL_MAX_V = 0.8
AHCT_II_MAX_UA = 1.0


def test_the_buffer_input_is_pulled_down_while_the_microcontroller_boots() -> None:
    # Until the firmware drives it, the microcontroller's data pin floats; so would the
    # buffer's 1A (pin 2), and the LEDs would latch noise. A resistor to GND holds it low.
    for h in (wiring.seat_harness(), wiring.led_board_harness()):
        ends = {w.a if w.b == "U1" else w.b for w in h.wires_at("U1", 2)}
        (pull_down,) = (e for e in ends if h.parts.get(e, "").endswith("k"))
        assert {w.signal for w in h.wires_at(pull_down, 2)} == {"GND"}
        ohms = float(h.parts[pull_down][:-1]) * 1000
        # Low enough that the input's leakage cannot lift it near VIL ...
        assert ohms * AHCT_II_MAX_UA * 1e-6 < AHCT_VIL_MAX_V / 10
        # ... and high enough that a 3.3 V pin drives it with well under 1 mA.
        assert 3.3 / ohms * 1000 < 1.0


def test_the_seat_pinout_speaks_of_the_devkitcs_gpios(parts: dict[str, Part]) -> None:
    seat = _json("seat-pinout.json")
    on_headers = {f for f in (*DEVKITC_J1.values(), *DEVKITC_J3.values()) if isinstance(f, int)}
    on_headers |= {43, 44}  # J3's TX and RX
    assert set(seat["gpio"]["exposed"]) == on_headers
    # The README's claim: every seat GPIO but GPIO21 is on J1.
    used = {g for d in seat["devices"].values() for g in d["pins"].values()}
    j1 = {f for f in DEVKITC_J1.values() if isinstance(f, int)}
    assert used - j1 == {21}


def test_the_hub_panel_names_header_pins_the_pi_documents() -> None:
    for name, device in _json("hub-panel.json")["devices"].items():
        settings = device["settings"]
        (gpio,) = device["pins"].values()
        assert PI_J8[settings["header_pin"]] == gpio, name
        assert PI_J8[settings["ground_pin"]] == "GND", name
        if "supply_pin" in settings:
            assert PI_J8[settings["supply_pin"]] == "5V", name


def test_the_hub_reads_the_panel_pins_of_the_file() -> None:
    panel = _json("hub-panel.json")["devices"]
    pins = PanelPins()
    assert (pins.start_pause, pins.undo, pins.status_led, pins.buzzer) == (
        panel["start_pause"]["pins"]["input"], panel["referee_undo"]["pins"]["input"],
        panel["status_led"]["pins"]["output"], panel["buzzer"]["pins"]["pwm"])


_PIN_LOOKUP = re.compile(r'pins\.pin\(p, "(\w+)", "(\w+)"\)')
_BUTTON = re.compile(r'\("\w+", "(\w+)", "(\w+)"\)')


def test_the_esp32_board_asks_only_for_pins_the_pinout_has() -> None:
    source = (ROOT / "firmware" / "board" / "esp32.py").read_text(encoding="utf-8")
    asked = set(_PIN_LOOKUP.findall(source)) | set(_BUTTON.findall(source))
    assert ("led_ring", "data") in asked and ("encoder", "switch") in asked
    devices = _json("seat-pinout.json")["devices"]
    for device, role in asked:
        assert role in devices[device]["pins"], (device, role)


def test_the_led_controller_defaults_to_the_maps_data_pin() -> None:
    source = (ROOT / "firmware" / "ledctl" / "main.py").read_text(encoding="utf-8")
    found = re.search(r"_DATA_GPIO = const\((\d+)\)", source)
    assert found
    data_gpio = _json("led-map.json")["controller"]["data_gpio"]
    assert int(found.group(1)) == data_gpio
    # The diagram takes the chain's data from the Pico pin the datasheet gives that GPIO.
    (pin,) = (p for p, n in PICO.items() if n == f"GP{data_gpio}")
    assert [w.b for w in wiring.led_board_harness().wires_at("Pico", pin)] == ["U1"]


def test_every_bom_part_with_pins_is_in_the_parts_table(parts: dict[str, Part]) -> None:
    # The dice tray's parts plug in by cable (a ribbon, USB): no pins to wire.
    in_bom = {row.part_number for row in load_bom() if row.board not in OPTIONAL_BOARDS}
    assert set(parts) == in_bom - PINLESS
    assert in_bom >= PINLESS


@pytest.mark.parametrize("name", sorted(wiring.HARNESSES))
def test_every_drawn_part_is_in_the_bom_of_its_board(name: str) -> None:
    diagram = yaml.safe_load((ROOT / "hardware" / "diagrams" / f"{name}.yml").read_text())
    board_parts = {r.part_number for r in load_bom() if r.board == DIAGRAM_BOARD[name]}
    for connector, spec in diagram["connectors"].items():
        if spec.get("style") == "simple":
            continue  # a perfboard rail, not a part
        assert spec["type"] in board_parts, (name, connector, spec["type"])


README = ROOT / "hardware" / "README.md"


def _table_rows(text: str, header: str) -> list[list[str]]:
    lines = text[text.index(header):].splitlines()
    rows = []
    for line in lines[2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_the_build_guide_gives_each_seat_gpio_its_datasheet_header_pin() -> None:
    text = README.read_text(encoding="utf-8")
    headers = {"J1": DEVKITC_J1, "J3": DEVKITC_J3}
    checked = 0
    for row in _table_rows(text, "| device | signal | GPIO | header pin | notes |"):
        gpios = [g.strip() for g in row[2].split("/")] if row[2] else []
        pins = [p.strip() for p in row[3].split("/")]
        if not gpios:  # the supplies row
            assert [headers[p[:2]][int(p[3:])] for p in pins] == ["5V", "3V3", "G"], row
            continue
        for gpio, pin in zip(gpios, pins, strict=True):
            assert headers[pin[:2]][int(pin[3:])] == int(gpio), row
            checked += 1
    assert checked == 16


def test_the_build_guide_gives_each_panel_part_its_header_pins() -> None:
    text = README.read_text(encoding="utf-8")
    panel = {d["pins"].get("input", d["pins"].get("output", d["pins"].get("pwm"))): d
             for d in _json("hub-panel.json")["devices"].values()}
    rows = _table_rows(text, "| device | GPIO (BCM) | header pin | wiring |")
    assert len(rows) == len(panel)
    for row in rows:
        settings = panel[int(row[1])]["settings"]
        assert int(row[2]) == settings["header_pin"], row
        assert f"GND (pin {settings['ground_pin']})" in row[3], row
        if "supply_pin" in settings:
            assert f"5 V (pin {settings['supply_pin']})" in row[3], row


def test_the_build_guide_warns_of_generic_modules_and_lists_the_bench_checks(
        parts: dict[str, Part]) -> None:
    text = README.read_text(encoding="utf-8")
    generic = [p for p in parts.values() if p.source.title.startswith("none: a generic module")]
    assert {p.part_number for p in generic} >= {"MFRC522 (RC522 module)", "SSD1306 module"}
    assert "wire by the printed names, never by position" in text
    for part in generic:
        assert "wire by the printed names" in part.note.lower(), part.part_number
    checks = {row[0] for row in _table_rows(text, "| check | how | expect | if not |")}
    assert {"encoder rest state", "buzzer sound", "generic module supply pins",
            "LED data at boot", "DevKitC-1 5 V under load"} <= checks
