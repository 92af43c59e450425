"""The map as data: territories, continents, bonuses, borders and card symbols.

A :class:`Board` is loaded from a JSON file (``data/classic_map.json`` for the
classic world map) and validated on load: every border joins two known,
distinct territories, borders are not repeated (so adjacency is symmetric by
construction and checked again after building it), the map is connected, and
every territory sits in exactly one continent.

Territories are referred to by index (0..41 in file order) on the hot path and
by their snake_case id everywhere a person or a file sees them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from risktable.rules.errors import MapError

SYMBOLS: tuple[str, ...] = ("infantry", "cavalry", "artillery", "wild")
WILD = 3


@dataclass(frozen=True, slots=True)
class Continent:
    """A continent: its id, display name, army bonus and member territory indices."""

    id: str
    name: str
    bonus: int
    territories: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Board:
    """A validated map. Build one with :func:`load_board` or :func:`classic_board`.

    ``adjacency[t]`` is the sorted tuple of territory indices bordering ``t``;
    ``card_symbols[c]`` is the symbol index (see :data:`SYMBOLS`) of card ``c``,
    where cards ``0..n-1`` picture territory ``c`` and the rest are wilds.
    """

    name: str
    territory_ids: tuple[str, ...]
    territory_names: tuple[str, ...]
    territory_continent: tuple[int, ...]
    continents: tuple[Continent, ...]
    borders: tuple[tuple[int, int], ...]
    adjacency: tuple[tuple[int, ...], ...]
    card_symbols: tuple[int, ...]

    @property
    def size(self) -> int:
        """Number of territories."""
        return len(self.territory_ids)

    @property
    def deck_size(self) -> int:
        """Number of cards: one per territory plus the wilds."""
        return len(self.card_symbols)

    def index(self, territory_id: str) -> int:
        """Return the index of ``territory_id``; ``KeyError`` if unknown."""
        return _index_of(self)[territory_id]

    def are_adjacent(self, a: int, b: int) -> bool:
        """True when territories ``a`` and ``b`` share a border."""
        return b in self.adjacency[a]


@cache
def _index_of(board: Board) -> dict[str, int]:
    return {tid: i for i, tid in enumerate(board.territory_ids)}


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise MapError(message)


def board_from_dict(doc: dict[str, Any]) -> Board:
    """Build and validate a :class:`Board` from its JSON document."""
    continents_doc = doc["continents"]
    continent_index = {c["id"]: i for i, c in enumerate(continents_doc)}
    _require(len(continent_index) == len(continents_doc), "duplicate continent id")
    territories = doc["territories"]
    ids = tuple(t["id"] for t in territories)
    index = {tid: i for i, tid in enumerate(ids)}
    _require(len(index) == len(ids), "duplicate territory id")
    members: list[list[int]] = [[] for _ in continents_doc]
    owner_continent: list[int] = []
    for i, t in enumerate(territories):
        # A territory has one "continent" field, so "exactly one" reduces to "a known one".
        _require(t["continent"] in continent_index,
                 f"territory {t['id']} is in unknown continent {t['continent']}")
        c = continent_index[t["continent"]]
        members[c].append(i)
        owner_continent.append(c)
    for c, m in zip(continents_doc, members, strict=True):
        _require(bool(m), f"continent {c['id']} has no territories")
        _require(isinstance(c["bonus"], int) and c["bonus"] >= 0,
                 f"continent {c['id']} has a bad bonus")
    neighbours: list[set[int]] = [set() for _ in ids]
    borders: list[tuple[int, int]] = []
    seen: set[frozenset[int]] = set()
    for a_id, b_id in doc["borders"]:
        _require(a_id in index and b_id in index,
                 f"border {a_id}-{b_id} names an unknown territory")
        a, b = index[a_id], index[b_id]
        _require(a != b, f"border {a_id}-{b_id} joins a territory to itself")
        key = frozenset((a, b))
        _require(key not in seen, f"border {a_id}-{b_id} is listed twice")
        seen.add(key)
        borders.append((min(a, b), max(a, b)))
        neighbours[a].add(b)
        neighbours[b].add(a)
    adjacency = tuple(tuple(sorted(n)) for n in neighbours)
    for a, ns in enumerate(adjacency):
        for b in ns:
            _require(a in adjacency[b], f"adjacency {ids[a]}-{ids[b]} is not symmetric")
    _require(_connected(adjacency), "the map is not connected")
    symbols = [SYMBOLS.index(t["symbol"]) for t in territories]
    _require(all(s != WILD for s in symbols), "a territory card cannot be a wild")
    symbols += [WILD] * int(doc.get("wild_cards", 0))
    return Board(
        name=str(doc["name"]),
        territory_ids=ids,
        territory_names=tuple(str(t["name"]) for t in territories),
        territory_continent=tuple(owner_continent),
        continents=tuple(
            Continent(str(c["id"]), str(c["name"]), int(c["bonus"]), tuple(m))
            for c, m in zip(continents_doc, members, strict=True)
        ),
        borders=tuple(sorted(borders)),
        adjacency=adjacency,
        card_symbols=tuple(symbols),
    )


def _connected(adjacency: tuple[tuple[int, ...], ...]) -> bool:
    if not adjacency:
        return False
    seen = {0}
    stack = [0]
    while stack:
        for n in adjacency[stack.pop()]:
            if n not in seen:
                seen.add(n)
                stack.append(n)
    return len(seen) == len(adjacency)


def load_board(name: str) -> Board:
    """Load ``data/<name>_map.json`` shipped with the package."""
    text = resources.files("risktable.rules").joinpath(f"data/{name}_map.json").read_text("utf-8")
    return board_from_dict(json.loads(text))


@cache
def classic_board() -> Board:
    """The classic 42-territory world map (loaded once)."""
    return load_board("classic")
