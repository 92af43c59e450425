"""Wiring diagrams generated from the pinouts (``hardware/*.json``) with WireViz.

Each board (the seat, the territory LED board, the hub panel) becomes a WireViz harness:
one connector per part (the microcontroller's header, the level shifter, resistors,
capacitors, the MOSFET, each device) and one single-wire cable per connection, labelled
with its signal and, for a microcontroller pin, its GPIO. Graphviz (Debian's ``graphviz``,
the ``dot`` program) lays the harness out as SVG.

Regenerate the checked-in diagrams with::

    python -m risktable.hardware.wiring --out hardware/diagrams

The SVG is made deterministic (graphviz's version comment is stripped) so a test can
diff a fresh run against the files in ``hardware/diagrams/``.
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from risktable.hardware.data import hardware_file

_GND = "GND"
_5V = "5V"
_3V3 = "3V3"


@dataclass
class Harness:
    """A board's parts and connections, in the shape WireViz takes."""

    title: str
    connectors: dict[str, dict[str, Any]] = field(default_factory=dict)
    links: list[tuple[str, str, str, str, str]] = field(default_factory=list)

    def part(self, name: str, part: str, pins: list[str]) -> None:
        """Add a connector ``name`` (a part numbered ``part``) with labelled ``pins``."""
        self.connectors[name] = {"type": part, "pinlabels": list(pins)}

    def link(self, a: str, a_pin: str, b: str, b_pin: str, signal: str) -> None:
        """Wire pin ``a_pin`` of ``a`` to ``b_pin`` of ``b``, labelled ``signal``."""
        for name, pin in ((a, a_pin), (b, b_pin)):
            if pin not in self.connectors[name]["pinlabels"]:
                raise KeyError(f"{name} has no pin {pin!r}")
        self.links.append((a, a_pin, b, b_pin, signal))

    def wireviz(self) -> dict[str, Any]:
        """The WireViz YAML document (as a dict) for this harness."""
        cables: dict[str, Any] = {}
        connections: list[list[dict[str, list[int]]]] = []
        for number, (a, a_pin, b, b_pin, signal) in enumerate(self.links, start=1):
            name = f"W{number}"
            cables[name] = {"wirecount": 1, "wirelabels": [signal], "show_wirecount": False,
                            "colors": [_colour(signal)]}
            connections.append([
                {a: [self.connectors[a]["pinlabels"].index(a_pin) + 1]},
                {name: [1]},
                {b: [self.connectors[b]["pinlabels"].index(b_pin) + 1]},
            ])
        return {"metadata": {"title": self.title}, "connectors": self.connectors,
                "cables": cables, "connections": connections}


def _colour(signal: str) -> str:
    # Power rails in the colours a maker expects; every signal wire yellow.
    if signal == _GND:
        return "BK"
    if signal == _5V:
        return "RD"
    if signal == _3V3:
        return "OG"
    return "YE"


def _gpio(prefix: str, gpio: int) -> str:
    return f"{prefix}{gpio}"


def _buffer_and_resistor(h: Harness, mcu: str, pin: str, vcc: str, target: str,
                         target_pin: str, what: str) -> None:
    """A 3.3 V data line through one SN74AHCT125N gate on 5 V and 330 ohm in series."""
    h.part("U1", "SN74AHCT125N", ["1A", "1OE", "1Y", "VCC", "GND", "2A-4A, 2OE-4OE"])
    h.part("R1", "330R", ["1", "2"])
    h.part("C1", "100nF 50V X7R", ["1", "2"])
    h.link(mcu, pin, "U1", "1A", f"{what} ({pin})")
    h.link("U1", "1Y", "R1", "1", f"{what} 5 V")
    h.link("R1", "2", target, target_pin, f"{what} 5 V")
    h.link(mcu, vcc, "U1", "VCC", _5V)
    h.link(mcu, _GND, "U1", "GND", _GND)
    h.link(mcu, _GND, "U1", "1OE", _GND)
    h.link(mcu, _GND, "U1", "2A-4A, 2OE-4OE", _GND)
    h.link(mcu, vcc, "C1", "1", _5V)
    h.link(mcu, _GND, "C1", "2", _GND)


def _buzzer(h: Harness, mcu: str, pin: str, parts: list[str], suffix: str = "") -> None:
    """A passive piezo from 5 V to the drain of a 2N7000 whose gate the PWM pin drives."""
    piezo = next(p for p in parts if p != "2N7000")
    h.part("Q1" + suffix, "2N7000", ["G", "D", "S"])
    h.part("BZ1" + suffix, piezo, ["+", "-"])
    h.link(mcu, pin, "Q1" + suffix, "G", f"buzzer PWM ({pin})")
    h.link(mcu, _5V, "BZ1" + suffix, "+", _5V)
    h.link("BZ1" + suffix, "-", "Q1" + suffix, "D", "buzzer drain")
    h.link(mcu, _GND, "Q1" + suffix, "S", _GND)


def _pinout_json(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(hardware_file(name).read_text(encoding="utf-8"))
    return data


def seat_harness(pinout: dict[str, Any] | None = None) -> Harness:
    """The seat controller: the ESP32-S3 board and every device of ``seat-pinout.json``."""
    data = pinout if pinout is not None else _pinout_json("seat-pinout.json")
    devices: dict[str, Any] = data["devices"]
    h = Harness("Seat controller (ESP32-S3-DevKitC-1-N8R8)")
    mcu = "ESP32-S3"
    gpios = sorted({g for d in devices.values() for g in d["pins"].values()})
    h.part(mcu, "ESP32-S3-DevKitC-1-N8R8", [_gpio("GPIO", g) for g in gpios] + [_5V, _3V3, _GND])
    for name, dev in devices.items():
        pins: dict[str, int] = dev["pins"]
        parts: list[str] = dev["parts"]
        kind = dev["kind"]
        if kind == "ws2812":
            ring = name
            h.part(ring, parts[0], ["DIN", "5V", "GND"])
            _buffer_and_resistor(h, mcu, _gpio("GPIO", pins["data"]), _5V, ring, "DIN",
                                 f"{name} data")
            h.link(mcu, _5V, ring, "5V", _5V)
            h.link(mcu, _GND, ring, "GND", _GND)
            bulk = next(p for p in parts if p.startswith("EEU"))
            h.part("C2", bulk, ["+", "-"])
            h.link(ring, "5V", "C2", "+", _5V)
            h.link(ring, "GND", "C2", "-", _GND)
        elif kind == "pwm_buzzer":
            _buzzer(h, mcu, _gpio("GPIO", pins["pwm"]), parts)
        else:
            # Switches and encoders go to GND (internal pull-ups); the RC522 and the
            # SSD1306 take 3.3 V only.
            powered = kind in ("mfrc522", "ssd1306")
            labels = [role.upper() for role in pins] + ([_3V3] if powered else []) + [_GND]
            h.part(name, parts[0], labels)
            for role, gpio in pins.items():
                h.link(mcu, _gpio("GPIO", gpio), name, role.upper(),
                       f"{name} {role} (GPIO{gpio})")
            if powered:
                h.link(mcu, _3V3, name, _3V3, _3V3)
            h.link(mcu, _GND, name, _GND, _GND)
    return h


def hub_panel_harness(pinout: dict[str, Any] | None = None) -> Harness:
    """The hub panel on the Raspberry Pi's header: buttons, buzzer, status LED."""
    data = pinout if pinout is not None else _pinout_json("hub-panel.json")
    devices: dict[str, Any] = data["devices"]
    h = Harness("Hub panel (Raspberry Pi 40-pin header, BCM numbers)")
    pi = "Raspberry Pi"
    labels = []
    for dev in devices.values():
        for gpio in dev["pins"].values():
            labels.append(f"GPIO{gpio} (pin {dev['settings']['header_pin']})")
    h.part(pi, "Raspberry Pi 4 Model B 2 GB", [*sorted(labels), _5V, _GND])
    header = {f"GPIO{g}": label for label in labels for g in [int(label[4:].split()[0])]}
    for name, dev in devices.items():
        pins: dict[str, int] = dev["pins"]
        parts: list[str] = dev["parts"]
        kind = dev["kind"]
        if kind == "pwm_buzzer":
            _buzzer(h, pi, header[f"GPIO{pins['pwm']}"], parts)
        elif kind == "led":
            gpio = pins["output"]
            h.part("R1", "330R", ["1", "2"])
            h.part(name, parts[0], ["A", "K"])
            h.link(pi, header[f"GPIO{gpio}"], "R1", "1", f"{name} output (GPIO{gpio})")
            h.link("R1", "2", name, "A", f"{name} anode")
            h.link(name, "K", pi, _GND, _GND)
        else:
            h.part(name, parts[0], ["1", "2"])
            gpio = pins["input"]
            h.link(pi, header[f"GPIO{gpio}"], name, "1", f"{name} input (GPIO{gpio})")
            h.link(name, "2", pi, _GND, _GND)
    return h


def led_board_harness(led_map: dict[str, Any] | None = None) -> Harness:
    """The territory LED board: the Pico, the level shifter, the supply and the chain."""
    data = led_map if led_map is not None else _pinout_json("led-map.json")
    ctl: dict[str, Any] = data["controller"]
    parts: list[str] = ctl["parts"]
    h = Harness(f"Territory LED board ({data['led_count']} WS2812B, one chain)")
    pico = "Pico"
    data_pin = f"GP{ctl['data_gpio']}"
    h.part(pico, parts[0], [data_pin, "VSYS", _GND, _5V])
    h.part("PSU", "GST60A05-P1J", ["+5V", "GND"])
    h.part("F1", "inline ATO holder", ["in", "out"])
    h.part("D1", "1N5817", ["A", "K"])
    h.part("LEDS", "WS2812B 60/m IP30 5V", ["DIN", "5V", "GND"])
    h.part("C2", "EEU-FR1A102", ["+", "-"])
    h.link("PSU", "+5V", "F1", "in", _5V)
    h.link("F1", "out", pico, _5V, _5V)
    h.link("F1", "out", "D1", "A", _5V)
    h.link("D1", "K", pico, "VSYS", "VSYS")
    h.link("PSU", "GND", pico, _GND, _GND)
    _buffer_and_resistor(h, pico, data_pin, _5V, "LEDS", "DIN", "chain data")
    h.link(pico, _5V, "LEDS", "5V", _5V)
    h.link(pico, _GND, "LEDS", "GND", _GND)
    h.link("LEDS", "5V", "C2", "+", _5V)
    h.link("LEDS", "GND", "C2", "-", _GND)
    # The Pico's "5V" pin stands for the board's 5 V bus (the fused supply), not a Pico pin.
    return h


HARNESSES = {"seat": seat_harness, "led-board": led_board_harness, "hub-panel": hub_panel_harness}

_VERSION_COMMENT = re.compile(r"<!-- Generated by graphviz version [^>]*-->\n?")


def render_svg(harness: Harness) -> str:
    """The harness laid out by WireViz and graphviz, as deterministic SVG text."""
    from wireviz.wireviz import parse

    svg = parse(harness.wireviz(), return_types="svg")
    text = svg.decode("utf-8") if isinstance(svg, bytes) else str(svg)
    return _VERSION_COMMENT.sub("", text)


def write_diagrams(out: Path) -> list[Path]:
    """Write each board's WireViz YAML and SVG into ``out``; return the files written."""
    import yaml

    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, build in HARNESSES.items():
        harness = build(None)
        source = out / f"{name}.yml"
        source.write_text(yaml.safe_dump(harness.wireviz(), sort_keys=False), encoding="utf-8")
        svg = out / f"{name}.svg"
        svg.write_text(render_svg(harness), encoding="utf-8")
        written += [source, svg]
    return written


def main(argv: list[str] | None = None) -> int:
    """``python -m risktable.hardware.wiring --out hardware/diagrams``."""
    parser = argparse.ArgumentParser(description="Generate the boards' wiring diagrams.")
    parser.add_argument("--out", type=Path, default=Path("hardware/diagrams"))
    args = parser.parse_args(argv)
    for path in write_diagrams(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["HARNESSES", "Harness", "main", "render_svg", "write_diagrams"]
