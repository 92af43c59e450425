"""The parts table (``hardware/parts.json``): every part's pins as its datasheet numbers them.

Each part with pins in ``bom.csv`` is listed under its BOM part number: its pins (one
header, or several named headers such as the DevKitC-1's J1 and J3), each with the
physical pin number, the name printed beside it, its function and, for a
microcontroller pin, the GPIO it carries; and the document the numbers come from. A
generic module (an RC522 board, an SSD1306 board, a ring) has no datasheet numbering,
so its pins are named by their silkscreen. A pin's ``role`` ties it to a pinout role
(``data``, ``a``, ``cs`` ...) or to the rail it takes (``5V``, ``3V3``, ``GND``).

The wiring diagrams (:mod:`risktable.hardware.wiring`) draw every pin from this table.

>>> pico = load_parts()["SC0915 (Raspberry Pi Pico)"]
>>> pico.pin_of_gpio(2).pin, pico.pin_of_gpio(2).name
(4, 'GP2')
>>> [p.pin for p in pico.named("VSYS")]
[39]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from risktable.hardware.data import HardwareDataError, Source, _field, _read

__all__ = ["Part", "PartPin", "Reference", "load_parts"]

# Names several pins of one header may share: supplies and grounds.
_SHARED_NAMES = frozenset({"GND", "G", "3V3", "5V", "VBUS"})

PinId = int | str


@dataclass(frozen=True)
class PartPin:
    """One pin: its physical number (or printed name), name, function, GPIO and role."""

    header: str
    pin: PinId
    name: str
    function: str
    gpio: int | None = None
    role: str | None = None


@dataclass(frozen=True)
class Reference:
    """Where a part's pin numbers come from (``title`` alone for a generic part)."""

    title: str
    revision: str = ""
    where: str = ""
    address: str = ""
    checked: str = ""


@dataclass(frozen=True)
class Part:
    """A part of the BOM with its pins, header by header (``""`` for a single one)."""

    part_number: str
    name: str
    source: Reference
    headers: Mapping[str, tuple[PartPin, ...]]
    note: str = ""

    def pins(self) -> tuple[PartPin, ...]:
        """Every pin of every header, in table order."""
        return tuple(pin for pins in self.headers.values() for pin in pins)

    def pin(self, header: str, pin: PinId) -> PartPin:
        """The pin numbered (or printed) ``pin`` on ``header``."""
        for candidate in self.headers[header]:
            if candidate.pin == pin:
                return candidate
        raise KeyError(f"{self.part_number}: no pin {pin!r} on header {header!r}")

    def named(self, name: str) -> tuple[PartPin, ...]:
        """The pins printed ``name`` (a ground or a supply may have several)."""
        return tuple(pin for pin in self.pins() if pin.name == name)

    def pin_of_gpio(self, gpio: int) -> PartPin:
        """The pin that carries GPIO ``gpio``."""
        for pin in self.pins():
            if pin.gpio == gpio:
                return pin
        raise KeyError(f"{self.part_number}: no pin carries GPIO{gpio}")

    def with_role(self, role: str) -> tuple[PartPin, ...]:
        """The pins whose role is ``role``."""
        return tuple(pin for pin in self.pins() if pin.role == role)


def _pins(header: str, entries: Any, where: str) -> tuple[PartPin, ...]:
    if not isinstance(entries, list) or not entries:
        raise HardwareDataError(f"{where}: pins must be a non-empty list")
    pins = []
    for entry in entries:
        number = entry.get("pin") if isinstance(entry, dict) else None
        if isinstance(number, bool) or not isinstance(number, int | str):
            raise HardwareDataError(f"{where}: a pin needs a number or a printed name")
        at = f"{where} pin {number}"
        gpio = entry.get("gpio")
        if gpio is not None and (isinstance(gpio, bool) or not isinstance(gpio, int)):
            raise HardwareDataError(f"{at}: 'gpio' must be a GPIO number")
        role = entry.get("role")
        if role is not None and not isinstance(role, str):
            raise HardwareDataError(f"{at}: 'role' must be a string")
        pins.append(PartPin(header, number, _field(entry, "name", str, at),
                            _field(entry, "function", str, at), gpio, role))
    numbers = [p.pin for p in pins]
    if len(set(numbers)) != len(numbers):
        raise HardwareDataError(f"{where}: a pin number appears twice")
    names = [p.name for p in pins if p.name not in _SHARED_NAMES]
    if len(set(names)) != len(names):
        raise HardwareDataError(f"{where}: a pin name other than a supply or ground appears twice")
    return tuple(pins)


def load_parts(source: Source | None = None) -> dict[str, Part]:
    """Load and check ``hardware/parts.json`` (or ``source``): parts by BOM part number.

    Checks: every part names its source; pin numbers are unique per header; only
    supplies and grounds share a name; no GPIO is on two pins of one part.
    """
    name, data = _read(source, "parts.json")
    parts: dict[str, Part] = {}
    for number, entry in _field(data, "parts", dict, name).items():
        where = f"{name} {number}"
        ref = _field(entry, "source", dict, where)
        reference = Reference(
            title=_field(ref, "title", str, f"{where} source"),
            **{key: str(ref[key]) for key in ("revision", "where", "address", "checked")
               if key in ref})
        if "headers" in entry:
            headers = {header: _pins(header, pins, f"{where} {header}")
                       for header, pins in _field(entry, "headers", dict, where).items()}
        else:
            headers = {"": _pins("", _field(entry, "pins", list, where), where)}
        gpios = [pin.gpio for pins in headers.values() for pin in pins if pin.gpio is not None]
        if len(set(gpios)) != len(gpios):
            raise HardwareDataError(f"{where}: a GPIO is on two pins")
        parts[number] = Part(number, _field(entry, "name", str, where), reference,
                             MappingProxyType(headers), str(entry.get("note", "")))
    return parts
