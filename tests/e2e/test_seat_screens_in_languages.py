"""What a seat shows in each language, drawn into pictures by the firmware's own display
code (tests/support/oled_pixels.py).

A right-to-left language (Persian) takes its own path through the seat: the hub breaks,
shapes and orders the rows, and the firmware right-aligns them in its font's
right-to-left face. So a short game (capital_1993_short, seed 1) in it is played by the
demo's bots at three seat firmwares under ``micropython`` against the hub: the seats
show nothing untranslated, get shaped right-to-left rows (joined letters, no bare
Arabic letter left for the seat to join), every character a seat was sent is in its
font, and the screens it showed are drawn. A left-to-right language takes English's
path (tests/e2e/test_demo.py): seat 1's screens of the recorded game of
capital_1993_short in it are drawn.

``RISKTABLE_REGENERATE_SCREENS=1`` writes those pictures to ``docs/screens/<lang>/``
with an index a reader of that language can review; without it they are drawn into
a scratch folder, and the committed folders are checked to exist for every language.
"""

from __future__ import annotations

import io
import os
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from risktable import i18n
from risktable.demo.runner import DemoOptions, run_demo
from risktable.demo.seats import SeatProcess
from risktable.i18n.font import Font
from risktable.table.session import Outcome
from tests.support.oled_pixels import render
from tests.support.preset_games import PresetGames
from tests.support.tools import ROOT

SCREENS = ROOT / "docs" / "screens"
REGENERATE = os.environ.get("RISKTABLE_REGENERATE_SCREENS") == "1"
PICTURES = 10  # screens drawn per language, spread over seat 1's game
PICTURED = "capital_1993_short"  # the rule set of the left-to-right languages' pictures
# Bare letters, the hub must send joined forms (the block's signs, ٪ and ٫, join nothing).
ARABIC_LETTERS = range(0x0621, 0x06D4)


def _play(lang: str, micropython: str) -> tuple[Any, list[SeatProcess]]:
    seats: list[SeatProcess] = []

    def record(seat: SeatProcess) -> None:
        seat.history = []
        seats.append(seat)

    i18n.missed.clear()
    summary = run_demo(DemoOptions(seats=3, rules="capital_1993_short", seed=1, colour=False,
                                   micropython=micropython, table=f"lang{lang}", lang=lang,
                                   on_seat=record), io.StringIO())
    return summary, seats


def _screens(seat: SeatProcess) -> list[tuple[tuple[str, ...], bool]]:
    # The distinct texts the seat's display showed, in the order it first showed them.
    seen: dict[tuple[tuple[str, ...], bool], None] = {}
    for update in seat.history or []:
        lines = update.get("oled")
        if isinstance(lines, list) and lines:
            seen.setdefault((tuple(lines), bool(update.get("rtl"))), None)
    return list(seen)


@pytest.mark.slow
@pytest.mark.xdist_group("screens")  # regenerating, it writes docs/screens/ (tests/README.md)
@pytest.mark.parametrize("lang", sorted(i18n.RIGHT_TO_LEFT))
def test_a_game_on_the_seat_firmware_speaks_the_seats_language(
        lang: str, micropython: str, tmp_path: Path) -> None:
    summary, seats = _play(lang, micropython)
    assert summary.winner_seat is not None
    assert sorted(m for m in i18n.missed if m[0] == lang) == []

    screens = [screen for seat in seats for screen in _screens(seat)]
    assert len(screens) > 20, screens
    font = Font.load()
    for lines, rtl in screens:
        assert rtl == (lang in i18n.RIGHT_TO_LEFT), lines
        assert all(len(line) <= 40 for line in lines), lines
        face = font.face("rtl" if rtl else "latin")
        lacking = {ch for line in lines for ch in line
                   if (rtl or ord(ch) > 0x7E) and not face.has(ch)}
        assert not lacking, (lines, lacking)
        if rtl:
            bare = [ch for line in lines for ch in line if ord(ch) in ARABIC_LETTERS
                    and unicodedata.category(ch) == "Lo"]
            assert not bare, (lines, [unicodedata.name(ch) for ch in bare])

    _pictures(lang, _screens(seats[0]), tmp_path, "in a game of capital_1993_short (seed 1)")


@pytest.mark.parametrize("lang", [lang for lang in i18n.LANGUAGES
                                  if lang not in i18n.RIGHT_TO_LEFT])
def test_the_screens_of_a_left_to_right_language_in_pictures(
        lang: str, preset_games: PresetGames, micropython: str, tmp_path: Path) -> None:
    # A left-to-right seat draws the hub's logical lines with its own wrap, whatever the
    # language: the firmware's path is English's (tests/e2e/test_demo.py plays a whole
    # demo game through it). The words are the catalogue's (every rule set in every
    # language: tests/i18n/test_games_in_languages.py, which also checks each line's
    # length and font), so here seat 1's screens of the recorded game are drawn.
    game = preset_games(PICTURED)
    table = game.session()
    for seat in table.seats:
        table.set_language(seat, lang)
    seen: dict[tuple[tuple[str, ...], bool], None] = {
        (tuple(table.view(1)["lines"]), False): None}

    def shown(out: Outcome) -> None:
        if 1 in out.views:
            seen.setdefault((tuple(out.views[1]["lines"]), False), None)

    game.replay(table, shown)
    assert len(seen) > 20, seen
    _pictures(lang, list(seen), tmp_path, f"in the recorded game of {PICTURED} "
              f"(tests/support/preset_games.py, seed {game.seed}, {game.players} seats)",
              micropython)


def _pictures(lang: str, shown: list[tuple[tuple[str, ...], bool]], tmp_path: Path,
              game: str, micropython: str | None = None) -> None:
    """Seat 1's first distinct screens of ``shown`` drawn by the firmware's display code
    under MicroPython: into ``docs/screens/<lang>/`` when regenerating, else a scratch
    folder."""
    out = SCREENS / lang if REGENERATE else tmp_path / lang
    out.mkdir(parents=True, exist_ok=True)
    if REGENERATE:
        for old in out.glob("*.png"):
            old.unlink()
    index = [f"# Seat screens: {i18n.NAMES[lang]} ({lang})", "",
             "Generated by `tests/e2e/test_seat_screens_in_languages.py` "
             "(`RISKTABLE_REGENERATE_SCREENS=1` draws them again): distinct screens "
             f"seat 1 showed, spread from the first to the last, {game}, drawn by the "
             "seat firmware's own display code under MicroPython, each page of a screen "
             "as one picture (the seat turns the page every 3 s).", ""]
    step = max(1, len(shown) // PICTURES)
    for n, (lines, rtl) in enumerate([*shown[::step][:PICTURES - 1], shown[-1]], start=1):
        pages = render(list(lines), rtl, micropython=micropython)
        assert pages and all(p[:4] == b"\x89PNG" for p in pages)
        for page, picture in enumerate(pages, start=1):
            name = f"{n:02d}-{page}.png"
            (out / name).write_bytes(picture)
            index.append(f"![screen {n}, page {page} of {len(pages)}]({name})")
        index += ["", "```", *lines, "```", ""]
    (out / "README.md").write_text("\n".join(index).rstrip() + "\n")


@pytest.mark.xdist_group("screens")  # it reads what the tests above regenerate
def test_the_screens_of_every_language_are_in_the_docs() -> None:
    for lang in i18n.LANGUAGES:
        folder = SCREENS / lang
        assert (folder / "README.md").is_file(), folder
        pictures = sorted(folder.glob("*.png"))
        assert len(pictures) >= 5, folder
        for picture in pictures:
            assert f"({picture.name})" in (folder / "README.md").read_text()
