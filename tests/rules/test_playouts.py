"""Random playouts checking the engine's invariants after every single action."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from risktable.rules import (
    CHANCE,
    Claim,
    Config,
    DealCard,
    Options,
    Place,
    Roll,
    State,
    Trade,
    apply,
    chance_outcomes,
    current_actor,
    legal_actions,
    new_game,
    replay,
)
from risktable.rules.bots import HeuristicBot, UniformBot
from risktable.rules.state import REINFORCE, UNOWNED

options_strategy = st.builds(
    Options,
    setup=st.sampled_from(["claim", "deal"]),
    fortify=st.sampled_from(["adjacent", "connected"]),
    card_values=st.sampled_from(["standard", "slow"]),
    occupy_min=st.sampled_from(["dice", "survivors"]),
)


def check_invariants(s: State) -> None:
    owners, armies = s.owners, s.armies
    for t, (o, a) in enumerate(zip(owners, armies, strict=True)):
        if o == UNOWNED:
            assert a == 0, t
        else:
            assert a >= 1, t
    if s.phase_name not in ("opening", "claim", "deal"):
        assert UNOWNED not in owners
    assert list(s.counts) == [owners.count(p) for p in range(s.config.players)]
    cards = sorted([*s.draw_pile, *s.discard, *(c for h in s.hands for c in h)])
    assert cards == list(range(44))
    assert all(list(h) == sorted(h) for h in s.hands)
    assert s.pool >= 0 and all(n >= 0 for n in s.to_place)


def check_step(before: State, action: object, after: State) -> None:
    """Armies change only where, and by as much as, the action allows."""
    delta = sum(after.armies) - sum(before.armies)
    changed = {t for t in range(42) if after.armies[t] != before.armies[t]}
    if isinstance(action, Roll):
        assert delta == -min(len(action.attack), len(action.defend))
        assert changed <= {before.source, before.target}
    elif isinstance(action, (Claim, DealCard)):
        assert delta == 1 and len(changed) == 1
    elif isinstance(action, Place):
        assert delta == action.armies and changed == {action.territory}
        if before.phase == REINFORCE:
            assert after.pool == before.pool - action.armies
    elif isinstance(action, Trade):
        assert delta == (0 if action.bonus is None else 2)
        assert after.pool > before.pool
    else:
        # Declarations, occupation, fortify, end of phase, draws: armies only move.
        assert delta == 0
        assert len(changed) in (0, 2)
    if before.phase_name not in ("opening", "claim", "deal", "setup_place"):
        for t in range(42):
            if after.owners[t] != before.owners[t]:
                assert isinstance(action, Roll) and t == before.target


@pytest.mark.slow
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(3, 6), options=options_strategy, seed=st.integers(0, 2**32),
       heuristic_seats=st.sets(st.integers(0, 5)))
def test_playout_invariants_and_replay(players: int, options: Options, seed: int,
                                       heuristic_seats: set[int]) -> None:
    config = Config(players, options)
    bots = [HeuristicBot(seed + p) if p in heuristic_seats else UniformBot(seed + p)
            for p in range(players)]
    rng = random.Random(seed)
    s = new_game(config)
    log = []
    for _ in range(2000):
        if s.is_terminal:
            assert legal_actions(s) == []
            break
        actor = current_actor(s)
        if actor == CHANCE:
            # A chance node's outcomes are its legal actions; listing them all (7,776 for
            # a roll of three dice against two) at every roll was most of this test's time.
            node = chance_outcomes(s)
            action = node.sample(rng)
            assert node.probability(action) > 0
        else:
            legal = legal_actions(s)
            assert legal, f"no legal action in {s.phase_name}"
            action = bots[actor].choose(s)
            assert action in legal
        after, _ = apply(s, action)
        check_invariants(after)
        check_step(s, action, after)
        log.append(action)
        s = after
    assert replay(config, log) == s


def test_whole_heuristic_games_keep_the_invariants_and_reach_every_rule() -> None:
    seen: set[str] = set()
    for seed, options in ((3, Options()), (4, Options(setup="deal", fortify="connected"))):
        config = Config(4, options)
        bots = [HeuristicBot(seed * 10 + p) for p in range(4)]
        rng = random.Random(seed)
        s = new_game(config)
        while not s.is_terminal:
            actor = current_actor(s)
            action = chance_outcomes(s).sample(rng) if actor == CHANCE else bots[actor].choose(s)
            after, events = apply(s, action)
            check_invariants(after)
            check_step(s, action, after)
            seen.update(type(e).__name__ for e in events)
            s = after
    assert {"CardsTraded", "PlayerEliminated", "TerritoryConquered", "CardDrawn",
            "ArmiesMoved", "GameWon", "CardDealt"} <= seen
