"""Wiring diagrams generated from the pinouts and the parts table, with WireViz.

Each board (the seat, the territory LED board, the hub panel) becomes a WireViz harness:
one connector per part, its pins numbered as the part's datasheet numbers them
(``hardware/parts.json``; a generic module's pins by their silkscreen), and one
single-wire cable per connection, labelled with its signal and, for a microcontroller
pin, its GPIO. A board's header shows only the pins in use, each under its physical
number; a chip shows every pin, so the ones left open are seen to be open. The 5 V,
3.3 V and ground rails of a perfboard are drawn as small rail nodes. Power wires are
red (5 V and VSYS), orange (3.3 V) and black (ground); data wires take other colours.
Graphviz (Debian's ``graphviz``, the ``dot`` program) lays the harness out as SVG.

Regenerate the checked-in diagrams with::

    python -m risktable.hardware.wiring --out hardware/diagrams

The SVG is made deterministic (graphviz's version comment is stripped) so a test can
diff a fresh run against the files in ``hardware/diagrams/``.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from risktable.hardware.data import hardware_file
from risktable.hardware.parts import Part, PinId, load_parts

_GND = "GND"
_5V = "5V"
_3V3 = "3V3"
_VSYS = "VSYS"
RAILS = (_5V, _3V3, _GND)
# The colours a maker expects on power wires; every other wire is data.
POWER_COLOURS = {_5V: "RD", _VSYS: "RD", _3V3: "OG", _GND: "BK"}
DATA_COLOURS = ("YE", "GN", "BU", "VT", "WH", "GY", "PK", "TQ")

SEAT_BOARD = "ESP32-S3-DevKitC-1-N8R8"
PICO = "SC0915 (Raspberry Pi Pico)"
HUB_BOARD = "Raspberry Pi 4 Model B 2 GB"
BUFFER = "SN74AHCT125N"


@dataclass(frozen=True)
class Link:
    """One wire: from pin ``a_pin`` of ``a`` to pin ``b_pin`` of ``b`` (physical pins)."""

    a: str
    a_pin: PinId
    b: str
    b_pin: PinId
    signal: str
    colour: str


@dataclass
class Harness:
    """A board's parts and connections, in the shape WireViz takes."""

    title: str
    connectors: dict[str, dict[str, Any]] = field(default_factory=dict)
    links: list[Link] = field(default_factory=list)
    parts: dict[str, str] = field(default_factory=dict)

    def part(self, name: str, part: Part, header: str = "", *, used_only: bool = False,
             show: str = "") -> None:
        """Add connector ``name``: ``part``'s pins on ``header``, numbered as its datasheet.

        ``used_only`` hides the pins no wire reaches (a board's header); ``show`` adds a
        line under the pins (which header, which datasheet).
        """
        pins = part.headers[header]
        connector: dict[str, Any] = {"type": part.part_number, "pins": [p.pin for p in pins]}
        if any(str(p.pin) != p.name for p in pins):
            connector["pinlabels"] = [p.name for p in pins]
        if used_only:
            connector["hide_disconnected_pins"] = True
        if show:
            connector["notes"] = show
        self.connectors[name] = connector
        self.parts[name] = part.part_number

    def designator(self, prefix: str) -> str:
        """The next free reference designator with ``prefix`` (R1, R2 ...)."""
        number = 1
        while f"{prefix}{number}" in self.connectors:
            number += 1
        return f"{prefix}{number}"

    def rail(self, rail: str) -> str:
        """The node of a supply or ground rail (added on first use); returns its name."""
        name = f"{rail} rail"
        if name not in self.connectors:
            self.connectors[name] = {"style": "simple", "type": name, "pincount": 1}
        return name

    def pin_id(self, name: str, pin: PinId) -> PinId:
        """Pin ``pin`` of connector ``name``: a physical pin, or a label only one pin has."""
        connector = self.connectors[name]
        pins: list[PinId] = connector.get("pins", [1])
        if pin in pins:
            return pin
        labels: list[str] = connector.get("pinlabels", [])
        if labels.count(str(pin)) == 1:
            return pins[labels.index(str(pin))]
        raise KeyError(f"{name} has no pin {pin!r}" if str(pin) not in labels
                       else f"{name}: {pin!r} names several pins; give the pin number")

    def link(self, a: str, a_pin: PinId, b: str, b_pin: PinId, signal: str,
             colour: str = "") -> None:
        """Wire pin ``a_pin`` of ``a`` to ``b_pin`` of ``b``, labelled ``signal``.

        A power or ground signal takes its rail's colour; ``colour`` is a data wire's.
        """
        wire = POWER_COLOURS.get(signal) or colour or DATA_COLOURS[0]
        self.links.append(Link(a, self.pin_id(a, a_pin), b, self.pin_id(b, b_pin), signal, wire))

    def to_rail(self, rail: str, b: str, b_pin: PinId) -> None:
        """Wire rail ``rail`` to pin ``b_pin`` of ``b``."""
        self.link(self.rail(rail), 1, b, b_pin, rail)

    def wireviz(self) -> dict[str, Any]:
        """The WireViz YAML document (as a dict) for this harness."""
        cables: dict[str, Any] = {}
        connections: list[list[dict[str, list[PinId]]]] = []
        for number, link in enumerate(self.links, start=1):
            name = f"W{number}"
            cables[name] = {"wirecount": 1, "wirelabels": [link.signal], "show_wirecount": False,
                            "colors": [link.colour]}
            connections.append([{link.a: [link.a_pin]}, {name: [1]}, {link.b: [link.b_pin]}])
        return {"metadata": {"title": self.title}, "connectors": self.connectors,
                "cables": cables, "connections": connections}

    def wires_at(self, name: str, pin: PinId) -> Iterator[Link]:
        """Every wire that ends at pin ``pin`` of connector ``name``."""
        for link in self.links:
            if (link.a, link.a_pin) == (name, pin) or (link.b, link.b_pin) == (name, pin):
                yield link


def _source_line(part: Part, header: str = "") -> str:
    if part.source.title.startswith("none: a generic module"):
        return "pins named by the silkscreen, in no fixed order: wire by name"
    where = f"{header}: " if header else ""
    return f"{where}pins as in {part.source.title}"


def _colours() -> Iterator[str]:
    while True:
        yield from DATA_COLOURS[1:]


def _role_pin(part: Part, role: str) -> PinId:
    pins = part.with_role(role)
    if len(pins) != 1:
        raise KeyError(f"{part.part_number}: {len(pins)} pins have role {role!r}")
    return pins[0].pin


def _buffer(h: Harness, parts: dict[str, Part], source: tuple[str, PinId],
            target: tuple[str, PinId], what: str, label: str) -> None:
    """A 3.3 V data line through one SN74AHCT125N gate on 5 V and 330 ohm in series.

    The 100 nF capacitor sits across the chip's own VCC and GND pins; the other gates'
    inputs and every output enable go to GND, their outputs stay open. 10 k from the
    gate's input to GND holds the line low while the microcontroller's pin floats
    (power-up, reset, flashing), so the LEDs do not latch noise.
    """
    u1 = parts[BUFFER]
    h.part("U1", u1, show=_source_line(u1))
    series = h.designator("R")
    h.part(series, parts["330R"])
    pull_down = h.designator("R")
    h.part(pull_down, parts["10k"])
    h.part("C1", parts["100nF 50V X7R"])
    colour = DATA_COLOURS[0]
    data_in = _role_pin(u1, "in")
    h.link(*source, "U1", data_in, label, colour)
    h.link("U1", data_in, pull_down, 1, f"{what} pull-down", colour)
    h.to_rail(_GND, pull_down, 2)
    h.link("U1", _role_pin(u1, "out"), series, 1, f"{what} 5 V", colour)
    h.link(series, 2, *target, f"{what} 5 V", colour)
    vcc = _role_pin(u1, _5V)
    gnd = _role_pin(u1, _GND)
    h.to_rail(_5V, "U1", vcc)
    h.to_rail(_GND, "U1", gnd)
    for pin in u1.pins():
        if pin.role in ("oe", "unused"):
            h.to_rail(_GND, "U1", pin.pin)
    h.link("U1", vcc, "C1", 1, _5V)
    h.link("C1", 2, "U1", gnd, _GND)


def _bulk_capacitor(h: Harness, parts: dict[str, Part], name: str, at: str) -> None:
    """The 1000 uF electrolytic across a strip's or ring's own 5V and GND pads."""
    cap = parts["EEU-FR1A102"]
    h.part(name, cap)
    led = parts[h.parts[at]]
    h.link(at, _role_pin(led, _5V), name, _role_pin(cap, _5V), _5V)
    h.link(at, _role_pin(led, _GND), name, _role_pin(cap, _GND), _GND)


def _buzzer(h: Harness, parts: dict[str, Part], source: tuple[str, PinId], label: str,
            device_parts: list[str], supply: tuple[str, PinId], ground: tuple[str, PinId],
            colour: str) -> None:
    """A passive piezo from 5 V to the collector of an NPN the PWM pin drives.

    ``device_parts`` are the piezo, the transistor, its base resistor and the resistor
    across the piezo: without that one the transistor charges the piezo once and it stays
    charged (an external-drive piezo is a capacitor), so it never sounds.
    """
    piezo, npn, base, across = (parts[p] for p in device_parts[:4])
    h.part("Q1", npn, show=_source_line(npn))
    r_base = h.designator("R")
    h.part(r_base, base)
    h.part("BZ1", piezo)
    r_across = h.designator("R")
    h.part(r_across, across)
    h.link(*source, r_base, 1, label, colour)
    h.link(r_base, 2, "Q1", "B", "buzzer base", colour)
    h.link(*supply, "BZ1", 1, _5V)
    h.link("BZ1", 2, "Q1", "C", "buzzer collector", colour)
    h.link("BZ1", 1, r_across, 1, _5V)
    h.link(r_across, 2, "BZ1", 2, "buzzer collector", colour)
    h.link("Q1", _role_pin(npn, _GND), *ground, _GND)


def _pinout_json(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(hardware_file(name).read_text(encoding="utf-8"))
    return data


def seat_harness(pinout: dict[str, Any] | None = None,
                 parts: dict[str, Part] | None = None) -> Harness:
    """The seat controller: the DevKitC-1's J1 and J3 and every device of its pinout."""
    data = pinout if pinout is not None else _pinout_json("seat-pinout.json")
    parts = parts if parts is not None else load_parts()
    board = parts[SEAT_BOARD]
    h = Harness("Seat controller (ESP32-S3-DevKitC-1-N8R8; header pins numbered as in "
                "Espressif's user guide)")
    for header in board.headers:
        h.part(f"DevKitC-1 {header}", board, header, used_only=True,
               show=_source_line(board, header))
    feeds = {_5V: board.named("5V")[0], _3V3: board.named("3V3")[0], _GND: board.named("G")[0]}
    for rail, pin in feeds.items():
        h.link(f"DevKitC-1 {pin.header}", pin.pin, h.rail(rail), 1, rail)

    def gpio(number: int) -> tuple[str, PinId]:
        pin = board.pin_of_gpio(number)
        return f"DevKitC-1 {pin.header}", pin.pin

    colours = _colours()
    for name, dev in data["devices"].items():
        pins: dict[str, int] = dev["pins"]
        kind = dev["kind"]
        if kind == "ws2812":
            ring = parts[dev["parts"][0]]
            h.part(name, ring, show=_source_line(ring))
            _buffer(h, parts, gpio(pins["data"]), (name, _role_pin(ring, "data")),
                    f"{name} data", f"{name} data (GPIO{pins['data']})")
            h.to_rail(_5V, name, _role_pin(ring, _5V))
            h.to_rail(_GND, name, _role_pin(ring, _GND))
            _bulk_capacitor(h, parts, "C2", name)
        elif kind == "pwm_buzzer":
            _buzzer(h, parts, gpio(pins["pwm"]), f"buzzer PWM (GPIO{pins['pwm']})",
                    dev["parts"], (h.rail(_5V), 1), (h.rail(_GND), 1), next(colours))
        else:
            part = parts[dev["parts"][0]]
            generic = part.source.title.startswith("none: a generic module")
            h.part(name, part, show=_source_line(part) if generic else "")
            colour = next(colours)
            for role, number in pins.items():
                h.link(*gpio(number), name, _role_pin(part, role),
                       f"{name} {role} (GPIO{number})", colour)
            for pin in part.pins():
                if pin.role in RAILS:
                    h.to_rail(pin.role, name, pin.pin)
    return h


def hub_panel_harness(pinout: dict[str, Any] | None = None,
                      parts: dict[str, Part] | None = None) -> Harness:
    """The hub panel on the Raspberry Pi's 40-pin header: buttons, buzzer, status LED.

    Each device's wires go to the header pins its ``settings`` name (``header_pin``,
    ``ground_pin``, ``supply_pin``), so the README's table and the diagram are one fact.
    """
    data = pinout if pinout is not None else _pinout_json("hub-panel.json")
    parts = parts if parts is not None else load_parts()
    pi = parts[HUB_BOARD]
    header = "J8"
    h = Harness("Hub panel (Raspberry Pi 40-pin header J8: physical pin numbers, BCM GPIOs)")
    j8 = "Pi J8"
    h.part(j8, pi, header, used_only=True, show=_source_line(pi, header))
    colours = _colours()
    for name, dev in data["devices"].items():
        pins: dict[str, int] = dev["pins"]
        settings: dict[str, Any] = dev["settings"]
        kind = dev["kind"]
        ground = (j8, settings["ground_pin"])
        colour = next(colours)
        if kind == "pwm_buzzer":
            _buzzer(h, parts, (j8, settings["header_pin"]), f"buzzer PWM (GPIO{pins['pwm']})",
                    dev["parts"], (j8, settings["supply_pin"]), ground, colour)
        elif kind == "led":
            gpio = pins["output"]
            led = parts[dev["parts"][0]]
            resistor = h.designator("R")
            h.part(resistor, parts["330R"])
            h.part(name, led)
            h.link(j8, settings["header_pin"], resistor, 1, f"{name} output (GPIO{gpio})",
                   colour)
            h.link(resistor, 2, name, _role_pin(led, "anode"), f"{name} anode", colour)
            h.link(name, _role_pin(led, _GND), *ground, _GND)
        else:
            gpio = pins["input"]
            button = parts[dev["parts"][0]]
            h.part(name, button)
            h.link(j8, settings["header_pin"], name, _role_pin(button, "input"),
                   f"{name} input (GPIO{gpio})", colour)
            h.link(name, _role_pin(button, _GND), *ground, _GND)
    return h


def led_board_harness(led_map: dict[str, Any] | None = None,
                      parts: dict[str, Part] | None = None) -> Harness:
    """The territory LED board: the supply, the Pico, the level shifter and the chain."""
    data = led_map if led_map is not None else _pinout_json("led-map.json")
    parts = parts if parts is not None else load_parts()
    ctl: dict[str, Any] = data["controller"]
    pico = parts[PICO]
    h = Harness(f"Territory LED board ({data['led_count']} WS2812B, one chain; Pico pins "
                "numbered as in the Raspberry Pi Pico datasheet)")
    h.part("Pico", pico, used_only=True, show=_source_line(pico))
    h.part("PSU", parts["GST60A05-P1J"])
    h.part("J1", parts["DC-022 socket"])
    h.part("F1", parts["inline ATO holder"])
    h.part("D1", parts["1N5817"])
    h.part("LEDS", parts["WS2812B 60/m IP30 5V"])
    h.link("PSU", "+", "J1", "+", _5V)
    h.link("PSU", "-", "J1", "-", _GND)
    h.link("J1", "+", "F1", "in", _5V)
    h.link("F1", "out", h.rail(_5V), 1, _5V)
    h.link("J1", "-", h.rail(_GND), 1, _GND)
    # The LED supply reaches VSYS through a Schottky diode, so it and the hub's USB
    # (VBUS, through the Pico's own diode) can both be plugged in.
    h.to_rail(_5V, "D1", "A")
    h.link("D1", "K", "Pico", "VSYS", _VSYS)
    vsys = pico.named("VSYS")[0].pin
    ground = min((p.pin for p in pico.named(_GND)), key=lambda n: abs(int(n) - int(vsys)))
    h.to_rail(_GND, "Pico", ground)
    data_pin = pico.pin_of_gpio(ctl["data_gpio"])
    _buffer(h, parts, ("Pico", data_pin.pin), ("LEDS", "DIN"), "chain data",
            f"chain data ({data_pin.name})")
    h.to_rail(_5V, "LEDS", _5V)
    h.to_rail(_GND, "LEDS", _GND)
    _bulk_capacitor(h, parts, "C2", "LEDS")
    return h


HARNESSES = {"seat": seat_harness, "led-board": led_board_harness, "hub-panel": hub_panel_harness}

_VERSION_COMMENT = re.compile(r"<!-- Generated by graphviz version [^>]*-->\n?")


def render(harness: Harness, kind: str = "svg") -> bytes:
    """The harness laid out by WireViz and graphviz (``svg`` or ``png``)."""
    from wireviz.wireviz import parse

    out = parse(harness.wireviz(), return_types=kind)
    return out if isinstance(out, bytes) else str(out).encode("utf-8")


def render_svg(harness: Harness) -> str:
    """The harness laid out by WireViz and graphviz, as deterministic SVG text."""
    return _VERSION_COMMENT.sub("", render(harness, "svg").decode("utf-8"))


def write_diagrams(out: Path, png: bool = False) -> list[Path]:
    """Write each board's WireViz YAML and SVG (and PNG if asked) into ``out``."""
    import yaml

    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, build in HARNESSES.items():
        harness = build(None, None)
        source = out / f"{name}.yml"
        source.write_text(yaml.safe_dump(harness.wireviz(), sort_keys=False), encoding="utf-8")
        svg = out / f"{name}.svg"
        svg.write_text(render_svg(harness), encoding="utf-8")
        written += [source, svg]
        if png:
            image = out / f"{name}.png"
            image.write_bytes(render(harness, "png"))
            written.append(image)
    return written


def main(argv: list[str] | None = None) -> int:
    """``python -m risktable.hardware.wiring --out hardware/diagrams``."""
    parser = argparse.ArgumentParser(description="Generate the boards' wiring diagrams.")
    parser.add_argument("--out", type=Path, default=Path("hardware/diagrams"))
    parser.add_argument("--png", action="store_true",
                        help="also write a PNG of each diagram (to look at, not checked in)")
    args = parser.parse_args(argv)
    for path in write_diagrams(args.out, png=args.png):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["HARNESSES", "Harness", "Link", "main", "render", "render_svg", "write_diagrams"]
