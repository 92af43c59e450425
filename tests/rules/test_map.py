"""The classic map as data: counts, named borders, continents, symbols, validation."""

from __future__ import annotations

import json
from collections import Counter
from importlib import resources
from typing import Any

import pytest

from risktable.rules import MapError, classic_board
from risktable.rules.board import SYMBOLS, board_from_dict

BOARD = classic_board()

TERRITORIES = [
    "alaska", "northwest_territory", "greenland", "alberta", "ontario", "quebec",
    "western_united_states", "eastern_united_states", "central_america", "venezuela", "peru",
    "brazil", "argentina", "iceland", "scandinavia", "great_britain", "northern_europe",
    "western_europe", "southern_europe", "ukraine", "north_africa", "egypt", "east_africa",
    "congo", "south_africa", "madagascar", "ural", "siberia", "yakutsk", "kamchatka", "irkutsk",
    "mongolia", "japan", "afghanistan", "china", "middle_east", "india", "siam", "indonesia",
    "new_guinea", "western_australia", "eastern_australia",
]


def _doc() -> dict[str, Any]:
    text = resources.files("risktable.rules").joinpath("data/classic_map.json").read_text()
    doc: dict[str, Any] = json.loads(text)
    return doc


def test_territories_are_the_agreed_ids_in_order() -> None:
    assert list(BOARD.territory_ids) == TERRITORIES


def test_83_borders_symmetric_adjacency() -> None:
    assert len(BOARD.borders) == 83
    assert sum(len(n) for n in BOARD.adjacency) == 2 * 83
    for a, ns in enumerate(BOARD.adjacency):
        for b in ns:
            assert a in BOARD.adjacency[b]


@pytest.mark.parametrize("a,b", [
    ("east_africa", "middle_east"), ("iceland", "scandinavia"),
    ("great_britain", "scandinavia"), ("alaska", "kamchatka"), ("brazil", "north_africa"),
    ("greenland", "iceland"), ("siam", "indonesia"), ("central_america", "venezuela"),
])
def test_sea_lines_are_borders(a: str, b: str) -> None:
    assert BOARD.are_adjacent(BOARD.index(a), BOARD.index(b))


@pytest.mark.parametrize("a,b", [("alaska", "greenland"), ("egypt", "congo"),
                                 ("japan", "yakutsk"), ("brazil", "egypt")])
def test_non_borders(a: str, b: str) -> None:
    assert not BOARD.are_adjacent(BOARD.index(a), BOARD.index(b))


def test_continents_and_bonuses() -> None:
    got = {c.id: (c.bonus, len(c.territories)) for c in BOARD.continents}
    assert got == {"north_america": (5, 9), "south_america": (2, 4), "europe": (5, 7),
                   "africa": (3, 6), "asia": (7, 12), "australia": (2, 4)}
    members = sorted(t for c in BOARD.continents for t in c.territories)
    assert members == list(range(42))


def test_deck_is_balanced_with_two_wilds() -> None:
    assert BOARD.deck_size == 44
    counts = Counter(SYMBOLS[s] for s in BOARD.card_symbols)
    assert counts == {"infantry": 14, "cavalry": 14, "artillery": 14, "wild": 2}
    assert "enrolled" in _doc()["symbols_note"]


def test_validation_refuses_an_unknown_territory_in_a_border() -> None:
    doc = _doc()
    doc["borders"].append(["alaska", "atlantis"])
    with pytest.raises(MapError, match="atlantis"):
        board_from_dict(doc)


def test_validation_refuses_a_repeated_border() -> None:
    doc = _doc()
    doc["borders"].append(["kamchatka", "alaska"])
    with pytest.raises(MapError, match="twice"):
        board_from_dict(doc)


def test_validation_refuses_a_disconnected_map() -> None:
    doc = _doc()
    doc["borders"] = [b for b in doc["borders"] if "siam" not in b or "indonesia" not in b]
    with pytest.raises(MapError, match="not connected"):
        board_from_dict(doc)


def test_validation_refuses_an_unknown_continent() -> None:
    doc = _doc()
    doc["territories"][0]["continent"] = "atlantis"
    with pytest.raises(MapError, match="unknown continent"):
        board_from_dict(doc)


def test_validation_refuses_an_empty_continent_and_a_self_border() -> None:
    doc = _doc()
    doc["continents"].append({"id": "mu", "name": "Mu", "bonus": 1})
    with pytest.raises(MapError, match="no territories"):
        board_from_dict(doc)
    doc = _doc()
    doc["borders"].append(["peru", "peru"])
    with pytest.raises(MapError, match="itself"):
        board_from_dict(doc)
