"""The hub's layout of a seat's lines: Persian broken, shaped and ordered for the seat
to draw left to right; left-to-right text wrapped as the seat wraps it."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from functools import cache

import arabic_reshaper
import pytest
from bidi.algorithm import get_display
from PIL import ImageFont

from risktable.i18n.layout import (
    COLUMNS,
    ROW_CHARS,
    WIDTH,
    display_rows,
    logical_rows,
    ltr_rows,
    shape,
)
from tests.support import oled_text

NASKH = "/usr/share/fonts/truetype/noto/NotoNaskhArabic-Regular.ttf"


@cache
def _naskh() -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(NASKH, 14)


def naskh_width(text: str) -> int:
    # A stand-in for the seat font's rtl face: Noto Naskh Arabic at 14 px.
    return round(_naskh().getlength(text))


def per_char(text: str) -> int:
    return 7 * len(text)


WIDTHS = [naskh_width, per_char]

# "Move 3 armies from Ukraine to Ural, then press Confirm" in Persian, with a number and
# two Latin words inside.
LONG = ("۳ سرباز را از Ukraine به Ural ببرید و سپس دکمه تأیید را فشار دهید؛ "
        "اگر می‌خواهید بیشتر بفرستید، دستگیره را بچرخانید")
SHORT = "نوبت شما"


def presentation(row: str) -> bool:
    # No Arabic letter left in its plain (unjoined) form; digits and punctuation such as
    # the Arabic semicolon have no joined forms.
    return all(not "\u0600" <= ch <= "\u06ff" or not unicodedata.category(ch).startswith("L")
               for ch in row)


@pytest.mark.parametrize("width_of", WIDTHS)
def test_each_row_is_the_shaping_packages_own_output(width_of: Callable[[str], int]) -> None:
    logical = logical_rows([LONG, SHORT], width_of)
    shown = display_rows([LONG, SHORT], width_of)
    assert len(shown) == len(logical) > 2
    for row, drawn in zip(logical, shown, strict=True):
        want = get_display(arabic_reshaper.reshape(row), base_dir="R").replace("\u200c", "")
        assert drawn == want


@pytest.mark.parametrize("width_of", WIDTHS)
def test_no_row_is_wider_than_the_display(width_of: Callable[[str], int]) -> None:
    rows = display_rows([LONG, SHORT, LONG], width_of)
    assert rows
    for row in rows:
        assert width_of(row) <= WIDTH, row
        assert len(row) <= ROW_CHARS
        assert presentation(row), [hex(ord(c)) for c in row if "\u0600" <= c <= "\u06ff"]


@pytest.mark.parametrize("width_of", WIDTHS)
def test_no_word_is_lost(width_of: Callable[[str], int]) -> None:
    assert " ".join(logical_rows([LONG], width_of)) == " ".join(LONG.split())
    assert logical_rows([SHORT], width_of) == [SHORT]


def test_longer_text_gives_more_rows() -> None:
    one = display_rows([SHORT], naskh_width)
    many = display_rows([LONG], naskh_width)
    assert len(one) == 1
    assert len(many) > 2
    assert len(display_rows([LONG, LONG], naskh_width)) == 2 * len(many)


def test_letters_take_their_joined_forms() -> None:
    # سرباز (soldier): seen initial, medial, medial, final... as its letters join.
    (row,) = display_rows(["سرباز"], naskh_width)
    names = [unicodedata.name(ch) for ch in reversed(row)]
    assert names == [
        "ARABIC LETTER SEEN INITIAL FORM",
        "ARABIC LETTER REH FINAL FORM",
        "ARABIC LETTER BEH INITIAL FORM",
        "ARABIC LETTER ALEF FINAL FORM",
        "ARABIC LETTER ZAIN ISOLATED FORM",
    ]
    # Persian's own letters (peh, gaf, farsi yeh) have their forms too.
    for word in ("پیروزی", "گروه"):
        (row,) = display_rows([word], naskh_width)
        assert presentation(row)
        assert all("\ufb50" <= ch <= "\ufeff" for ch in row)


def test_numbers_and_latin_read_left_to_right_inside_persian() -> None:
    # "Ukraine has 12 armies": the seat draws the row left to right, so the number's
    # digits and the Latin word keep their own order while the Persian words around
    # them are reversed.
    (row,) = display_rows(["Ukraine ۱۲ سرباز دارد 345"], lambda t: 4 * len(t))
    assert "Ukraine" in row
    assert "345" in row and "543" not in row
    assert "۱۲" in row
    # The paragraph is right to left: the first logical words stand at the right (a
    # number after a Latin word belongs to its left-to-right run).
    assert row.endswith("Ukraine ۱۲")
    assert row.startswith("345")


def test_a_word_wider_than_a_row_is_cut_not_dropped() -> None:
    word = "ب" * 60
    rows = logical_rows([word], per_char)
    assert len(rows) > 1
    assert "".join(rows) == word
    assert all(per_char(shape(r)) <= WIDTH for r in rows)


def test_join_controls_are_not_sent() -> None:
    # The ZWNJ inside می‌خواهید steers the shaping; the seat's font has no glyph for it.
    (row,) = display_rows(["می‌خواهید"], naskh_width)
    assert "\u200c" not in row
    assert row == get_display(arabic_reshaper.reshape("می‌خواهید"), base_dir="R").replace(
        "\u200c", "")


@pytest.mark.parametrize("line", [
    "Move 3 armies into Ukraine",
    "Mova 3 exércitos para a Ucrânia",
    "Supercalifragilisticexpialidocious word",
    "",
    "a b c d e f g h i j k l m n o p q r s t u v w x y z",
])
def test_ltr_rows_are_the_seats_own_wrap(line: str) -> None:
    rows = ltr_rows([line])
    assert all(len(row) <= COLUMNS for row in rows)
    assert rows == [row for row in oled_text.layout([line]) if row][:len(rows)]
    assert len(rows) == oled_text.drawn([line])
