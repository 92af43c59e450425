"""Bots: the random bot is uniform over exactly the legal set; both are seeded and deterministic."""

from __future__ import annotations

import random
from collections import Counter

from risktable.rules import (
    CHANCE,
    Config,
    Options,
    State,
    apply,
    chance_outcomes,
    current_actor,
    new_game,
)
from risktable.rules import legal_actions as engine_legal_actions
from risktable.rules.actions import Attack
from risktable.rules.bots import Bot, HeuristicBot, RandomBot, UniformBot
from risktable.rules.selfplay import play_game, selfplay


def _states(seed: int, options: Options, limit: int = 1500) -> list[State]:
    """Decision states from one game played by heuristic bots."""
    rng = random.Random(seed)
    bots = [HeuristicBot(seed + p) for p in range(4)]
    s = new_game(Config(4, options))
    out = []
    for _ in range(limit):
        if s.is_terminal:
            break
        actor = current_actor(s)
        if actor == CHANCE:
            a = chance_outcomes(s).sample(rng)
        else:
            out.append(s)
            a = bots[actor].choose(s)
        s, _ = apply(s, a)
    return out


def test_random_bot_indexes_exactly_the_legal_actions() -> None:
    bot = UniformBot(0)
    checked = Counter[str]()
    for seed, options in ((1, Options()), (2, Options(fortify="connected", setup="deal"))):
        for s in _states(seed, options)[::3]:
            n = bot.legal_count(s)
            indexed = [bot.legal_at(s, i) for i in range(n)]
            legal = engine_legal_actions(s)
            assert len(indexed) == len(set(indexed)) == n
            assert set(indexed) == set(legal), s.phase_name
            checked[s.phase_name] += 1
    assert {"claim", "setup_place", "reinforce", "attack", "defend", "fortify"} <= set(checked)


def test_random_bot_attack_sampling_is_uniform() -> None:
    s = next(s for s in _states(5, Options()) if s.phase_name == "attack"
             and 4 <= len(engine_legal_actions(s)) <= 12)
    legal = engine_legal_actions(s)
    bot = UniformBot(9)
    draws = 600 * len(legal)
    tally = Counter(bot.choose(s) for _ in range(draws))
    assert set(tally) == set(legal)
    # Every action near 600 draws: a chi-square bound far beyond chance (p < 1e-6).
    chi2 = sum((tally[a] - 600) ** 2 / 600 for a in legal)
    assert chi2 < 45


def test_bots_are_deterministic_per_seed() -> None:
    for name in ("uniform", "random", "heuristic"):
        a = [(r.winner, r.actions, r.log[-5:]) for r in
             selfplay(Config(4), 2, 11, name, max_turns=60)]
        b = [(r.winner, r.actions, r.log[-5:]) for r in
             selfplay(Config(4), 2, 11, name, max_turns=60)]
        assert a == b
    c = [r.actions for r in selfplay(Config(4), 2, 12, "heuristic")]
    assert c != [x[1] for x in a]


def test_heuristic_beats_random_players() -> None:
    wins = 0
    for g in range(8):
        bots: list[Bot] = [HeuristicBot(g), UniformBot(g + 100), UniformBot(g + 200),
                           UniformBot(g + 300)]
        r = play_game(Config(4), bots, random.Random(g), max_turns=300, record=False)
        wins += r.winner == 0
    assert wins >= 7


def test_heuristic_bot_cache_agrees_with_a_fresh_look() -> None:
    # The bot carries its border pairs and target worth from one decision to the next and
    # patches them after its own conquests; a bot that has never seen the game must agree.
    from risktable.rules.bots import heuristic

    patched = 0
    after_conquest = heuristic.HeuristicBot._after_conquest

    def counting(self: HeuristicBot, s: State, taken: int, loser: int) -> None:
        nonlocal patched
        patched += 1
        after_conquest(self, s, taken, loser)

    heuristic.HeuristicBot._after_conquest = counting  # type: ignore[method-assign]
    try:
        checked = 0
        for seed, options in ((3, Options()), (4, Options(card_values="slow"))):
            rng = random.Random(seed)
            bots = [HeuristicBot(seed + p) for p in range(4)]
            s = new_game(Config(4, options))
            while not s.is_terminal and checked < 4000:
                actor = current_actor(s)
                if actor == CHANCE:
                    a = chance_outcomes(s).sample(rng)
                else:
                    a = bots[actor].choose(s)
                    if s.phase_name == "attack":
                        kept = bots[actor]._cache
                        fresh = HeuristicBot(0)._targets(s)
                        assert kept.pairs == fresh.pairs
                        assert kept.values == fresh.values
                        checked += 1
                s, _ = apply(s, a)
    finally:
        heuristic.HeuristicBot._after_conquest = after_conquest  # type: ignore[method-assign]
    assert checked > 500 and patched > 100


def test_heuristic_bot_odds_are_the_exact_whole_battle_odds() -> None:
    from risktable.rules.bots.heuristic import _odds
    from risktable.rules.odds import win_probability

    for a, d in ((2, 1), (3, 2), (10, 7), (63, 63), (64, 1), (130, 90), (200, 200)):
        assert _odds(a, d) == win_probability(a, d)
    # Bigger battles are asked at the same ratio, scaled down to 200 a side.
    assert _odds(400, 300) == win_probability(200, 150)


def test_random_bot_finishes_its_games_under_every_rule_set() -> None:
    # The playing random bot exists so that a benchmark's games end; uniform play seldom does.
    from risktable.rules.presets import PRESETS, preset_config

    for name, preset in PRESETS.items():
        for players in preset.players:
            for r in selfplay(preset_config(name, players), 2, 3, "random", max_turns=1000):
                assert not r.capped, (name, players, r.game)
                assert r.final.is_terminal and r.battles > 0


def test_random_bot_attacks_only_at_favourable_odds() -> None:
    bot = RandomBot(4)
    attacks = 0
    for s in _states(6, Options())[:600]:
        if s.phase_name == "attack":
            a = bot.choose(s)
            if isinstance(a, Attack):
                assert s.armies[a.source] > s.armies[a.target]
                assert a.dice == min(3, s.armies[a.source] - 1)
                attacks += 1
    assert attacks > 20
