"""`risktable seat play`'s card keys from the hub's enrolled deck file, and its panel."""

from __future__ import annotations

from pathlib import Path

import pytest

from risktable.cards.deck_file import EnrolledCard, save_deck
from risktable.rules.board import classic_board
from risktable.seat_play import SeatPlayError, load_deck_keys, play_panel


def test_c_draws_every_enrolled_card_once_and_digits_tap_them_again(tmp_path: Path) -> None:
    board = classic_board()
    uids = {f"04A1{n:04X}": EnrolledCard(n, n % 3) for n in range(5)}
    save_deck(tmp_path / "cards.json", board, uids)
    keys = load_deck_keys(tmp_path / "cards.json")
    drawn = [keys("c") for _ in range(5)]
    assert sorted(line["card"] for line in drawn if line) == sorted(uids)
    assert keys("2") == drawn[1] and keys("6") is None and keys("x") is None
    panel = play_panel(1, {}, keys.drawn)
    assert "cards drawn here: 1 " in panel and board.territory_ids[0] in panel
    assert keys("c") is not None and len(keys.drawn) == 1  # all drawn: the pile again


def test_a_file_that_is_not_a_deck_is_refused(tmp_path: Path) -> None:
    (tmp_path / "x.json").write_text("{}")
    with pytest.raises(SeatPlayError, match="not an enrolled deck file"):
        load_deck_keys(tmp_path / "x.json")
