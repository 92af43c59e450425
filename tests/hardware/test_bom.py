"""hardware/bom.csv: a well-formed bill of materials whose totals the README quotes."""

from __future__ import annotations

import csv
import json
import re
from dataclasses import replace
from decimal import Decimal

from riskproto.topics import MAX_SEATS
from risktable.cards.deck_file import DECK_FILES
from risktable.hardware.bom import SPARE_TAGS, check_bom, expected_quantities, load_bom, table_cost
from risktable.hardware.data import load_led_map
from risktable.rules import classic_board
from risktable.rules.decks import deck_cards
from tests.support.tools import ROOT

BOM = ROOT / "hardware" / "bom.csv"
README = ROOT / "hardware" / "README.md"
COLUMNS = ["board", "item", "manufacturer", "part_number", "quantity", "unit_price_usd", "note"]
BOARDS = {"seat", "led_board", "hub", "cards", "tray", "tray_webcam"}


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


# The pinout files and the board whose BOM rows their parts are in.
PINOUT_BOARDS = {"seat-pinout.json": "seat", "hub-panel.json": "hub"}
# Logic-chip names (74-series), the kind of part number that slips between documents.
CHIP = re.compile(r"\b(?:SN)?74[A-Z]{1,6}\d[A-Z0-9]*\b")


def _bom_parts(board: str) -> set[str]:
    return {row["part_number"] for row in rows() if row["board"] == board}


def test_every_device_of_the_pinouts_names_its_parts_as_the_bom_does() -> None:
    for name, board in PINOUT_BOARDS.items():
        devices = json.loads((ROOT / "hardware" / name).read_text())["devices"]
        for device, entry in devices.items():
            assert entry["parts"], (name, device)
            missing = set(entry["parts"]) - _bom_parts(board)
            assert not missing, f"{name} {device}: {missing} not in the {board} BOM"
    controller = json.loads((ROOT / "hardware" / "led-map.json").read_text())["controller"]
    assert set(controller["parts"]) <= _bom_parts("led_board"), controller["parts"]


def test_one_name_per_chip_across_pinouts_bom_and_docs() -> None:
    known = {row["part_number"] for row in rows()}
    texts = [*(ROOT / "hardware").glob("*.json"), ROOT / "hardware" / "README.md",
             ROOT / "README.md", ROOT / "firmware" / "README.md", *(ROOT / "docs").glob("*.md")]
    for path in texts:
        named = set(CHIP.findall(path.read_text(encoding="utf-8")))
        assert named <= known, f"{path.name} names {named - known}, not in bom.csv"


def test_nfc_tags_cover_the_largest_enrolled_deck() -> None:
    decks = {deck: len(deck_cards(classic_board(), deck)) for deck in DECK_FILES}
    assert decks == {"1993": 44, "2016": 43}
    tags = next(r for r in rows() if r["board"] == "cards" and "NTAG213" in r["part_number"])
    assert int(tags["quantity"]) >= max(decks.values())
    assert f"{decks['1993']} in the 1993 deck" in tags["note"]
    assert f"takes {decks['2016']} more" in tags["note"]


def test_every_quantity_follows_from_the_pinouts_the_led_map_and_the_decks() -> None:
    assert check_bom(load_bom()) == []
    expected = expected_quantities()
    assert expected[("seat", "B3F-4055")].quantity == 3  # Confirm, Back, Roll
    assert expected[("hub", "16 mm momentary")].quantity == 2  # Start/Pause, Referee undo
    assert expected[("led_board", "EEU-FR1A102")].quantity == 3  # LEDs 0, 40 and 84
    assert expected[("cards", "NTAG213 sticker")].quantity == 44 + SPARE_TAGS


def test_a_wrong_quantity_is_reported_for_every_row() -> None:
    bom = load_bom()
    for index, row in enumerate(bom):
        for wrong in (row.quantity - 1, row.quantity + 1):
            changed = (*bom[:index], replace(row, quantity=wrong), *bom[index + 1:])
            problems = check_bom(changed)
            assert len(problems) == 1, (row, problems)
            assert problems[0].startswith(f"{row.board} {row.part_number}: quantity {wrong},")


def test_a_missing_or_unexplained_part_is_reported() -> None:
    bom = load_bom()
    without_buffer = tuple(r for r in bom if (r.board, r.part_number) != ("seat", "SN74AHCT125N"))
    assert check_bom(without_buffer) == [
        "seat SN74AHCT125N: needed (listed by 1 device(s) of seat-pinout.json) but not in the BOM"]
    extra = replace(bom[0], part_number="74AHCT1G125")
    assert check_bom((*bom, extra)) == ["seat 74AHCT1G125: no pinout, map or deck needs it"]
    ring = next(r for r in bom if r.part_number == "WS2812B-16 ring")
    wrong_ring = replace(ring, item=ring.item.replace("16 LEDs", "12 LEDs"))
    assert check_bom(tuple(wrong_ring if r is ring else r for r in bom)) == [
        "seat WS2812B-16 ring: a ring of 12 LEDs, the pinout drives 16"]


def test_readme_quotes_the_cost_of_a_table_for_three_and_for_the_most_seats() -> None:
    bom = load_bom()
    text = README.read_text(encoding="utf-8")
    for seats in (3, MAX_SEATS):
        cost = round(table_cost(bom, seats), -1)
        assert f"about {cost:.0f} USD for {seats} players" in text, (seats, cost)


# Mean Well GST60A series datasheet: the GST60A05 is rated 5 V, 6 A.
GST60A05_RATED_A = 6.0


def test_the_fuse_opens_below_the_supplys_rating_and_never_within_the_led_budget() -> None:
    # A fuse at or above what the supply can deliver never opens before the supply's own
    # overload protection does; one under the hub's LED budget would open in play.
    fuse = next(r for r in rows() if r["part_number"] == "inline ATO holder")
    found = re.search(r"(\d+(?:\.\d+)?) A fuse", fuse["item"])
    assert found, fuse["item"]
    amps = float(found.group(1))
    electrical = load_led_map().electrical
    assert electrical.supply_ma == GST60A05_RATED_A * 1000
    assert electrical.budget_ma / 1000 < amps < GST60A05_RATED_A
    supply = next(r for r in rows() if r["part_number"] == "GST60A05-P1J")
    assert f"{GST60A05_RATED_A:.0f} A" in supply["item"]
    assert f"through the {amps:g} A fuse" in README.read_text(encoding="utf-8")


def _mm(item: str) -> list[int]:
    found = re.search(r"(\d+) x (\d+)(?: x (\d+))? mm", item)
    assert found, item
    return [int(n) for n in found.groups() if n]


def test_the_seat_has_the_enclosure_the_build_guide_builds() -> None:
    seat = {r["part_number"]: r for r in rows() if r["board"] == "seat"}
    box = next(r for r in seat.values() if r["item"].startswith("Enclosure"))
    assert f"`{box['part_number']}`" in README.read_text(encoding="utf-8")
    # The perfboard lies flat inside it.
    length, width, _height = _mm(box["item"])
    board = sorted(_mm(seat["perfboard 7x9"]["item"]), reverse=True)
    assert board[0] < length and board[1] < width
