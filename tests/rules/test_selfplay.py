"""Seeded self-play: heuristic games end with a winner and their logs replay exactly."""

from __future__ import annotations

import random

import pytest

from risktable.rules import Config, apply, chance_outcomes, current_actor, new_game, replay
from risktable.rules.actions import Action
from risktable.rules.bots import BOTS
from risktable.rules.chance import sample_roll
from risktable.rules.presets import preset_config
from risktable.rules.record import dumps, loads
from risktable.rules.selfplay import selfplay
from risktable.rules.state import CHANCE, GAME_OVER, ROLL

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


def _through_apply(config: Config, seed: int, bot: str, max_turns: int) -> list[Action]:
    # Self-play as the plain loop over apply, drawing chance in the same order.
    rng = random.Random(f"{seed}:0:chance")
    bots = [BOTS[bot](random.Random(f"{seed}:0:seat{p}").getrandbits(64))
            for p in range(config.players)]
    s, log = new_game(config), []
    while s.phase != GAME_OVER and s.turn <= max_turns:
        actor = current_actor(s)
        if s.phase == ROLL:
            a: Action = sample_roll(rng, s.attack_dice, s.defend_dice)
        elif actor == CHANCE:
            a = chance_outcomes(s).sample(rng)
        else:
            a = bots[actor].choose(s)
        s, _ = apply(s, a)
        log.append(a)
    return log


@pytest.mark.parametrize(("rules", "players", "bot"), [
    ("classic_1993", 4, "heuristic"), ("classic_1993", 3, "uniform"),
    ("classic_1993", 5, "random"), ("mission_1993", 4, "heuristic"),
    ("master_1993", 4, "heuristic"), ("two_player_1993", 2, "heuristic"),
])
def test_selfplay_plays_the_games_the_plain_loop_over_apply_plays(rules: str, players: int,
                                                                 bot: str) -> None:
    # Its shortcuts for battles (no dispatch, losses looked up) change nothing.
    config = preset_config(rules, players)
    (r,) = selfplay(config, 1, 11, bot, max_turns=120)
    assert r.log == _through_apply(config, 11, bot, 120)
