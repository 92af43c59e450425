"""hardware/bom.csv: a well-formed bill of materials whose totals the README quotes."""

from __future__ import annotations

import csv
import re
from decimal import Decimal

from risktable.hardware_data import load_led_map
from tests.support.tools import ROOT

BOM = ROOT / "hardware" / "bom.csv"
README = ROOT / "hardware" / "README.md"
COLUMNS = ["board", "item", "manufacturer", "part_number", "quantity", "unit_price_usd", "note"]
BOARDS = {"seat", "led_board", "hub", "cards"}


def rows() -> list[dict[str, str]]:
    with BOM.open(newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader)
        assert header == COLUMNS
        body = list(reader)
    assert all(len(row) == len(COLUMNS) for row in body), "a field holds an unquoted comma"
    return [dict(zip(COLUMNS, row, strict=True)) for row in body]


def test_every_row_is_complete() -> None:
    for row in rows():
        assert row["board"] in BOARDS, row
        assert row["item"] and row["manufacturer"] and row["part_number"], row
        assert int(row["quantity"]) > 0, row
        assert re.fullmatch(r"\d+\.\d\d", row["unit_price_usd"]), row


def test_readme_quotes_the_totals() -> None:
    totals: dict[str, Decimal] = {}
    for row in rows():
        cost = int(row["quantity"]) * Decimal(row["unit_price_usd"])
        totals[row["board"]] = totals.get(row["board"], Decimal(0)) + cost
    assert set(totals) == BOARDS
    text = README.read_text(encoding="utf-8")
    for board, total in totals.items():
        assert f"| {board} | {total:.2f} |" in text


def test_the_led_strip_covers_the_map() -> None:
    strip = next(r for r in rows() if r["board"] == "led_board" and "strip" in r["item"])
    found = re.search(r"(\d+) LEDs/m \((\d+) m\)", strip["item"])
    assert found, strip["item"]
    per_metre, metres = (int(n) for n in found.groups())
    assert per_metre * metres * int(strip["quantity"]) >= load_led_map().led_count
