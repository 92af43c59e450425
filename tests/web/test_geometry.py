"""The board page's map layout: 42 shapes, honest to the map data's borders."""

from __future__ import annotations

import itertools

from risktable.rules.board import classic_board
from risktable.web.geometry import load_layout, neighbours, outline, render_layout

BOARD = classic_board()
LAYOUT = load_layout()
BORDERS = {frozenset((BOARD.territory_ids[a], BOARD.territory_ids[b])) for a, b in BOARD.borders}


def test_checked_in_layout_is_what_the_generator_makes() -> None:
    from risktable.web.geometry import layout_text

    assert layout_text() == render_layout()


def test_one_shape_per_territory() -> None:
    assert sorted(LAYOUT.cells) == sorted(BOARD.territory_ids)
    assert len(LAYOUT.cells) == 42
    assert all(LAYOUT.cells[t] for t in LAYOUT.cells)


def test_no_two_shapes_overlap() -> None:
    for a, b in itertools.combinations(LAYOUT.cells, 2):
        assert not LAYOUT.cells[a] & LAYOUT.cells[b], (a, b)


def test_each_shape_is_one_piece() -> None:
    for tid, cells in LAYOUT.cells.items():
        start = next(iter(cells))
        seen, stack = {start}, [start]
        while stack:
            for n in neighbours(stack.pop()):
                if n in cells and n not in seen:
                    seen.add(n)
                    stack.append(n)
        assert seen == cells, tid
        # One piece without holes has exactly one boundary loop.
        assert len(outline(sorted(cells))) == 1, tid


def test_only_neighbours_touch() -> None:
    for a, b in itertools.combinations(LAYOUT.cells, 2):
        if LAYOUT.touching(a, b):
            assert frozenset((a, b)) in BORDERS, f"{a} touches non-neighbour {b}"


def test_every_border_is_touching_shapes_or_a_sea_line() -> None:
    seas = {frozenset(s) for s in LAYOUT.sea_lines}
    for border in BORDERS:
        a, b = sorted(border)
        assert LAYOUT.touching(a, b) != (border in seas), f"{a}-{b}"
    # Sea lines are borders, and the classic map's famous crossings are among them.
    assert seas <= BORDERS
    assert frozenset(("alaska", "kamchatka")) in seas
    assert frozenset(("brazil", "north_africa")) in seas


def test_continents_and_labels_inside_the_picture() -> None:
    doc = LAYOUT.doc
    for t in doc["territories"]:
        assert LAYOUT.continent[t["id"]] == BOARD.continents[
            BOARD.territory_continent[BOARD.index(t["id"])]].id
        x, y = t["label"]
        assert 0 <= x <= doc["width"] and 0 <= y <= doc["height"]
