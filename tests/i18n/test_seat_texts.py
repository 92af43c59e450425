"""The seat's own words (risktable.i18n.seat_texts -> firmware/texts.bin): every key in
every language, Persian shaped and no wider than the display, the committed file in step
with the catalogues and the font, read the way the seat reads it, and English the same
as the firmware's own literals."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest

from risktable.i18n import LANGUAGES, RIGHT_TO_LEFT, layout, seat_texts
from risktable.i18n.font import Font
from tests.support.tools import ROOT

TEXTS_BIN = ROOT / "firmware" / "texts.bin"
FIRMWARE = ROOT / "firmware" / "seat"


def committed() -> dict[str, dict[str, seat_texts.Entry]]:
    return seat_texts.decode(TEXTS_BIN.read_bytes())


def test_the_committed_file_is_the_catalogues_and_fonts(tmp_path: Path) -> None:
    # After a translation or font change: python -m risktable.i18n.seat_texts
    fresh = seat_texts.build_texts(tmp_path / "texts.bin")
    assert fresh.read_bytes() == TEXTS_BIN.read_bytes(), (
        "firmware/texts.bin is stale: run python -m risktable.i18n.seat_texts")


def test_every_key_has_rows_in_every_language() -> None:
    table = committed()
    assert list(table) == list(LANGUAGES)
    for lang in LANGUAGES:
        assert sorted(table[lang]) == sorted(seat_texts.TEXTS)
        for key, entry in table[lang].items():
            assert entry.rows and all(entry.rows), (lang, key)
            # Right to left only where there is a translation to shape.
            assert entry.rtl == (lang in RIGHT_TO_LEFT and entry.rows != table["en"][key].rows
                                 ), (lang, key)


# Placeholders, digits, spaces and punctuation: what a row holds besides words.
_NOT_WORDS = dict.fromkeys(map(ord, "\ue000\ue001 0123456789:.,()-%/؟،"))


def _values(row: str, key: str) -> str:
    # Each placeholder as the widest value the seat puts there, by its kind in the
    # English source (the catalogue test keeps printf placeholders in order).
    kinds = re.findall(r"%([ds])", seat_texts.TEXTS[key])
    for i, kind in enumerate(kinds):
        row = row.replace(chr(ord(seat_texts.PLACEHOLDER) + i), seat_texts.SAMPLES[kind])
    return row


def test_right_to_left_rows_are_shaped_and_fit_the_display() -> None:
    face = Font.load().face("rtl")
    shaped = 0
    for lang in RIGHT_TO_LEFT:
        for key, entry in committed()[lang].items():
            if not entry.rtl:
                continue
            shaped += 1
            assert len(entry.rows) <= 12, key  # the view's most lines: three pages
            for row in entry.rows:
                assert not any("\u0621" <= ch <= "\u06d3" for ch in row), (key, row)
                words = row.translate(_NOT_WORDS)
                # A row of words is shaped; a row may also hold only a value (a die's id).
                assert not words or any("\ufb50" <= ch <= "\ufeff" for ch in words), (key, row)
                drawn = row.replace(chr(ord(seat_texts.PLACEHOLDER)), "00")
                assert all(face.has(ch) for ch in drawn if ch < "\ue000"), (key, row)
                assert face.width(_values(row, key)) <= layout.WIDTH, (key, row)
                assert len(row) <= layout.ROW_CHARS
    assert shaped, "no Persian entry to check: the catalogue has none of them"


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang not in RIGHT_TO_LEFT])
def test_left_to_right_words_fit_one_page(lang: str) -> None:
    for key, entry in committed()[lang].items():
        rows = layout.ltr_rows([_values(line, key) for line in entry.rows])
        assert len(rows) <= 8, (lang, key, rows)


def test_the_seats_reading_finds_every_entry() -> None:
    # firmware/seat/texts.py: a language's and a key's place by a search of their table.
    data = TEXTS_BIN.read_bytes()
    n_lang, n_key = data[4], data[5]
    codes = data[6:6 + 3 * n_lang]
    names = data[6 + 3 * n_lang:6 + 3 * n_lang + 8 * n_key]
    table = committed()
    for li, lang in enumerate(LANGUAGES):
        assert codes.find(lang.encode() + b"\0") == 3 * li
        for key in seat_texts.TEXTS:
            ki = names.find(key.encode().ljust(8, b"\0"))
            assert ki % 8 == 0
            at = 6 + 3 * n_lang + 8 * n_key + 4 * (li * n_key + ki // 8)
            offset, length = struct.unpack_from("<HH", data, at)
            text = data[offset + 1:offset + length].decode().split("\n")
            assert tuple(text) == table[lang][key].rows


def test_a_value_has_a_placeholder() -> None:
    (die,) = committed()["en"]["die"].rows
    assert die == "Die \ue000 of \ue001"


def test_english_is_the_firmwares_own_literals() -> None:
    # The firmware shows English without reading texts.bin (Seat.words): every key it
    # asks for is named with the same English as here, and nothing else is.
    said = set()
    for path in FIRMWARE.glob("*.py"):
        said |= set(re.findall(r'(?:words\(|_report\(dice, |return )"([a-z0-9]+)", "([^"]*)"',
                               path.read_text()))
    asked = {(key, english) for key, english in said if key in seat_texts.TEXTS}
    assert asked == set(seat_texts.TEXTS.items())
