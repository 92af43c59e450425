"""The demo's last line says why the game ended, for every way a game can end."""

from __future__ import annotations

import pytest

from risktable.demo.game import end_reason
from risktable.rules import replay
from risktable.rules.goals import how_won
from risktable.rules.selfplay import selfplay
from risktable.service.table_service import rules_config

WORDS = {"conquest": "every other player was eliminated", "capitals": "held every capital",
         "mission": "completed its secret mission (Mission: ",
         "territories": "territories, the goal being", "ceasefire": "ceasefire card"}


@pytest.mark.parametrize(("rules", "players", "won"), [
    ("classic", 3, "conquest"), ("capital_1993", 4, "capitals"),
    ("mission_1993", 4, "mission"), ("two_player_2016", 2, "territories")])
def test_the_reason_names_how_the_game_was_won(rules: str, players: int, won: str) -> None:
    config = rules_config(rules, players)
    final = replay(config, next(selfplay(config, 1, 11)).log)
    assert how_won(final) == won
    assert WORDS[won] in end_reason(final)


def test_a_game_going_on_has_no_reason() -> None:
    config = rules_config("classic", 3)
    log = next(selfplay(config, 1, 11)).log
    with pytest.raises(ValueError, match="not over"):
        end_reason(replay(config, log[:10]))
