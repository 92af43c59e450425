"""The hardware data files: territory LED map and board pinouts, loaded and checked.

The files live in the repository's ``hardware/`` folder, which is not inside
the Python package. :func:`hardware_file` finds them as package data
(``risktable/hardware/files/`` in an installed wheel) or, failing that, in the
source checkout. Every loader checks the file's invariants and
raises :class:`HardwareDataError` naming the file and the entry at fault.

>>> led_map = load_led_map()
>>> led_map.territories["alaska"].label, led_map.chain()[0]
('ALK', 'alaska')
>>> load_seat_pinout().pin("encoder", "a")
4
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from types import MappingProxyType
from typing import Any

from riskproto.territories import TERRITORIES

__all__ = [
    "TERRITORY_IDS",
    "Device",
    "Electrical",
    "Grid",
    "HardwareDataError",
    "LedMap",
    "Pinout",
    "TerritoryLeds",
    "hardware_file",
    "load_hub_panel_pinout",
    "load_led_map",
    "load_seat_pinout",
]

# The 42 territory ids, in the protocol's order (riskproto is the one definition
# both the hub and the firmware share).
TERRITORY_IDS: tuple[str, ...] = TERRITORIES

RGB = tuple[int, int, int]
Source = Traversable | Path | str


class HardwareDataError(ValueError):
    """A hardware data file is malformed or breaks one of its invariants."""


def hardware_file(name: str) -> Traversable:
    """Return the hardware data file ``name`` (for example ``"led-map.json"``).

    An installed package carries the files as ``risktable/hardware/files/``; a
    source checkout keeps them in ``hardware/`` beside ``hub/``.
    """
    packaged = resources.files("risktable.hardware") / "files" / name
    if packaged.is_file():
        return packaged
    checkout = Path(__file__).resolve().parents[3] / "hardware" / name
    if checkout.is_file():
        return checkout
    raise FileNotFoundError(f"hardware data file {name!r} is neither packaged nor in the checkout")


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # json.load keeps the last of two equal keys without a word; in these
    # files a repeated territory or device is always a mistake.
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise HardwareDataError(f"{key!r} appears twice")
        result[key] = value
    return result


def _read(source: Source | None, default_name: str) -> tuple[str, dict[str, Any]]:
    if source is None:
        source = hardware_file(default_name)
    elif isinstance(source, str):
        source = Path(source)
    name = source.name
    try:
        data = json.loads(source.read_text(encoding="utf-8"), object_pairs_hook=_no_duplicate_keys)
    except HardwareDataError as exc:
        raise HardwareDataError(f"{name}: {exc}") from None
    except ValueError as exc:
        raise HardwareDataError(f"{name}: not valid JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != 1:
        raise HardwareDataError(f'{name}: expected a JSON object with "format": 1')
    return name, data


def _field(obj: Any, key: str, kind: type, where: str) -> Any:
    if not isinstance(obj, dict) or key not in obj:
        raise HardwareDataError(f"{where}: missing {key!r}")
    value = obj[key]
    # bool is an int to Python, never to these files.
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise HardwareDataError(f"{where}: {key!r} must be {kind.__name__}, not {value!r}")
    return value


def _number(obj: Any, key: str, where: str) -> float:
    value = obj.get(key) if isinstance(obj, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise HardwareDataError(f"{where}: {key!r} must be a number, not {value!r}")
    return float(value)


@dataclass(frozen=True)
class Grid:
    """The character grid the terminal map is drawn on; each cell is ``cell_width`` wide."""

    width: int
    height: int
    cell_width: int


@dataclass(frozen=True)
class Electrical:
    """What the LED board draws: per colour channel at full, per idle LED, and its supply."""

    volts: float
    ma_per_channel: float
    idle_ma_per_led: float
    supply_ma: float
    budget_ma: float


@dataclass(frozen=True)
class TerritoryLeds:
    """One territory on the LED board: its LEDs along the chain and its terminal cell."""

    label: str
    leds: tuple[int, ...]
    col: int
    row: int


@dataclass(frozen=True)
class LedMap:
    """The territory LED board: which LEDs sit under which territory, and where to draw it.

    ``led_count`` LEDs form one chain, indices ``0 .. led_count - 1``, each
    under exactly one territory. ``controller_data_gpio`` is the LED
    controller's data pin.
    """

    led_count: int
    grid: Grid
    electrical: Electrical
    controller_data_gpio: int
    territories: Mapping[str, TerritoryLeds]

    def chain(self) -> tuple[str, ...]:
        """Territory ids in the order the data line reaches them."""
        return tuple(sorted(self.territories, key=lambda t: self.territories[t].leds[0]))

    def territory_of_led(self) -> tuple[str, ...]:
        """For each LED index, the territory it lights."""
        owners = [""] * self.led_count
        for territory, place in self.territories.items():
            for led in place.leds:
                owners[led] = territory
        return tuple(owners)

    def current_ma(self, colours: Mapping[str, RGB]) -> float:
        """Estimated supply current when each territory's LEDs show ``colours[territory]``.

        Territories left out are dark. Each channel draws in proportion to its
        value (0-255) up to ``ma_per_channel``; every LED draws its idle
        current regardless.

        >>> board = load_led_map()
        >>> round(board.current_ma({}) / board.led_count, 3)
        1.0
        """
        e = self.electrical
        lit = sum(
            len(self.territories[territory].leds) * sum(rgb) / 255 * e.ma_per_channel
            for territory, rgb in colours.items()
        )
        return lit + self.led_count * e.idle_ma_per_led


def load_led_map(source: Source | None = None) -> LedMap:
    """Load and check ``hardware/led-map.json`` (or the file ``source``).

    Checks: every territory id exactly once, nothing else; LED indices cover
    ``0 .. led_count - 1`` with none used twice; labels are three capital
    letters, all different; every cell lies inside the grid and no two cells
    on a row overlap or touch.
    """
    name, data = _read(source, "led-map.json")
    led_count = _field(data, "led_count", int, name)
    grid_data = _field(data, "grid", dict, name)
    grid = Grid(
        width=_field(grid_data, "width", int, f"{name} grid"),
        height=_field(grid_data, "height", int, f"{name} grid"),
        cell_width=_field(grid_data, "cell_width", int, f"{name} grid"),
    )
    power = _field(data, "electrical", dict, name)
    electrical = Electrical(
        *(
            _number(power, key, f"{name} electrical")
            for key in ("volts", "ma_per_channel", "idle_ma_per_led", "supply_ma", "budget_ma")
        )
    )
    controller = _field(data, "controller", dict, name)
    data_gpio = _field(controller, "data_gpio", int, f"{name} controller")
    if data_gpio not in _PICO_GPIO:
        raise HardwareDataError(f"{name} controller: GP{data_gpio} is not a Pico GPIO")

    territories_data = _field(data, "territories", dict, name)
    _check_ids(territories_data, name)
    territories: dict[str, TerritoryLeds] = {}
    for territory, entry in territories_data.items():
        where = f"{name} {territory}"
        leds = _field(entry, "leds", list, where)
        if not leds or not all(isinstance(i, int) and not isinstance(i, bool) for i in leds):
            raise HardwareDataError(f"{where}: 'leds' must be a non-empty list of LED indices")
        territories[territory] = TerritoryLeds(
            label=_field(entry, "label", str, where),
            leds=tuple(leds),
            col=_field(entry, "col", int, where),
            row=_field(entry, "row", int, where),
        )
    _check_leds(territories, led_count, name)
    _check_cells(territories, grid, name)
    return LedMap(
        led_count=led_count,
        grid=grid,
        electrical=electrical,
        controller_data_gpio=data_gpio,
        territories=MappingProxyType(territories),
    )


# Raspberry Pi Pico GPIOs brought out to its pins.
_PICO_GPIO = frozenset(range(23)) | {26, 27, 28}


def _check_ids(territories: Mapping[str, Any], name: str) -> None:
    missing = [t for t in TERRITORY_IDS if t not in territories]
    unknown = [t for t in territories if t not in TERRITORY_IDS]
    if missing or unknown:
        raise HardwareDataError(f"{name}: missing territories {missing}, unknown {unknown}")


def _check_leds(territories: Mapping[str, TerritoryLeds], led_count: int, name: str) -> None:
    owner: dict[int, str] = {}
    for territory, place in territories.items():
        for led in place.leds:
            if not 0 <= led < led_count:
                raise HardwareDataError(
                    f"{name} {territory}: LED {led} is outside 0..{led_count - 1}"
                )
            if led in owner:
                raise HardwareDataError(
                    f"{name} {territory}: LED {led} is already under {owner[led]}"
                )
            owner[led] = territory
    # A gap would be an LED in the chain that nothing drives on purpose: a typo.
    if len(owner) != led_count:
        unused = sorted(set(range(led_count)) - set(owner))
        raise HardwareDataError(f"{name}: LEDs {unused} are under no territory")


def _check_cells(territories: Mapping[str, TerritoryLeds], grid: Grid, name: str) -> None:
    labels: dict[str, str] = {}
    rows: dict[int, list[tuple[int, str]]] = {}
    for territory, place in territories.items():
        where = f"{name} {territory}"
        if len(place.label) != 3 or not place.label.isascii() or not place.label.isupper():
            raise HardwareDataError(f"{where}: label must be three capital letters")
        if place.label in labels:
            raise HardwareDataError(f"{where}: label {place.label} is also {labels[place.label]}'s")
        labels[place.label] = territory
        inside = 0 <= place.row < grid.height and 0 <= place.col <= grid.width - grid.cell_width
        if not inside:
            raise HardwareDataError(
                f"{where}: cell at column {place.col}, row {place.row} "
                f"is outside the {grid.width}x{grid.height} grid"
            )
        rows.setdefault(place.row, []).append((place.col, territory))
    for row, cells in rows.items():
        cells.sort()
        for (col, left), (next_col, right) in itertools.pairwise(cells):
            # One blank column between cells, so two labels never read as one.
            if next_col <= col + grid.cell_width:
                raise HardwareDataError(f"{name}: {left} and {right} overlap on row {row}")


@dataclass(frozen=True)
class Device:
    """One part wired to a board: what it is, its pins by role, and its settings."""

    kind: str
    pins: Mapping[str, int]
    settings: Mapping[str, Any]
    bus: str | None
    note: str


@dataclass(frozen=True)
class Pinout:
    """A board's pin assignment: every device and the GPIOs it uses."""

    board: str
    devices: Mapping[str, Device]
    avoid: Mapping[int, str]

    def pin(self, device: str, role: str) -> int:
        """GPIO number of ``device``'s pin ``role`` (``KeyError`` names what is missing)."""
        try:
            return self.devices[device].pins[role]
        except KeyError:
            raise KeyError(f"{self.board}: no pin {role!r} on device {device!r}") from None

    def used(self) -> dict[int, str]:
        """Every GPIO in use, mapped to ``"device.role"``."""
        return {
            gpio: f"{name}.{role}"
            for name, device in self.devices.items()
            for role, gpio in device.pins.items()
        }


def _load_pinout(source: Source | None, default_name: str) -> Pinout:
    name, data = _read(source, default_name)
    board = _field(data, "board", str, name)
    gpio = _field(data, "gpio", dict, name)
    exposed = _field(gpio, "exposed", list, f"{name} gpio")
    avoid_data = _field(gpio, "avoid", dict, f"{name} gpio")
    try:
        avoid = {int(pin): str(why) for pin, why in avoid_data.items()}
    except ValueError:
        raise HardwareDataError(f"{name} gpio: 'avoid' keys must be GPIO numbers") from None
    devices: dict[str, Device] = {}
    taken: dict[int, str] = {}
    for device_name, entry in _field(data, "devices", dict, name).items():
        where = f"{name} {device_name}"
        pins = _field(entry, "pins", dict, where)
        for role, gpio_number in pins.items():
            role_name = f"{device_name}.{role}"
            if isinstance(gpio_number, bool) or not isinstance(gpio_number, int):
                raise HardwareDataError(f"{where}: pin {role!r} must be a GPIO number")
            if gpio_number not in exposed:
                raise HardwareDataError(f"{where}: GPIO{gpio_number} is not on {board}'s headers")
            if gpio_number in avoid:
                raise HardwareDataError(
                    f"{where}: GPIO{gpio_number} is to be avoided ({avoid[gpio_number]})"
                )
            if gpio_number in taken:
                raise HardwareDataError(
                    f"{where}: GPIO{gpio_number} for {role_name} is already {taken[gpio_number]}"
                )
            taken[gpio_number] = role_name
        bus = entry.get("bus")
        if bus is not None and not isinstance(bus, str):
            raise HardwareDataError(f"{where}: 'bus' must be a string")
        devices[device_name] = Device(
            kind=_field(entry, "kind", str, where),
            pins=MappingProxyType(dict(pins)),
            settings=MappingProxyType(dict(entry.get("settings", {}))),
            bus=bus,
            note=_field(entry, "note", str, where),
        )
    return Pinout(board=board, devices=MappingProxyType(devices), avoid=MappingProxyType(avoid))


def load_seat_pinout(source: Source | None = None) -> Pinout:
    """Load and check ``hardware/seat-pinout.json``, the ESP32-S3 seat controller's pins.

    Checks: every pin is a GPIO on the board's headers, none is on the
    board's avoid list (strapping, flash, PSRAM, USB, console), and no GPIO
    serves two roles.
    """
    return _load_pinout(source, "seat-pinout.json")


def load_hub_panel_pinout(source: Source | None = None) -> Pinout:
    """Load and check ``hardware/hub-panel.json``, the hub panel on the Raspberry Pi GPIO.

    Pins are Broadcom (BCM) numbers, as gpiozero takes them. Same checks as
    :func:`load_seat_pinout`.
    """
    return _load_pinout(source, "hub-panel.json")
