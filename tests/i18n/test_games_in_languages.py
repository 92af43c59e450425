"""The recorded game of every rule set (tests/support/preset_games.py) replayed with
the seats in Persian, Portuguese, Romanian and Turkish, four seats four languages where
the rule set seats four: every message a seat is shown is in its catalogue (none falls
back to English), no line is cut to fit (a translation too long for a view line is a
bug of the catalogue, see docs/translations.md), and what a seat is sent fits a view's
line and is drawn by the seat's font, Persian as joined letters."""

from __future__ import annotations

import sys
import unicodedata
from collections.abc import Iterator

import pytest

from risktable import i18n
from risktable.i18n.font import Font
from risktable.i18n.layout import ROW_CHARS, display_rows
from risktable.i18n.seat_view import MAX_ROWS
from risktable.rules.presets import PRESETS
from risktable.table import prompts
from risktable.table.session import Outcome
from tests.support.preset_games import PresetGames

LANGS = [lang for lang in i18n.LANGUAGES if lang != i18n.DEFAULT]
# Bare letters, the hub must send joined forms (the block's signs, ٪ and ٫, join nothing).
ARABIC_LETTERS = range(0x0621, 0x06D4)
EVENTS = 900  # inputs of each recorded game: past the set-up and a few turns of every rule set


@pytest.fixture
def cuts(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, str]]]:
    """(language, line) of every line prompts.fit had to cut while the test ran."""
    found: list[tuple[str, str]] = []
    fit = prompts.fit

    def recording(text: str) -> str:
        out = fit(text)
        # English lines are held to 24 characters by design, and a hand is shown as much
        # of it as fits; any other cut loses words of a translation.
        if out != text and i18n.current() != i18n.DEFAULT \
                and sys._getframe(1).f_code.co_name != "hand_line":
            found.append((i18n.current(), text))
        return out

    monkeypatch.setattr(prompts, "fit", recording)
    i18n.missed.clear()
    yield found
    i18n.missed.clear()


@pytest.mark.parametrize(("rules", "hub_cards"), [
    *((name, False) for name in PRESETS), ("classic_2016", True), ("mission_1993", True)])
def test_a_game_in_every_language_misses_no_message(
        rules: str, hub_cards: bool, cuts: list[tuple[str, str]],
        preset_games: PresetGames) -> None:
    game = preset_games(rules, hub_cards)
    table = game.session()
    for seat in table.seats:
        table.set_language(seat, LANGS[(seat + game.seed) % len(LANGS)])
    shown: set[str] = set()
    overflow: list[tuple[int, list[str]]] = []
    too_long: set[str] = set()
    lacking: set[tuple[str, str]] = set()
    bare: set[str] = set()
    font = Font.load()
    faces = {False: font.face("latin"), True: font.face("rtl")}

    def seen(out: Outcome) -> None:
        for seat, fields in out.views.items():
            lines = list(fields["lines"])
            shown.update(lines)
            rtl = table.language(seat) in i18n.RIGHT_TO_LEFT
            if rtl:
                # A right-to-left seat gets display rows, at most MAX_ROWS of them: more
                # would be cut on the way out (seat_view.written).
                lines = display_rows(lines, faces[True].width)
                if len(lines) > MAX_ROWS:
                    overflow.append((seat, fields["lines"]))
            # What the seat is sent fits a view's line, and its font draws every
            # character of it (a left-to-right seat has ASCII built in); the hub sent
            # Persian letters joined, never bare for the seat to join.
            too_long.update(line for line in lines if len(line) > ROW_CHARS)
            lacking.update((table.language(seat), ch) for line in lines for ch in line
                           if (rtl or ord(ch) > 0x7E) and not faces[rtl].has(ch))
            if rtl:
                bare.update(ch for line in lines for ch in line if ord(ch) in ARABIC_LETTERS
                            and unicodedata.category(ch) == "Lo")

    game.replay(table, seen, EVENTS)
    assert shown, "no view was written"
    assert not i18n.missed, f"messages shown in English: {sorted(i18n.missed)}"
    assert not cuts, f"lines cut to fit: {cuts}"
    assert not overflow, f"views with more display rows than a view holds: {overflow}"
    assert not too_long, f"lines longer than a view's: {too_long}"
    assert not lacking, f"characters the seat's font lacks: {lacking}"
    assert not bare, f"Arabic letters sent unjoined: {[unicodedata.name(ch) for ch in bare]}"
