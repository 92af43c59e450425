"""Random playouts of every rule set, with house rules mixed in: the engine's invariants
hold after every action, neutral seats never act, and the log replays."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from risktable.rules import (
    CHANCE,
    TERMINAL,
    Config,
    State,
    apply,
    chance_outcomes,
    current_actor,
    legal_actions,
    new_game,
    replay,
)
from risktable.rules.bots import Bot, HeuristicBot, UniformBot
from risktable.rules.decks import PLACEHOLDER_STARS, ceasefire_card
from risktable.rules.options import Options
from risktable.rules.presets import PRESETS
from risktable.rules.state import UNOWNED

HOUSE = {"defence_dice": ["2", "3"], "reinforce_min": ["3", "none"],
         "traded_cards": ["reshuffle", "removed"], "commander": ["off", "on"]}


def _deck(config: Config) -> list[int]:
    board = config.board
    if config.options.deck == "1993":
        return list(range(board.deck_size))
    extra = [ceasefire_card(board)] if config.options.ceasefire == "on" else []
    return list(range(board.size)) + extra


def check_invariants(s: State, deck: list[int]) -> None:
    config = s.config
    owners, armies = s.owners, s.armies
    for t, (o, a) in enumerate(zip(owners, armies, strict=True)):
        assert (a == 0) if o == UNOWNED else (a >= 1 and 0 <= o < config.seats), t
    assert len(s.counts) == len(s.hands) == len(s.to_place) == config.seats
    assert list(s.counts) == [owners.count(q) for q in range(config.seats)]
    cards = sorted([*s.draw_pile, *s.discard, *s.reserve, *(c for h in s.hands for c in h),
                    *(c for c in s.laid if c >= 0)])
    assert len(cards) == len(set(cards)) and set(cards) <= set(deck)
    if config.options.traded_cards == "reshuffle" and not s.ceasefire:
        assert cards == deck
    assert s.pool >= 0 and s.neutral_pool >= 0 and all(n >= 0 for n in s.to_place)
    actor = current_actor(s)
    assert actor in (CHANCE, TERMINAL) or 0 <= actor < config.players  # neutrals never act


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 2**32))
def test_every_rule_set_keeps_the_invariants_and_replays(data: st.DataObject,
                                                          seed: int) -> None:
    preset = PRESETS[data.draw(st.sampled_from(sorted(PRESETS)))]
    players = data.draw(st.sampled_from(preset.players))
    house = {k: data.draw(st.sampled_from(v)) for k, v in HOUSE.items()}
    options = Options(**{**preset.options.full_dict(), **house})  # type: ignore[arg-type]
    stars = None if options.deck == "1993" else PLACEHOLDER_STARS
    config = Config(players, options, stars=stars)
    deck = _deck(config)
    heuristic = data.draw(st.sets(st.integers(0, players - 1)))
    bots: list[Bot] = [HeuristicBot(seed + p) if p in heuristic else UniformBot(seed + p)
                       for p in range(players)]
    rng = random.Random(seed)
    s = new_game(config)
    log = []
    for _ in range(1500):
        if s.is_terminal:
            assert legal_actions(s) == []
            break
        actor = current_actor(s)
        if actor == CHANCE:
            action = chance_outcomes(s).sample(rng)
        else:
            action = bots[actor].choose(s)
            assert action in legal_actions(s)
        s, _ = apply(s, action)
        check_invariants(s, deck)
        log.append(action)
    assert replay(config, log) == s
