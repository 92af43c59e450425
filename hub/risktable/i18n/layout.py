"""What a seat's display draws for lines already translated.

A left-to-right language goes to the seat as logical lines, which the seat word-wraps
into 16 columns of 8-pixel cells (:func:`ltr_rows` says how, with the seat's own
wrap). A right-to-left one goes as display rows (:func:`display_rows`): the seat has no
room for shaping or the bidirectional algorithm, so the hub breaks each line, joins the
letters (Arabic presentation forms, U+FB50-U+FEFF, with ``arabic_reshaper``) and puts
each row in visual order (``python-bidi``), and the seat draws it left to right,
right-aligned.

>>> rows = display_rows(["سلام دنیا"], lambda text: 8 * len(text))
>>> rows == [get_display(arabic_reshaper.reshape("سلام دنیا"), base_dir="R")]
True
>>> ltr_rows(["Move 3 armies into Ukraine"])
['Move 3 armies', 'into Ukraine']
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import arabic_reshaper
from bidi.algorithm import get_display

from riskproto.wrap import wrap

WIDTH = 128
"""The display's width in pixels."""

COLUMNS = 16
"""The seat's columns of 8-pixel cells, for left-to-right text."""

ROW_CHARS = 40
"""The most characters a view's line may hold (protocol/README.md, view ``lines``)."""

# Zero-width joiners and non-joiners steer the shaping (Persian writes a ZWNJ inside
# words such as می‌خواهم); once the letters carry their forms they have done their job,
# and the seat's font has no glyph for them.
_JOIN_CONTROLS = dict.fromkeys(map(ord, "\u200c\u200d"))


# arabic_reshaper reads its options from a ConfigParser on every call (about 0.3 ms);
# the same lines and their prefixes (logical_rows tries each) come back with every view.
@functools.lru_cache(maxsize=4096)
def shape(text: str) -> str:
    """``text`` with its Arabic letters in their joined forms, in logical order."""
    return str(arabic_reshaper.reshape(text)).translate(_JOIN_CONTROLS)


def visual(row: str) -> str:
    """One logical row shaped and in the order the seat draws it, left to right. The
    row is a right-to-left paragraph even when it begins with a Latin word (a name left
    in English): the algorithm would otherwise take its direction from that word."""
    return str(get_display(shape(row), base_dir="R"))


def logical_rows(
    lines: list[str], width_of: Callable[[str], int], max_width: int = WIDTH
) -> list[str]:
    """Break ``lines`` at spaces into rows, still in logical order, each of which fits
    ``max_width`` pixels once shaped (``width_of`` measures shaped text) and holds at
    most :data:`ROW_CHARS` characters. A word wider than a row is cut between letters,
    never dropped; an empty line gives no row, as the seat's own wrap does."""

    def fits(text: str) -> bool:
        shaped = shape(text)
        return len(shaped) <= ROW_CHARS and width_of(shaped) <= max_width

    rows: list[str] = []
    for line in lines:
        row = ""
        for word in line.split():
            joined = f"{row} {word}" if row else word
            if fits(joined):
                row = joined
                continue
            if row:
                rows.append(row)
            while len(word) > 1 and not fits(word):
                # The longest start of the word that fits (at least one letter, so a
                # glyph wider than the display still makes progress).
                cut = len(word) - 1
                while cut > 1 and not fits(word[:cut]):
                    cut -= 1
                rows.append(word[:cut])
                word = word[cut:]
            row = word
        if row:
            rows.append(row)
    return rows


def display_rows(
    lines: list[str], width_of: Callable[[str], int], max_width: int = WIDTH
) -> list[str]:
    """The rows a seat draws for right-to-left ``lines``: broken as
    :func:`logical_rows` does, each shaped and in visual order (numbers and Latin
    words inside Persian read left to right, where the bidirectional algorithm puts
    them). The seat right-aligns each row and shows four at a time."""
    return [visual(row) for row in logical_rows(lines, width_of, max_width)]


def ltr_rows(lines: list[str]) -> list[str]:
    """The rows a seat shows for left-to-right ``lines``: its own 16-column word wrap
    (``riskproto.wrap``, the function the firmware runs), eight rows to a page."""
    return [row for line in lines for row in wrap(line, COLUMNS)]
