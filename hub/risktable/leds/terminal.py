"""Draws an LED scene in a terminal, each territory at its place on a world map.

Territory positions come from the board geometry in ``hardware/led-map.json``,
the same file that maps territories to LEDs, so the terminal view and the
physical board agree on where things are.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from risktable.hardware_data import LedMap, load_led_map
from risktable.leds.scene import Scene, TerritoryLight

_RESET = "\x1b[0m"


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
            if not (0 <= place.row < height and 0 <= place.col <= width - 6):
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
