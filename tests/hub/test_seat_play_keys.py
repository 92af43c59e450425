"""`risktable seat play`'s card keys from the hub's enrolled deck file, and its panel."""

from __future__ import annotations

from pathlib import Path

import pytest

from risktable import i18n
from risktable.cards.deck_file import EnrolledCard, save_deck
from risktable.cards.keyboard_deck import keyboard_uid
from risktable.demo.keyboard import NothingToTap
from risktable.i18n.layout import ltr_rows
from risktable.i18n.seat_view import written
from risktable.rules.board import classic_board
from risktable.seat_play import KeyboardKeys, SeatPlayError, load_deck_keys, play_panel


def test_c_draws_every_enrolled_card_once_and_digits_tap_them_again(tmp_path: Path) -> None:
    board = classic_board()
    uids = {f"04A1{n:04X}": EnrolledCard(n, n % 3) for n in range(5)}
    save_deck(tmp_path / "cards.json", board, uids)
    keys = load_deck_keys(tmp_path / "cards.json")
    drawn = [keys("c") for _ in range(5)]
    assert sorted(line["card"] for line in drawn if line) == sorted(uids)
    assert keys("2") == drawn[1] and keys("x") is None
    with pytest.raises(NothingToTap, match=r"^6: you hold no card 6$"):
        keys("6")
    panel = play_panel(1, {}, keys.drawn)
    assert "cards drawn here: 1 " in panel and board.territory_ids[0] in panel
    assert keys("c") is not None and len(keys.drawn) == 1  # all drawn: the pile again


def test_a_file_that_is_not_a_deck_is_refused(tmp_path: Path) -> None:
    (tmp_path / "x.json").write_text("{}")
    with pytest.raises(SeatPlayError, match="not an enrolled deck file"):
        load_deck_keys(tmp_path / "x.json")


def _display(lines: list[str], lang: str) -> dict[str, object]:
    # The seat's outputs for the hub's lines (in lang) as its display shows them.
    rows = written({"lines": lines}, lang)["lines"]
    return {"oled": rows if lang in i18n.RIGHT_TO_LEFT else ltr_rows(rows)}


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_c_taps_only_when_the_display_asks_for_a_card_and_says_why_not(lang: str) -> None:
    outputs: dict[str, object] = {}
    keys = KeyboardKeys(lambda: outputs, lang)
    with i18n.using(lang):
        waiting = [i18n._("Seat {n} draws a card").format(n=2)]
        drawing = [i18n._("Draw a card and tap it"), i18n._("on your reader")]
        enrolling = [i18n._("Tap the card of"), "Alaska",
                     i18n._("card {n} of {total}").format(n=3, total=44)]
        why = i18n._("c: no card to tap now")
    for lines in ([], waiting):
        outputs = _display(lines, lang)
        with pytest.raises(NothingToTap) as raised:
            keys("c")
        assert str(raised.value) == why and keys.drawn == []  # nothing drawn
    outputs = _display(drawing, lang)
    card = keys("c")
    assert card is not None and keys.drawn and keys.drawn[0][0] == card["card"]
    outputs = _display(enrolling, lang)
    assert keys("c") == {"card": keyboard_uid(2)}
    assert f"  {why}" in play_panel(1, outputs, [], note=why).splitlines()


def test_a_deck_files_c_waits_for_the_card_step_too(tmp_path: Path) -> None:
    board = classic_board()
    save_deck(tmp_path / "cards.json", board, {"04A10001": EnrolledCard(1, 0)})
    outputs = {"oled": ["Seat 2 to play"]}
    keys = load_deck_keys(tmp_path / "cards.json", outputs=lambda: outputs, lang="en")
    with pytest.raises(NothingToTap, match=r"^c: no card to tap now$"):
        keys("c")
    outputs = {"oled": ltr_rows(["Draw a card and tap it", "on your reader"])}
    assert keys("c") == {"card": "04A10001"}
