"""The bill of materials (``hardware/bom.csv``) and the quantities it must hold.

Every quantity in the BOM follows from something else in the repository: a
part listed by the devices of a pinout is needed once per device that lists
it; the LED board's capacitors sit at its power injection points
(``led-map.json``, ``electrical.injection_leds``); the strip must cover the
map's ``led_count``; the NFC tags cover the largest deck the hub enrolls plus
spares; the dice tray's parts are listed by the devices of ``tray.json``. The
remaining parts (the board itself, its supply, wire, perfboard)
are one per board. :func:`check_bom` compares the file with those rules, so
a quantity edited by hand, or a pinout change that needs one more part, is
caught by the tests.

>>> [p for p in check_bom(load_bom())]
[]
>>> expected_quantities()[("seat", "B3F-4055")].quantity
3
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from risktable.hardware.data import HardwareDataError, Source, hardware_file, load_led_map

__all__ = [
    "COLUMNS",
    "ONE_PER_BOARD",
    "OPTIONAL_BOARDS",
    "SPARE_TAGS",
    "BomRow",
    "Expected",
    "board_totals",
    "check_bom",
    "expected_quantities",
    "load_bom",
    "table_cost",
]

COLUMNS = ("board", "item", "manufacturer", "part_number", "quantity", "unit_price_usd", "note")

# Tags bought beyond the largest enrolled deck: stickers tear when peeled, and
# a card worn out in play is re-tagged and re-enrolled.
SPARE_TAGS = 6

# Parts a board needs exactly one of whatever devices it carries: the board
# itself, its supply, its enclosure and its wiring stock.
ONE_PER_BOARD: dict[str, frozenset[str]] = {
    "seat": frozenset({
        "ESP32-S3-DevKitC-1-N8R8", "perfboard 7x9", "USB 5V 2A", "assorted",
        "ABS box 200x120x56",
    }),
    "led_board": frozenset({
        "GST60A05-P1J", "DC-022 socket", "inline ATO holder", "18AWG silicone",
        "3-core 22AWG", "base sheet", "USB micro-B cable",
    }),
    "hub": frozenset({
        "Raspberry Pi 4 Model B 2 GB", "official 15.3 W USB-C PSU", "microSD 32GB A1",
        "Pi 4 case", "Dupont F-F",
    }),
}

# Boards a table may do without, left out of its cost: the dice tray (camera, light and
# mount) and the webcam that may take the place of its camera.
OPTIONAL_BOARDS = frozenset({"tray", "tray_webcam"})

# The pinout file whose devices' ``parts`` make up each board.
_PINOUTS = {"seat": "seat-pinout.json", "hub": "hub-panel.json"}
_STRIP = re.compile(r"(\d+) LEDs/m \((\d+) m\)")
_RING = re.compile(r"ring (\d+) LEDs")
_CAPACITOR_AT_INJECTION = "EEU-FR1A102"
_TAG = "NTAG213 sticker"


@dataclass(frozen=True)
class BomRow:
    """One line of ``bom.csv``: a part and how many one board needs."""

    board: str
    item: str
    manufacturer: str
    part_number: str
    quantity: int
    unit_price_usd: Decimal
    note: str


@dataclass(frozen=True)
class Expected:
    """The quantity a BOM row must hold and where that number comes from."""

    quantity: int
    why: str


def load_bom(source: Source | None = None) -> tuple[BomRow, ...]:
    """Read ``hardware/bom.csv`` (or ``source``); malformed lines raise HardwareDataError."""
    text = (hardware_file("bom.csv") if source is None
            else Path(source) if isinstance(source, str) else source).read_text(
        encoding="utf-8")
    reader = csv.reader(io.StringIO(text, newline=""))
    header = tuple(next(reader, ()))
    if header != COLUMNS:
        raise HardwareDataError(f"bom.csv: header must be {','.join(COLUMNS)}")
    result = []
    for line, fields in enumerate(reader, start=2):
        if len(fields) != len(COLUMNS):
            raise HardwareDataError(
                f"bom.csv line {line}: {len(fields)} fields, expected {len(COLUMNS)} "
                "(a field with a comma must be quoted)")
        row = dict(zip(COLUMNS, fields, strict=True))
        try:
            quantity = int(row["quantity"])
            price = Decimal(row["unit_price_usd"])
        except (ArithmeticError, ValueError):
            raise HardwareDataError(f"bom.csv line {line}: bad quantity or price") from None
        result.append(BomRow(row["board"], row["item"], row["manufacturer"],
                             row["part_number"], quantity, price, row["note"]))
    return tuple(result)


def _raw(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(hardware_file(name).read_text(encoding="utf-8"))
    return data


def _largest_deck() -> tuple[str, int]:
    # Imported here: the rules engine is heavier than the hardware data module.
    from risktable.cards.deck_file import DECK_FILES
    from risktable.rules.board import classic_board
    from risktable.rules.decks import deck_cards

    board = classic_board()
    sizes = {deck: len(deck_cards(board, deck)) for deck in DECK_FILES}
    deck = max(sizes, key=lambda d: sizes[d])
    return deck, sizes[deck]


def _led_board(rows: tuple[BomRow, ...]) -> dict[str, Expected]:
    led_map = load_led_map()
    data = _raw("led-map.json")
    expected: dict[str, Expected] = {}
    for part, count in Counter(data["controller"]["parts"]).items():
        expected[part] = Expected(count, f"listed {count} time(s) by the LED controller")
    injections = data["electrical"].get("injection_leds", [])
    bad = [i for i in injections if not 0 <= i < led_map.led_count]
    if bad or 0 not in injections or led_map.led_count - 1 not in injections:
        raise HardwareDataError(
            "led-map.json electrical: injection_leds must lie on the chain and include "
            f"its first and last LED, got {injections}")
    expected[_CAPACITOR_AT_INJECTION] = Expected(
        len(injections), f"one at each of the {len(injections)} power injection points")
    for row in rows:
        found = _STRIP.search(row.item)
        if row.board == "led_board" and found:
            per_reel = int(found.group(1)) * int(found.group(2))
            reels = math.ceil(led_map.led_count / per_reel)
            expected[row.part_number] = Expected(
                reels, f"{led_map.led_count} LEDs from reels of {per_reel}")
    return expected


def expected_quantities(rows: tuple[BomRow, ...] | None = None) -> dict[tuple[str, str], Expected]:
    """For each (board, part number), the quantity the BOM must hold and why.

    ``rows`` (default: the BOM itself) supplies only the reel length of the LED
    strip, which the item's description states.
    """
    rows = load_bom() if rows is None else rows
    expected: dict[tuple[str, str], Expected] = {}
    for board, name in _PINOUTS.items():
        counts: Counter[str] = Counter()
        for entry in _raw(name)["devices"].values():
            counts.update(entry["parts"])
        for part, count in counts.items():
            expected[(board, part)] = Expected(count, f"listed by {count} device(s) of {name}")
    for part, exp in _led_board(rows).items():
        expected[("led_board", part)] = exp
    for board, parts in ONE_PER_BOARD.items():
        for part in parts:
            expected.setdefault((board, part), Expected(1, "one per board"))
    for device, entry in _raw("tray.json")["devices"].items():
        for part, count in Counter(entry["parts"]).items():
            expected[(entry["board"], part)] = Expected(
                count, f"listed {count} time(s) by tray.json's {device}")
    deck, size = _largest_deck()
    expected[("cards", _TAG)] = Expected(
        size + SPARE_TAGS, f"{size} cards in the {deck} deck and {SPARE_TAGS} spares")
    return expected


def check_bom(rows: tuple[BomRow, ...]) -> list[str]:
    """Every way ``rows`` differs from :func:`expected_quantities`; empty when it agrees."""
    expected = expected_quantities(rows)
    problems = []
    seen: set[tuple[str, str]] = set()
    for row in rows:
        key = (row.board, row.part_number)
        if key in seen:
            problems.append(f"{row.board} {row.part_number}: listed twice")
        seen.add(key)
        want = expected.get(key)
        if want is None:
            problems.append(f"{row.board} {row.part_number}: no pinout, map or deck needs it")
        elif row.quantity != want.quantity:
            problems.append(f"{row.board} {row.part_number}: quantity {row.quantity}, "
                            f"expected {want.quantity} ({want.why})")
    for board, part in sorted(set(expected) - seen):
        problems.append(f"{board} {part}: needed ({expected[(board, part)].why}) "
                        "but not in the BOM")
    ring = _raw("seat-pinout.json")["devices"]["led_ring"]
    for row in rows:
        found = _RING.search(row.item)
        if row.board == "seat" and found and int(found.group(1)) != ring["settings"]["count"]:
            problems.append(f"seat {row.part_number}: a ring of {found.group(1)} LEDs, "
                            f"the pinout drives {ring['settings']['count']}")
    return problems


def board_totals(rows: tuple[BomRow, ...]) -> dict[str, Decimal]:
    """Cost of one of each board (and of the card tags), in US dollars."""
    totals: dict[str, Decimal] = {}
    for row in rows:
        totals[row.board] = totals.get(row.board, Decimal(0)) + row.quantity * row.unit_price_usd
    return totals


def table_cost(rows: tuple[BomRow, ...], seats: int) -> Decimal:
    """Cost of a whole table: ``seats`` seat controllers, one LED board, hub and tag set
    (the optional dice tray left out)."""
    totals = board_totals(rows)
    return sum((total * (seats if board == "seat" else 1) for board, total in totals.items()
                if board not in OPTIONAL_BOARDS), Decimal(0))
