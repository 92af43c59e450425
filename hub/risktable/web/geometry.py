"""The board page's map: 42 territory shapes drawn on a hex grid, and the sea lines.

Each territory is a connected union of hex cells grown from a hand-placed seed cell
(placed roughly where the territory sits on a Risk board). Growth never lets two
territories that do not border each other touch, so the drawn map can only show
borders the rules have; every border of the map data whose shapes do not touch is
drawn as a sea line. The result is data, ``static/board-map.json``, which the page
loads and :func:`load_layout` reads; ``python -m risktable.web.geometry`` regenerates it
(the test checks the checked-in file equals a fresh generation).

Cells are pointy-top hexes in axial coordinates ``(q, r)``; pixel centre
``x = SIZE * sqrt(3) * (q + r / 2)``, ``y = SIZE * 1.5 * r``.
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from risktable.rules.board import Board, classic_board

SIZE = 10.0
"""Hex circumradius in SVG user units."""

# Axial neighbour across edge i of a cell, where edge i runs from corner i to corner
# i+1 and corner i sits at angle 60*i - 30 degrees (y grows downwards, as in SVG).
EDGE_DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))

# Seed (column, row) in odd-row offset coordinates and the most cells the territory
# may grow to. Islands stay small; the rest grow until they meet a non-neighbour.
_SEEDS: dict[str, tuple[int, int, int]] = {
    "alaska": (2, 3, 40), "northwest_territory": (7, 3, 40), "greenland": (15, 1, 10),
    "alberta": (6, 7, 40), "ontario": (10, 7, 40), "quebec": (14, 7, 40),
    "western_united_states": (7, 11, 40), "eastern_united_states": (12, 11, 40),
    "central_america": (9, 15, 40),
    "venezuela": (12, 18, 40), "peru": (10, 22, 40), "brazil": (15, 21, 40),
    "argentina": (12, 26, 40),
    "iceland": (20, 4, 4), "scandinavia": (25, 3, 40), "great_britain": (20, 8, 6),
    "northern_europe": (25, 8, 40), "western_europe": (21, 12, 40),
    "southern_europe": (26, 12, 40), "ukraine": (30, 6, 40),
    "north_africa": (22, 17, 40), "egypt": (27, 16, 40), "east_africa": (31, 20, 40),
    "congo": (26, 21, 40), "south_africa": (27, 25, 40), "madagascar": (33, 25, 4),
    "ural": (35, 5, 40), "siberia": (39, 3, 40), "yakutsk": (44, 2, 40),
    "kamchatka": (48, 3, 40), "irkutsk": (43, 6, 40), "mongolia": (44, 9, 40),
    "japan": (49, 10, 5), "afghanistan": (35, 10, 40), "china": (41, 12, 40),
    "middle_east": (31, 14, 40), "india": (37, 15, 40), "siam": (43, 16, 40),
    "indonesia": (43, 21, 8), "new_guinea": (48, 20, 7),
    "western_australia": (44, 25, 40), "eastern_australia": (49, 25, 40),
}
_COLUMNS = 52
_ROWS = 28
_MAX_RADIUS = 3
"""No cell is further than this (in hex steps) from its territory's seed."""

Cell = tuple[int, int]


def offset_to_axial(col: int, row: int) -> Cell:
    """Axial ``(q, r)`` of the odd-row offset cell ``(col, row)``."""
    return col - (row - (row & 1)) // 2, row


def hex_distance(a: Cell, b: Cell) -> int:
    """Steps between two axial cells."""
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def neighbours(cell: Cell) -> list[Cell]:
    """The six cells sharing an edge with ``cell``."""
    return [(cell[0] + dq, cell[1] + dr) for dq, dr in EDGE_DIRECTIONS]


def centre(cell: Cell) -> tuple[float, float]:
    """Pixel centre of an axial cell."""
    q, r = cell
    return SIZE * math.sqrt(3) * (q + r / 2), SIZE * 1.5 * r


def corner(cell: Cell, i: int) -> tuple[float, float]:
    """Pixel position of corner ``i`` (0..5) of ``cell``, rounded so shared corners match."""
    x, y = centre(cell)
    angle = math.radians(60 * i - 30)
    return round(x + SIZE * math.cos(angle), 2), round(y + SIZE * math.sin(angle), 2)


def _on_board(cell: Cell) -> bool:
    q, r = cell
    col = q + (r - (r & 1)) // 2
    return 0 <= r < _ROWS and 0 <= col < _COLUMNS


def grow(board: Board) -> dict[str, list[Cell]]:
    """Grow every territory from its seed, one cell per territory per round.

    A cell may join territory T only if every claimed cell touching it belongs to T or
    to a territory bordering T, so no two non-neighbours ever share an edge.
    """
    adjacent = {board.territory_ids[i]: {board.territory_ids[j] for j in board.adjacency[i]}
                for i in range(board.size)}
    owner: dict[Cell, str] = {}
    cells: dict[str, list[Cell]] = {}
    seeds: dict[str, Cell] = {}
    for tid in board.territory_ids:
        col, row, _cap = _SEEDS[tid]
        seeds[tid] = offset_to_axial(col, row)
        owner[seeds[tid]] = tid
        cells[tid] = [seeds[tid]]

    def allowed(tid: str, cell: Cell) -> bool:
        if cell in owner or not _on_board(cell) or hex_distance(cell, seeds[tid]) > _MAX_RADIUS:
            return False
        return all(owner.get(n, tid) == tid or owner[n] in adjacent[tid] for n in neighbours(cell))

    growing = True
    while growing:
        growing = False
        for tid in board.territory_ids:
            if len(cells[tid]) >= _SEEDS[tid][2]:
                continue
            # Closest to the seed first keeps shapes compact; ties broken by position
            # so the layout is deterministic.
            frontier = sorted({n for c in cells[tid] for n in neighbours(c) if allowed(tid, n)},
                              key=lambda c: (hex_distance(c, seeds[tid]), c[1], c[0]))
            if frontier:
                owner[frontier[0]] = tid
                cells[tid].append(frontier[0])
                growing = True
    return cells


def outline(cells: list[Cell]) -> list[list[tuple[float, float]]]:
    """The boundary loops of a union of cells (corner points, each loop closed implicitly)."""
    mine = set(cells)
    step: dict[tuple[float, float], tuple[float, float]] = {}
    for cell in cells:
        for i, d in enumerate(EDGE_DIRECTIONS):
            if (cell[0] + d[0], cell[1] + d[1]) not in mine:
                step[corner(cell, i)] = corner(cell, (i + 1) % 6)
    loops: list[list[tuple[float, float]]] = []
    while step:
        start = min(step)
        loop = [start]
        point = step.pop(start)
        while point != start:
            loop.append(point)
            point = step.pop(point)
        loops.append(loop)
    return loops


def _touching(a: list[Cell], b: list[Cell]) -> bool:
    bs = set(b)
    return any(n in bs for c in a for n in neighbours(c))


def _label_cell(cells: list[Cell]) -> Cell:
    """The territory's cell nearest its centroid: the label goes there."""
    xs = [centre(c) for c in cells]
    cx, cy = sum(p[0] for p in xs) / len(xs), sum(p[1] for p in xs) / len(xs)
    return min(cells, key=lambda c: ((centre(c)[0] - cx) ** 2 + (centre(c)[1] - cy) ** 2, c))


def build_layout(board: Board | None = None) -> dict[str, Any]:
    """The whole layout document (what ``static/board-map.json`` holds)."""
    board = board or classic_board()
    cells = grow(board)
    width = round(SIZE * math.sqrt(3) * (_COLUMNS + 0.5), 2)
    height = round(SIZE * (1.5 * (_ROWS - 1) + 2), 2)
    territories = []
    for i, tid in enumerate(board.territory_ids):
        lx, ly = centre(_label_cell(cells[tid]))
        path = " ".join("M" + " L".join(f"{x:g},{y:g}" for x, y in loop) + " Z"
                        for loop in outline(cells[tid]))
        territories.append({
            "id": tid, "name": board.territory_names[i],
            "continent": board.continents[board.territory_continent[i]].id,
            "cells": [list(c) for c in cells[tid]],
            "path": path, "label": [round(lx, 2), round(ly, 2)],
        })
    sea_lines = []
    for a, b in board.borders:
        ta, tb = board.territory_ids[a], board.territory_ids[b]
        if _touching(cells[ta], cells[tb]):
            continue
        pa, pb = min(((centre(x), centre(y)) for x in cells[ta] for y in cells[tb]),
                     key=lambda p: math.dist(p[0], p[1]))
        # A border spanning more than half the board goes round the back of the world
        # (Alaska-Kamchatka): drawn as two stubs running off the left and right edges.
        wrap = abs(pa[0] - pb[0]) > width / 2
        sea_lines.append({"a": ta, "b": tb, "wrap": wrap,
                          "from": [round(pa[0], 2), round(pa[1], 2)],
                          "to": [round(pb[0], 2), round(pb[1], 2)]})
    return {
        "comment": "Generated by python -m risktable.web.geometry; do not edit by hand.",
        "map": board.name, "hex_size": SIZE, "width": width, "height": height,
        "continents": [{"id": c.id, "name": c.name} for c in board.continents],
        "territories": territories, "sea_lines": sea_lines,
    }


@dataclass(frozen=True, slots=True)
class Layout:
    """The loaded board layout: cells per territory and the sea-line borders."""

    cells: dict[str, frozenset[Cell]]
    continent: dict[str, str]
    sea_lines: tuple[tuple[str, str], ...]
    doc: dict[str, Any]

    def touching(self, a: str, b: str) -> bool:
        """Whether the shapes of ``a`` and ``b`` share a hex edge."""
        return _touching(list(self.cells[a]), list(self.cells[b]))


def layout_text() -> str:
    """The checked-in layout file's text."""
    return resources.files("risktable.web").joinpath("static/board-map.json").read_text("utf-8")


def render_layout(board: Board | None = None) -> str:
    """The layout file's text as :func:`build_layout` makes it."""
    return json.dumps(build_layout(board), indent=1) + "\n"


def load_layout() -> Layout:
    """Load the shipped layout."""
    doc = json.loads(layout_text())
    return Layout(
        cells={t["id"]: frozenset((c[0], c[1]) for c in t["cells"]) for t in doc["territories"]},
        continent={t["id"]: t["continent"] for t in doc["territories"]},
        sea_lines=tuple((s["a"], s["b"]) for s in doc["sea_lines"]),
        doc=doc,
    )


def main() -> None:
    """Regenerate ``static/board-map.json`` next to this module."""
    target = Path(__file__).with_name("static") / "board-map.json"
    target.parent.mkdir(exist_ok=True)
    target.write_text(render_layout(), "utf-8")
    sys.stdout.write(f"wrote {target}\n")


if __name__ == "__main__":
    main()
