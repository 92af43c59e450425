"""Per-observer views: a view depends on the public position and the observer's own secrets
only. Changing anyone else's secrets (hands, the pile's make-up, missions, unrevealed
capitals, cards set aside for neutrals) must leave the view exactly as it was."""

from __future__ import annotations

import random

import pytest

from risktable.rules import State, apply, new_game
from risktable.rules.bots import Bot, HeuristicBot
from risktable.rules.decks import MISSIONS
from risktable.rules.presets import preset_config
from risktable.rules.selfplay import play_game
from risktable.rules.views import view


def _states(name: str, players: int, seed: int, every: int = 7) -> list[State]:
    config = preset_config(name, players)
    rng = random.Random(seed)
    bots: list[Bot] = [HeuristicBot(seed + p) for p in range(players)]
    log = play_game(config, bots, rng).log
    s = new_game(config)
    out = []
    for i, a in enumerate(log):
        if i % every == 0:
            out.append(s)
        s, _ = apply(s, a)
    out.append(s)
    return out


def _scramble(s: State, observer: int | None, rng: random.Random) -> State:
    """``s`` with every secret the observer may not see replaced by another possible one."""
    others = [q for q in range(s.config.seats) if q != observer]
    pool = [c for q in others for c in s.hands[q]] + list(s.draw_pile)
    rng.shuffle(pool)
    hands = list(s.hands)
    for q in others:
        k = len(hands[q])
        hands[q], pool = tuple(sorted(pool[:k])), pool[k:]
    s = s._replace(hands=tuple(hands), draw_pile=tuple(sorted(pool)))
    if s.missions:
        missions = list(s.missions)
        for q in others:
            if q < len(missions) and missions[q] >= 0 and q != s.winner:
                missions[q] = rng.randrange(len(MISSIONS))
        s = s._replace(missions=tuple(missions))
    if s.capitals and -1 in s.capitals:
        capitals = list(s.capitals)
        for q in others:
            if q < len(capitals) and capitals[q] >= 0:
                capitals[q] = rng.randrange(len(s.owners))
        s = s._replace(capitals=tuple(capitals))
    return s


CASES = [("classic_1993", 4), ("mission_1993", 5), ("capital_1993", 4),
         ("two_player_2016", 2), ("beginner_2016", 3)]


@pytest.mark.parametrize(("name", "players"), CASES)
def test_no_view_shows_another_players_secret(name: str, players: int) -> None:
    rng = random.Random(1)
    checked = 0
    for s in _states(name, players, 5):
        for observer in [None, *range(players)]:
            assert view(s, observer) == view(_scramble(s, observer, rng), observer)
            checked += 1
    assert checked > 50


def test_capitals_stay_secret_until_all_are_chosen() -> None:
    states = [s for s in _states("capital_1993", 3, 2, every=1) if s.phase_name == "capital"]
    assert states
    s = states[-1]  # the last player is choosing: the others have chosen
    chosen = [q for q, t in enumerate(s.capitals) if t >= 0]
    assert chosen
    public = view(s, None)
    assert public["capitals"] == [None] * 3 and not public["capitals_revealed"]
    mine = view(s, chosen[0])["capitals"]
    assert mine[chosen[0]] is not None and all(
        c is None for q, c in enumerate(mine) if q != chosen[0])
    after = next(x for x in _states("capital_1993", 3, 2, every=1) if x.turn == 1)
    assert all(c is not None for c in view(after, None)["capitals"])


def test_the_view_does_show_the_observers_own_secrets() -> None:
    # The other half of the leak test: an observer's own secrets change its view.
    s = next(x for x in _states("mission_1993", 4, 3) if x.hands[0] and x.turn > 2)
    rng = random.Random(0)
    assert view(s, 0)["mission"] == MISSIONS[s.missions[0]].id
    other = s._replace(missions=((s.missions[0] + 1) % 14, *s.missions[1:]))
    assert view(other, 0) != view(s, 0) and view(other, None) == view(s, None)
    assert view(_scramble(s, None, rng), 0) != view(s, 0)
    assert "mission" not in view(s, None) and "hand" not in view(s, None)


def test_neutral_set_aside_cards_are_seen_by_nobody() -> None:
    s = next(x for x in _states("two_player_2016", 2, 4, every=1) if x.turn == 1)
    assert [len(h) for h in s.hands[2:]] == [3, 3, 3]
    for observer in (None, 0, 1):
        v = view(s, observer)
        assert v["cards_held"][2:] == [3, 3, 3]
        shown = set(v.get("hand", [])) | set(v["discard"])
        ids = s.config.board.territory_ids
        assert not shown & {ids[c] for h in s.hands[2:] for c in h}

