"""The bot levels (issue 32): easy, normal and hard exist, play every rule set, are seeded,
and hard decides from what its seat may see only; self-play rotates named bots over the
seats and counts wins per bot."""

from __future__ import annotations

import json
import random

import pytest

from risktable.rules import CHANCE, Config, apply, chance_outcomes, current_actor, new_game
from risktable.rules.actions import Action
from risktable.rules.bots import BOTS, LEVELS, Bot, EasyBot, HardBot, HeuristicBot
from risktable.rules.bots.hard import Budget
from risktable.rules.bots.rollout import play_on
from risktable.rules.bots.seat_view import seat_view
from risktable.rules.presets import PRESETS, preset_config
from risktable.rules.selfplay import play_game, seat_bots, selfplay
from risktable.rules.state import ATTACK, FORTIFY, GAME_OVER, REINFORCE, State
from tests.support.cli import run

# A small look-ahead: the same search as the default budget, fewer playouts, so that a
# test plays whole games in a second or two.
SMALL = Budget(worlds=2, places=1, bars=(0.6, 1.0), fortifies=2)


def _hard(seed: int) -> HardBot:
    return HardBot(seed, SMALL)


def test_the_levels_are_named_bots_and_heuristic_is_normal() -> None:
    assert LEVELS == ("easy", "normal", "hard")
    assert {"easy", "normal", "hard", "heuristic", "random", "uniform"} <= set(BOTS)
    assert BOTS["normal"] is BOTS["heuristic"] is HeuristicBot
    assert BOTS["easy"] is EasyBot and BOTS["hard"] is HardBot


def test_normal_is_the_heuristic_bot_unchanged() -> None:
    # The same seeded games, move for move, under either name.
    a = [r.log for r in selfplay(Config(4), 2, 31, "normal", max_turns=40)]
    b = [r.log for r in selfplay(Config(4), 2, 31, "heuristic", max_turns=40)]
    assert a == b


def test_seat_bots_rotates_the_list_one_seat_per_game() -> None:
    names = ["hard", "normal", "easy", "random"]
    assert seat_bots(names, 4, 0) == tuple(names)
    assert seat_bots(names, 4, 1) == ("random", "hard", "normal", "easy")
    assert seat_bots(names, 4, 5) == seat_bots(names, 4, 1)
    assert seat_bots("easy", 3, 7) == ("easy",) * 3
    # Over a whole rotation every bot sits in every seat once.
    for seat in range(4):
        assert sorted(seat_bots(names, 4, g)[seat] for g in range(4)) == sorted(names)
    with pytest.raises(ValueError, match="3 bots for 4 seats"):
        seat_bots(names[:3], 4, 0)


def test_selfplay_bots_plays_each_game_with_its_rotation() -> None:
    names = ["easy", "random", "random", "random"]
    for r in selfplay(Config(4), 4, 8, names, max_turns=200, record=False):
        assert r.bots == seat_bots(names, 4, r.game)


def test_selfplay_cli_counts_wins_by_bot(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules", "selfplay", "--players", "4", "--games", "8",
                       "--seed", "77", "--bots", "normal,easy,easy,easy", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["games"] == 8 and doc["bots"] == ["normal", "easy", "easy", "easy"]
    counted = {"normal": 0, "easy": 0}
    for row in doc["results"]:
        assert row["bots"] == list(seat_bots(doc["bots"], 4, row["game"]))
        if row["winner"] is not None and row["winner"] >= 0:
            counted[row["bots"][row["winner"]]] += 1
    assert doc["wins_by_bot"] == counted
    assert sum(counted.values()) == 8 - doc["capped"]
    # --bot goes on working, and its wins are counted under its name.
    code, out, _ = run(capsys, "rules", "selfplay", "--players", "3", "--games", "2",
                       "--seed", "4", "--bot", "easy", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["bot"] == "easy" and doc["wins_by_bot"] == {"easy": 2}


def test_selfplay_cli_plays_the_hard_level(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules", "selfplay", "--players", "4", "--games", "2",
                       "--seed", "3", "--bots", "hard,normal,normal,normal", "--max-turns",
                       "6", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["capped"] == 2 and doc["wins_by_bot"] == {"hard": 0, "normal": 0}
    assert [row["bots"][row["game"]] for row in doc["results"]] == ["hard", "hard"]


def test_selfplay_cli_refuses_a_bot_list_of_the_wrong_length(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "rules", "selfplay", "--players", "4", "--games", "1",
                       "--seed", "1", "--bots", "hard,normal")
    assert code == 2 and "--bots names 2 bots for 4 players" in err


@pytest.mark.parametrize("level", LEVELS)
def test_each_level_plays_short_games(level: str) -> None:
    # CI's smoke of each level: 12 short 4-player games against the normal bot, every
    # action accepted by the engine (play_game applies them), seats rotated.
    make = {"easy": EasyBot, "normal": HeuristicBot, "hard": _hard}[level]
    for g in range(12):
        rng = random.Random(g)
        bots: list[Bot] = [HeuristicBot(100 + g * 4 + p) for p in range(4)]
        bots[g % 4] = make(g)
        r = play_game(Config(4), bots, rng, game=g, max_turns=16, record=False)
        assert r.battles > 0 and (r.capped or r.final.counts[r.winner] == 42)


def test_easy_beats_random_and_normal_beats_easy_in_a_short_series() -> None:
    wins = {"easy": 0, "normal": 0}
    for names, tested in ((["easy", "random", "random", "random"], "easy"),
                          (["normal", "easy", "easy", "easy"], "normal")):
        for r in selfplay(Config(4), 16, 5, names, record=False):
            if r.winner is not None and r.winner >= 0 and r.bots[r.winner] == tested:
                wins[tested] += 1
    # A fair share is 4 of 16; the benchmark measures the rates over hundreds of games.
    assert wins["easy"] >= 6 and wins["normal"] >= 6


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_hard_plays_every_rule_set(name: str) -> None:
    players = PRESETS[name].players[0]
    config = preset_config(name, players)
    bots: list[Bot] = [_hard(1)] + [HeuristicBot(10 + p) for p in range(1, players)]
    r = play_game(config, bots, random.Random(3), max_turns=12, record=False)
    assert r.battles > 0 and (r.capped or r.final.is_terminal)


def _game(config: Config, bots: list[Bot], seed: int, turns: int) -> list[Action]:
    return play_game(config, bots, random.Random(seed), max_turns=turns).log


def test_hard_is_deterministic_given_its_seed() -> None:
    config = preset_config("mission_1993", 4)
    first = _game(config, [_hard(7), HeuristicBot(1), _hard(8), HeuristicBot(2)], 5, 14)
    again = _game(config, [_hard(7), HeuristicBot(1), _hard(8), HeuristicBot(2)], 5, 14)
    other = _game(config, [_hard(9), HeuristicBot(1), _hard(8), HeuristicBot(2)], 5, 14)
    assert first == again
    assert first != other


def _decision_states(config: Config, seed: int, turns: int) -> list[State]:
    """States of a seeded game where seat 0 acts in its own turn and others hold cards."""
    rng = random.Random(seed)
    bots = [HeuristicBot(seed + p) for p in range(config.players)]
    s = new_game(config)
    out = []
    while s.phase != GAME_OVER and s.turn <= turns:
        actor = current_actor(s)
        if actor == CHANCE:
            a = chance_outcomes(s).sample(rng)
        else:
            if (actor == 0 and s.player == 0 and s.phase in (REINFORCE, ATTACK, FORTIFY)
                    and any(len(h) >= 2 for h in s.hands[1:])):
                out.append(s)
            a = bots[actor].choose(s)
        s, _ = apply(s, a)
    return out


def _other_secrets_changed(s: State, rng: random.Random) -> State:
    # What seat 0 cannot see, changed by hand: each other hand swaps a card with the draw
    # pile, and the other players' missions go round one seat.
    hands = [list(h) for h in s.hands]
    pile = list(s.draw_pile)
    for q in range(1, len(hands)):
        if hands[q] and pile:
            i, j = rng.randrange(len(hands[q])), rng.randrange(len(pile))
            hands[q][i], pile[j] = pile[j], hands[q][i]
    changed = s._replace(hands=tuple(tuple(sorted(h)) for h in hands),
                         draw_pile=tuple(sorted(pile)))
    if s.missions:
        others = s.missions[1:]
        changed = changed._replace(missions=(s.missions[0], *others[1:], others[0]))
    return changed


@pytest.mark.parametrize("name", ["classic_1993", "mission_1993", "capital_1993"])
def test_hard_decides_the_same_whatever_the_others_hold(name: str) -> None:
    config = preset_config(name, 4)
    states = _decision_states(config, 11, 30)
    assert len(states) >= 10
    rng = random.Random(2)
    differed = 0
    for s in states[::max(1, len(states) // 12)]:
        t = _other_secrets_changed(s, rng)
        differed += t.hands != s.hands or t.missions != s.missions
        assert seat_view(t, 0) == seat_view(s, 0)
        assert _hard(4).choose(t) == _hard(4).choose(s), s.phase_name
    assert differed >= 5  # the secrets did change, and the decisions did not


def test_the_seat_view_keeps_what_the_seat_sees() -> None:
    s = _decision_states(preset_config("mission_1993", 4), 11, 30)[-1]
    v = seat_view(s, 0)
    assert v.hands[0] == s.hands[0] and v.missions[0] == s.missions[0]
    assert [len(h) for h in v.hands] == [len(h) for h in s.hands]
    assert (sorted([c for h in v.hands[1:] for c in h] + list(v.draw_pile))
            == sorted([c for h in s.hands[1:] for c in h] + list(s.draw_pile)))
    assert (v.owners, v.armies, v.discard, v.turn) == (s.owners, s.armies, s.discard, s.turn)
    # Its own hand is in sight: another own hand is another view.
    other = s._replace(hands=(s.draw_pile[:len(s.hands[0])], *s.hands[1:]))
    assert seat_view(other, 0) != v


def _plain_loop(s: State, bots: list[Bot], rng: random.Random, turns: int) -> State:
    # The engine's own game: every action through apply, rolls as sample_roll draws them.
    while s.phase != GAME_OVER and s.turn <= turns:
        actor = current_actor(s)
        a = chance_outcomes(s).sample(rng) if actor == CHANCE else bots[actor].choose(s)
        s, _ = apply(s, a)
    return s


@pytest.mark.parametrize("name", ["classic_1993", "mission_1993", "master_1993",
                                  "two_player_1993"])
def test_a_playout_is_the_engines_game(name: str) -> None:
    # play_on's short cuts (rolls looked up, missions checked on conquests only) reach the
    # same states as applying every action does, from the same random numbers.
    config = preset_config(name, PRESETS[name].players[0])
    start = _plain_loop(new_game(config), [HeuristicBot(p) for p in range(config.seats)],
                        random.Random(1), 6)
    for seed in range(3):
        bots: list[Bot] = [HeuristicBot(seed * 10 + p) for p in range(config.seats)]
        mine, _ = play_on(start, bots, random.Random(seed),
                          lambda s: s.turn > start.turn + 12, 100_000)
        bots = [HeuristicBot(seed * 10 + p) for p in range(config.seats)]
        assert mine == _plain_loop(start, bots, random.Random(seed), start.turn + 12)
