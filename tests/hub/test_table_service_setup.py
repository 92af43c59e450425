"""How the table service picks its rule set and deck before any seat connects."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import pytest

from risktable.cards.deck_file import EnrolledCard, deck_path, save_deck
from risktable.config import HubConfig, TableConfig
from risktable.game_rules import RulesUnknown, rules_config
from risktable.rules import classic_board
from risktable.rules.decks import PLACEHOLDER_STARS, ceasefire_card
from risktable.rules.presets import PRESETS, preset_config
from risktable.service.table_service import TableService, load_card_uids


def test_rule_sets_are_the_presets() -> None:
    assert rules_config("classic", 4) == rules_config("classic_1993", 4)
    assert rules_config("two_player_1993", 2).options.two_player == "neutral_1993"
    assert rules_config("capital_1993", 3).options.goal == "capitals"
    assert rules_config("capital_1993_short", 6).options.capitals_needed == "short"
    master = rules_config("master_1993", 4).options
    assert (master.card_values, master.reroll, master.commander) == ("slow", "on", "on")
    assert rules_config("two_player_2016", 2).options.two_player == "neutral_2016"
    assert rules_config("mission_1993", 3).options.goal == "missions"
    with pytest.raises(RulesUnknown, match="classic_1993"):
        rules_config("monopoly", 4)
    with pytest.raises(RulesUnknown, match="players"):
        rules_config("classic", 2)
    # The table referees every rule set the engine knows.
    for name, preset in PRESETS.items():
        assert rules_config(name, preset.players[0]) == preset_config(name, preset.players[0])


def test_a_fully_enrolled_deck_gives_the_game_its_symbols(tmp_path: Path) -> None:
    board = classic_board()
    # Every territory card printed with cavalry (index 1), the wilds wild.
    deck = {f"{c:08X}": EnrolledCard(c, 1 if c < board.size else 3)
            for c in range(board.deck_size)}
    save_deck(deck_path(tmp_path), board, deck)
    service = TableService(HubConfig(table=TableConfig(seats=3), data_dir=tmp_path))
    symbols = service.session.config.board.card_symbols
    assert symbols[: board.size] == (1,) * board.size
    # The journal's header carries them: a rebuilt service sees the same game and deck.
    service.journal.close()
    again = TableService(HubConfig(table=TableConfig(seats=3), data_dir=tmp_path))
    assert again.game_id == service.game_id
    assert again.session.config.board.card_symbols == symbols
    again.journal.close()


def test_without_enrollment_the_placeholder_symbols_stay(tmp_path: Path) -> None:
    service = TableService(HubConfig(table=TableConfig(seats=3), data_dir=tmp_path))
    assert service.session.config.board.card_symbols == classic_board().card_symbols
    service.journal.close()


def test_a_fully_enrolled_2016_deck_gives_the_game_its_stars(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    board = classic_board()
    bare = HubConfig(table=TableConfig(seats=3, rules="classic_2016"), data_dir=tmp_path / "a")
    # Not enrolled: the placeholder, and the log says so.
    with caplog.at_level(logging.WARNING):
        service = TableService(bare)
    assert service.session.config.stars == PLACEHOLDER_STARS
    assert "the 2016 deck is not enrolled (0 of 42" in caplog.text
    service.journal.close()
    # With the hub keeping the hands no printed deck is in play: nothing to enroll, and
    # the log does not ask for it (the setup checklist's first game).
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        hub_kept = TableService(replace(bare, data_dir=tmp_path / "h", table=replace(
            bare.table, cards="hub")))
    assert hub_kept.session.config.stars == PLACEHOLDER_STARS
    assert "not enrolled" not in caplog.text
    hub_kept.journal.close()

    # Every territory card with two stars but the first (an assignment no placeholder has).
    stars = (1,) + (2,) * (board.size - 1)
    cards = {f"{c:08X}": EnrolledCard(c, stars[c]) for c in range(board.size)}
    cards["CEA5EF1E"] = EnrolledCard(ceasefire_card(board), 0)
    enrolled = HubConfig(table=TableConfig(seats=3, rules="classic_2016"),
                         data_dir=tmp_path / "b")
    save_deck(deck_path(enrolled.data_dir, "2016"), board, cards, "2016")
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        service = TableService(enrolled)
    assert "not enrolled" not in caplog.text
    assert service.session.config.stars == stars
    assert load_card_uids(enrolled.data_dir, service.rules)["CEA5EF1E"] == ceasefire_card(board)
    service.journal.close()
    # The journal's header carries the stars: a rebuilt service plays the same deck.
    again = TableService(enrolled)
    assert again.session.config.stars == stars
    again.journal.close()
