"""The seat's display layout under CPython: the firmware's own text code
(``board/oled.py`` over ``drivers/ssd1306.py``) drawing on a glass that records
where each line of text lands instead of its pixels.

MicroPython's ``framebuf`` and ``micropython`` modules do not exist under CPython:
two stand-ins are installed only while the firmware's modules load. The glyphs
themselves are MicroPython's (the 8x8 font); only the place of each line matters
here, and it is the firmware's word wrap and line layout that decide it.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from collections.abc import Mapping
from functools import cache
from typing import Any

from risktable.i18n import seat_texts
from tests.support.tools import ROOT

WIDTH, HEIGHT, FONT = 128, 64, 8
COLUMNS, ROWS = WIDTH // FONT, HEIGHT // FONT


class _Glass:
    """framebuf.FrameBuffer's surface as the display code uses it, keeping text runs."""

    def __init__(self, buf: Any, width: int, height: int, fmt: int) -> None:
        self.runs: list[tuple[int, int, str]] = []

    def fill(self, colour: int) -> None:
        self.runs.clear()

    def text(self, s: str, x: int, y: int, colour: int = 1) -> None:
        self.runs.append((y, x, s))

    def pixel(self, x: int, y: int, colour: int | None = None) -> int:
        return 0

    def fill_rect(self, *args: int) -> None:
        pass

    def rect(self, *args: int) -> None:
        pass


def _load(name: str, relative: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "firmware" / relative)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _firmware() -> tuple[types.ModuleType, types.ModuleType]:
    framebuf = types.ModuleType("framebuf")
    framebuf.FrameBuffer = _Glass  # type: ignore[attr-defined]
    framebuf.MONO_VLSB = 0  # type: ignore[attr-defined]
    micropython = types.ModuleType("micropython")
    micropython.const = lambda value: value  # type: ignore[attr-defined]
    saved = {name: sys.modules.get(name) for name in ("framebuf", "micropython")}
    sys.modules.update(framebuf=framebuf, micropython=micropython)
    try:
        return _load("_fw_ssd1306", "drivers/ssd1306.py"), _load("_fw_oled", "board/oled.py")
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name)
            else:
                sys.modules[name] = module


_SSD1306, _OLED = _firmware()
_REFUSAL = _load("_fw_refusal", "seat/refusal.py")


class _Bus:
    def writeto(self, addr: int, data: Any) -> None:
        pass

    def writevto(self, addr: int, parts: Any) -> None:
        pass


class _Display(_SSD1306.SSD1306):  # type: ignore[name-defined,misc]
    # A big number is a glyph blown up pixel by pixel: recorded as its text, in brackets
    # (and where it stands, at what scale, in ``big``).
    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.big: list[tuple[int, int, str, int]] = []

    def line(self, s: str, y: int) -> None:
        # A character outside ASCII is the latin face's glyph in the same 8-px cell the
        # built-in font's take: the row is recorded as its text.
        self.fb.text(s, 0, y, 1)

    def big_text(self, s: str, x: int, y: int, scale: int = 3) -> int:
        self.fb.text(f"[{s}]", x, y)
        self.big.append((y, x, s, scale))
        return x + len(s) * FONT * scale


def glass_runs(lines: list[str]) -> tuple[list[tuple[int, int, str]],
                                          list[tuple[int, int, str, int]]]:
    """What ``Screen.text(lines)`` draws, as the layout sees it: the text runs (y, x,
    text) and the big numbers (y, x, digits, scale)."""
    display = _Display(_Bus(), WIDTH, HEIGHT)
    _OLED.Screen(display).text(list(lines))
    glass: _Glass = display.fb
    bigs = {(y, x, f"[{s}]") for y, x, s, _ in display.big}
    return [run for run in glass.runs if run not in bigs], display.big


def layout(lines: list[str]) -> list[str]:
    """The display's 8 rows of 16 characters after the seat's ``Screen.text(lines)``."""
    display = _Display(_Bus(), WIDTH, HEIGHT)
    _OLED.Screen(display).text(list(lines))
    rows = [""] * ROWS
    glass: _Glass = display.fb
    for y, x, s in glass.runs:
        row = y // FONT
        rows[row] = (rows[row].ljust(x // FONT) + s)[:COLUMNS]
    return rows


def drawn(lines: list[str]) -> int:
    """How many rows the text needs (rows beyond the display are not drawn)."""
    return sum(len(_SSD1306.wrap(line, COLUMNS)) for line in lines)


def boxed(rows: list[str]) -> list[str]:
    """``rows`` framed as the 128x64 glass: 16 columns, 8 rows."""
    edge = "+" + "-" * COLUMNS + "+"
    return [edge, *("|" + row.ljust(COLUMNS) + "|" for row in rows), edge]


def seat_words(key: str, lang: str = "en") -> list[str]:
    """The seat's own words for ``key`` as its ``texts.bin`` holds them (seat/texts.py)."""
    return list(_texts()[lang][key].rows)


@cache
def _texts() -> dict[str, dict[str, seat_texts.Entry]]:
    return seat_texts.decode((ROOT / "firmware" / "texts.bin").read_bytes())


def refusal_lines(error: Mapping[str, Any], lang: str = "en") -> list[str]:
    """The lines the seat puts on its display for the hub's ``error`` message
    (``seat/refusal.py``: the hub's detail, or the seat's words for the code)."""
    words = _REFUSAL.reason(error["code"], error["detail"], error.get("field"))
    return [error["detail"]] if words is None else seat_words(words[0], lang)


def shown_text(rows: list[str]) -> str:
    """The words on the display's ``rows``, one space between rows (to compare a
    wrapped sentence with the one that was laid out)."""
    return " ".join(row.strip() for row in rows if row.strip())
