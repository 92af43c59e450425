"""Draws an LED scene in a terminal, each territory at its place on a world map.

Territory positions come from the board geometry in ``hardware/led-map.json``,
the same file that maps territories to LEDs, so the terminal view and the
physical board agree on where things are.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from risktable.hardware.data import LedMap, load_led_map
from risktable.leds.scene import Scene, TerritoryLight

_RESET = "\x1b[0m"
_CELL = 6  # "ALK 12": a label of three and an army count of up to three


@dataclass(frozen=True)
class Placement:
    """Where one territory is drawn: a short label at a character cell."""

    label: str
    col: int
    row: int


def _cell_text(placement: Placement, light: TerritoryLight) -> str:
    # "ALK 12": label then army count, so the view is readable without colour too.
    return f"{placement.label}{light.label:>3}" if light.label else f"{placement.label}  ."


def _ansi(text: str, light: TerritoryLight) -> str:
    if light.level <= 0:
        return f"\x1b[2m{text}{_RESET}"
    r, g, b = light.scaled()
    # Dark text on bright backgrounds, light text on dark ones.
    fg = "30" if (0.299 * r + 0.587 * g + 0.114 * b) > 110 else "97"
    blink = ";5" if light.blink else ""
    return f"\x1b[{fg}{blink};48;2;{r};{g};{b}m{text}{_RESET}"


class TerminalBoard:
    """Renders scenes on a ``width`` x ``height`` character grid.

    >>> board = TerminalBoard({"alaska": Placement("ALK", 0, 0)}, width=10, height=1)
    >>> board.render({"alaska": TerritoryLight((255, 0, 0), 1.0, label="3")}, colour=False)
    'ALK  3'
    """

    def __init__(self, placements: Mapping[str, Placement], width: int, height: int) -> None:
        self.placements = dict(placements)
        self.width = width
        self.height = height
        for territory, place in self.placements.items():
            if not (0 <= place.row < height and 0 <= place.col <= width - _CELL):
                raise ValueError(f"{territory} is placed outside the {width}x{height} grid")

    @classmethod
    def from_led_map(cls, led_map: LedMap | None = None) -> TerminalBoard:
        """The board laid out as ``hardware/led-map.json`` says (loaded if not given)."""
        led_map = led_map or load_led_map()
        return cls(
            {t: Placement(p.label, p.col, p.row) for t, p in led_map.territories.items()},
            width=led_map.grid.width,
            height=led_map.grid.height,
        )

    def fitted(self, columns: int) -> TerminalBoard:
        """The board drawn within ``columns`` characters (a narrow terminal, 80 wide):
        itself when it fits, else each row's territories moved west in proportion,
        in the same order on the same row, a space apart at least.

        >>> board = TerminalBoard({"a": Placement("AAA", 0, 0), "b": Placement("BBB", 50, 0),
        ...                        "c": Placement("CCC", 94, 0)}, width=100, height=1)
        >>> [p.col for p in board.fitted(20).placements.values()]
        [0, 7, 14]
        """
        if columns >= self.width:
            return self
        rows: dict[int, list[tuple[int, str]]] = {}
        for territory, place in self.placements.items():
            rows.setdefault(place.row, []).append((place.col, territory))
        last = columns - _CELL  # the last column a cell may start at
        scale = last / (self.width - _CELL)
        moved: dict[str, Placement] = {}
        for row, cells in rows.items():
            cells.sort()
            if len(cells) * (_CELL + 1) - 1 > columns:
                raise ValueError(f"row {row} holds {len(cells)} territories: too many for "
                                 f"{columns} columns")
            cols = [round(col * scale) for col, _ in cells]
            for i in range(1, len(cols)):  # west to east: a space after each cell
                cols[i] = max(cols[i], cols[i - 1] + _CELL + 1)
            cols[-1] = min(cols[-1], last)
            for i in range(len(cols) - 2, -1, -1):  # and back, where the east end overran
                cols[i] = min(cols[i], cols[i + 1] - _CELL - 1)
            for (_, territory), col in zip(cells, cols, strict=True):
                moved[territory] = Placement(self.placements[territory].label, col, row)
        return TerminalBoard({t: moved[t] for t in self.placements}, columns, self.height)

    def render(self, scene: Scene, *, colour: bool = True) -> str:
        """Return the board as text; ANSI 24-bit colours when ``colour`` is true."""
        rows: list[list[tuple[int, str, str]]] = [[] for _ in range(self.height)]
        for territory, place in self.placements.items():
            light = scene.get(territory, TerritoryLight())
            text = _cell_text(place, light)
            shown = _ansi(text, light) if colour else text
            rows[place.row].append((place.col, text, shown))
        lines = []
        for cells in rows:
            line, used = "", 0
            for col, text, shown in sorted(cells):
                if col < used:
                    raise ValueError(f"territory labels overlap at column {col}")
                line += " " * (col - used) + shown
                used = col + len(text)
            lines.append(line.rstrip())
        while lines and not lines[-1]:
            lines.pop()
        return "\n".join(lines)
