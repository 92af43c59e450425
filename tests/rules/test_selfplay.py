"""Seeded self-play: heuristic games end with a winner and their logs replay exactly."""

from __future__ import annotations

import pytest

from risktable.rules import Config, replay
from risktable.rules.record import dumps, loads
from risktable.rules.selfplay import selfplay

GAMES = 30


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_heuristic_games_end_and_replay(players: int) -> None:
    config = Config(players)
    for r in selfplay(config, GAMES, 20261129, "heuristic", max_turns=None):
        assert not r.capped and r.winner is not None
        assert r.final.counts[r.winner] == 42
        assert r.dice_rolls >= r.battles // 2 and r.actions == len(r.log)
        log = loads(dumps(config, r.log))
        assert replay(log.config, log.actions()) == r.final


def test_uniform_games_stop_at_the_turn_cap_and_say_so() -> None:
    results = list(selfplay(Config(3), 2, 5, "uniform", max_turns=40))
    for r in results:
        assert r.capped == (r.winner is None)
        if r.capped:
            assert r.turns == 40 and r.final.turn == 41 and not r.final.is_terminal
        assert replay(Config(3), r.log) == r.final
    assert any(r.capped for r in results)
