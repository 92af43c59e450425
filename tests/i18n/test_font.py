"""The seat's font: the committed file is a fresh build's bytes, it holds every character
the catalogues use, and its faces have the sizes the seat's display needs."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from risktable import i18n
from risktable.i18n import font, numbers
from risktable.i18n.font import FONT_PATH, Font, FontError, build_font, missing_chars
from risktable.i18n.layout import visual as shape

# Persian words that hold every letter of the alphabet in its joining forms, and a row
# with digits and punctuation: what the faces are measured on.
PERSIAN = ["آب پژوهش چگونه ذغال", "صبر ضعیف طلا ظرف غذا قفل کیک گل", "ثروت خانه زمین",
           "حمله از ایران به عراق؟ (۳ سرباز)، ۱۲ ارتش"]
ACCENTED = set("ãçășțğıİşöüâîéêóõáíúàÇŞȘȚĞÖÜÂÎÃÉÓÁÍÚ")


@pytest.fixture(scope="module")
def sample() -> Font:
    rtl = {ch for text in PERSIAN for ch in shape(text)}
    return Font.parse(build_font(ACCENTED, rtl))


def test_the_committed_font_is_a_fresh_build(tmp_path: Path) -> None:
    # A catalogue changed without `python -m risktable.i18n.font` (or `catalogues all`)
    # fails here.
    out = tmp_path / "font.bin"
    assert font.main(["--out", str(out)]) == 0
    assert out.read_bytes() == FONT_PATH.read_bytes()


def test_the_build_is_deterministic() -> None:
    assert build_font({"ç"}, set(shape("سلام"))) == build_font({"ç"}, set(shape("سلام")))


def test_every_character_a_catalogue_uses_is_in_the_font() -> None:
    latin, rtl = font.catalogue_chars()
    assert missing_chars(Font.load(), latin, rtl) == set()
    # The checker finds a glyph the font lacks.
    assert missing_chars(Font.parse(build_font(set(), set())), {"ç"}, {"\ufe8e"}) == {
        ("latin", "ç"), ("rtl", "\ufe8e")}


def test_the_numbers_a_persian_seat_shows_are_in_the_font() -> None:
    # Persian digits, the Persian decimal sign and percent sign come from the number
    # writer, not from a catalogue: the font carries them all the same.
    with i18n.using("fa"):
        texts = [numbers.percent(0.916), numbers.decimal(1234.5),
                 numbers.native_digits("0123456789"), i18n._("Battle odds {percent}")]
    assert set("".join(texts[:3])) <= set(numbers.NATIVE_SIGNS["fa"])
    rtl = {ch for text in texts for ch in shape(text)}
    assert missing_chars(Font.load(), set(), rtl) == set()


def test_shaped_persian_is_presentation_forms_in_the_rtl_face() -> None:
    _, rtl = font.catalogue_chars()
    arabic = {ch for ch in rtl if ord(ch) > 0x7F}
    assert all(0xFB50 <= ord(ch) <= 0xFEFF or unicodedata.category(ch)[0] in "NP"
               or ch in "\u0640" for ch in arabic), sorted(hex(ord(ch)) for ch in arabic)


def test_persian_glyphs_are_at_least_12_px_high(sample: Font) -> None:
    face = sample.face("rtl")
    assert face.height == 16
    spans = {}
    for ch, glyph in face.glyphs.items():
        ink = glyph.ink()
        if ink is not None and 0xFB50 <= ord(ch) <= 0xFEFF:
            spans[ch] = ink
    top = min(t for t, _ in spans.values())
    bottom = max(b for _, b in spans.values())
    assert bottom - top + 1 >= 12
    # An alef alone is 10 px or more, the height of the Latin capitals beside it.
    alef = spans["\ufe8d"]
    assert alef[1] - alef[0] + 1 >= 10
    # Letters with dots keep them: beh's dot below is its own ink under the stroke.
    assert any(row.strip(".") for row in face.glyph("\ufe8f").rows()[13:])


def test_latin_glyphs_fit_the_8_px_cells(sample: Font) -> None:
    face = sample.face("latin")
    assert face.height == 8 and face.stride == 1
    assert set(face.glyphs) == ACCENTED
    for ch, glyph in face.glyphs.items():
        assert glyph.advance == 8, ch
        rows = glyph.rows()
        marks = unicodedata.normalize("NFD", ch)[1:]
        if marks and marks[0] in "\u0327\u0326":
            assert "#" in rows[7], ch  # cedilla or comma below, under the letter
        elif marks:
            assert "#" in rows[0] + rows[1], ch  # the mark above
        assert glyph.ink() is not None, ch
    # The marks tell letters apart.
    assert face.glyph("é").bitmap != face.glyph("ê").bitmap
    assert face.glyph("ş").bitmap != face.glyph("s" if face.has("s") else "ç").bitmap


def test_width_is_the_sum_of_advances_and_a_missing_character_is_a_question_mark(
    sample: Font,
) -> None:
    face = sample.face("rtl")
    row = shape("ایران ۳")
    assert face.width(row) == sum(face.glyph(ch).advance for ch in row)
    assert face.has("?") and not face.has("\u4e2d")
    assert face.width("\u4e2d") == face.glyph("?").advance
    with pytest.raises(KeyError):
        sample.face("latin").glyph("\u4e2d")


def test_a_damaged_file_is_refused() -> None:
    data = FONT_PATH.read_bytes()
    with pytest.raises(FontError):
        Font.parse(b"XXXX" + data[4:])
    with pytest.raises(FontError):
        Font.parse(data[:-5])
    with pytest.raises(FontError):
        build_font({"\U0001f600"}, set())


def test_a_persian_word_broken_across_rows_is_still_in_the_font() -> None:
    # The hub breaks a word too long for a row: each half is shaped alone, its letters
    # at the break take forms the whole word does not show.
    face = Font.load().face("rtl")
    lacking = set()
    for text in font.catalogue_messages("fa"):
        for word in text.split():
            for cut in range(1, len(word)):
                for part in (word[:cut], word[cut:]):
                    lacking |= {ch for ch in shape(part) if not face.has(ch)}
    assert lacking == set(), sorted(hex(ord(ch)) for ch in lacking)
    assert font.joining_forms({"\u0628"}) == {"\ufe8f", "\ufe90", "\ufe91", "\ufe92"}
