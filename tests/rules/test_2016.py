"""The 2016 edition: star cards and trades, deal by stars, the beginner goal and ceasefire,
and the two-player game with three neutrals."""

from __future__ import annotations

import random

import pytest

from risktable.rules import (
    Attack,
    EndTurn,
    IllegalActionError,
    MalformedActionError,
    OpeningRoll,
    Place,
    Roll,
    Trade,
    apply,
    chance_outcomes,
    legal_actions,
    new_game,
)
from risktable.rules.actions import END_ATTACK, DrawCard, TradeStars
from risktable.rules.decks import PLACEHOLDER_STARS, STAR_VALUES, ceasefire_card
from risktable.rules.events import (
    CeasefireDrawn,
    GameDrawn,
    GameWon,
    PlayerEliminated,
)
from risktable.rules.goals import how_won
from risktable.rules.presets import preset_config
from risktable.rules.state import DRAW, FORTIFY, NEUTRAL, REINFORCE, State
from tests.rules.scenario import BOARD, T, position

CEASEFIRE = ceasefire_card(BOARD)


def _setup(name: str, players: int, first_roll: tuple[int, ...], seed: int = 1) -> State:
    s = new_game(preset_config(name, players))
    s, _ = apply(s, OpeningRoll(first_roll))
    rng = random.Random(seed)
    while s.turn == 0:
        s, _ = apply(s, chance_outcomes(s).sample(rng))
    return s


def test_placeholder_stars_are_30_one_star_and_12_two_star_cards() -> None:
    assert sorted(PLACEHOLDER_STARS).count(2) == 12 and len(PLACEHOLDER_STARS) == 42
    assert [STAR_VALUES[n] for n in range(2, 11)] == [2, 4, 7, 10, 13, 17, 21, 25, 30]


def test_deal_by_stars_gives_the_two_spare_cards_to_the_last_players() -> None:
    s = _setup("beginner_2016", 4, (6, 1, 2, 3))  # seat 0 first, seats 2 and 3 play last
    assert s.counts == (10, 10, 11, 11)
    for t in range(42):
        assert s.armies[t] == PLACEHOLDER_STARS[t]  # 1 army per star, nothing else placed
    assert s.phase_name == "reinforce" and s.player == 0
    assert len(s.draw_pile) == 42 and s.reserve == (CEASEFIRE,)


def test_star_trades() -> None:
    config = preset_config("classic_2016", 3)
    two = [BOARD.territory_ids[t] for t in range(42) if PLACEHOLDER_STARS[t] == 2]
    one = [BOARD.territory_ids[t] for t in range(42) if PLACEHOLDER_STARS[t] == 1]
    s = position({}, config=config, phase=REINFORCE, pool=0, rest=1,
                 hands={0: (two[0], two[1], one[0])})
    trades = legal_actions(s)
    assert TradeStars(tuple(sorted((T(one[0]), T(two[0]))))) in trades
    s, _ = apply(s, TradeStars(tuple(sorted((T(two[0]), T(two[1]), T(one[0]))))))
    assert s.pool == STAR_VALUES[5] == 10
    with pytest.raises(ValueError):
        apply(s, TradeStars((T(one[1]),)))  # one card is not a trade


def _beginner(layout: dict[str, tuple[int, int]], **fields: object) -> State:
    config = preset_config("beginner_2016", 3)
    return position(layout, config=config, **fields)  # type: ignore[arg-type]


def test_the_ceasefire_joins_the_pile_only_near_the_bottom() -> None:
    s = _beginner({"alaska": (0, 4), "kamchatka": (1, 1)}, rest=2, conquered=True,
                  phase=FORTIFY, reserve=(CEASEFIRE,))
    s, _ = apply(s, EndTurn())
    assert s.phase == DRAW and CEASEFIRE not in s.draw_pile
    low = s._replace(phase=FORTIFY, draw_pile=s.draw_pile[:5])
    low, _ = apply(low, EndTurn())
    assert CEASEFIRE in low.draw_pile and len(chance_outcomes(low)) == 6


def test_ceasefire_tie_on_territories_goes_to_armies() -> None:
    # 14 territories each; player 1 has the most armies.
    layout = {BOARD.territory_ids[t]: (t % 3, 1 + (t % 3 == 1)) for t in range(42)}
    s = _beginner(layout, phase=DRAW, draw_pile=(CEASEFIRE, 5))
    assert s.counts == (14, 14, 14)
    s, events = apply(s, DrawCard(CEASEFIRE))
    assert CeasefireDrawn(0) in events and GameWon(1) in events
    assert s.is_terminal and s.ceasefire and how_won(s) == "ceasefire"


def test_ceasefire_with_territories_and_armies_level_is_shared() -> None:
    layout = {BOARD.territory_ids[t]: (t % 3, 1 + (t < 3)) for t in range(42)}
    s = _beginner(layout, phase=DRAW, draw_pile=(CEASEFIRE,))
    s, events = apply(s, DrawCard(CEASEFIRE))
    assert GameDrawn((0, 1, 2)) in events and s.winner == -1 and s.is_terminal


def test_beginner_goal_counts_at_the_end_of_your_own_turn_only() -> None:
    ids = BOARD.territory_ids
    layout = {ids[t]: (0, 1) for t in range(24)}
    layout["alaska"] = (0, 5)
    layout["kamchatka"] = (1, 1)
    s = _beginner(layout, rest=1)
    assert s.counts[0] == 24
    s, _ = apply(s, Attack(T("alaska"), T("kamchatka"), 3))
    s, _ = apply(s, Roll((6, 6, 6), (1,)))
    assert s.counts[0] == 25 and not s.is_terminal  # 25 reached, but the turn goes on
    if s.phase_name == "occupy":
        s, _ = apply(s, legal_actions(s)[0])
    s, _ = apply(s, END_ATTACK)
    s, events = apply(s, EndTurn())
    assert GameWon(0) in events and how_won(s) == "territories"


# --- two players, three neutrals ------------------------------------------------


def test_two_player_2016_deal_set_aside_and_first_neutral_reinforcement() -> None:
    s = _setup("two_player_2016", 2, (3, 5))
    assert s.counts == (12, 12, 6, 6, 6)
    assert [len(h) for h in s.hands] == [0, 0, 3, 3, 3]
    assert len(s.draw_pile) == 42 - 9
    assert s.phase == NEUTRAL and s.player == 1 and s.neutral_pool == 3
    n2 = next(t for t, o in enumerate(s.owners) if o == 2)
    n3 = next(t for t, o in enumerate(s.owners) if o == 3)
    own = next(t for t, o in enumerate(s.owners) if o == 1)
    with pytest.raises(IllegalActionError, match="not a neutral"):
        apply(s, Place(own, 3))
    s, _ = apply(s, Place(n2, 2))
    with pytest.raises(IllegalActionError, match="neutral seat 2 only"):
        apply(s, Place(n3, 1))
    before = s.armies[n2]
    s, _ = apply(s, Place(n2, 1))
    assert s.armies[n2] == before + 1 and s.phase_name == "reinforce"


def _two_player(layout: dict[str, tuple[int, int]], **fields: object) -> State:
    config = preset_config("two_player_2016", 2)
    return position(layout, config=config, **fields)  # type: ignore[arg-type]


def test_eliminating_a_neutral_hands_over_its_set_aside_cards() -> None:
    s = _two_player({"alaska": (0, 6), "kamchatka": (3, 1), "peru": (1, 3)}, rest=2,
                    hands={2: ("brazil", "egypt", "china"), 3: ("ural", "japan", "siam")})
    s, _ = apply(s, Attack(T("alaska"), T("kamchatka"), 3))
    s, events = apply(s, Roll((6, 6, 6), (1,)))
    cards = tuple(sorted((T("ural"), T("japan"), T("siam"))))
    assert PlayerEliminated(3, 0, cards) in events
    assert s.hands[0] == cards and s.hands[3] == () and len(s.hands[2]) == 3
    assert not s.is_terminal


def test_thirty_territories_at_the_end_of_your_own_turn_wins() -> None:
    ids = BOARD.territory_ids
    layout = {ids[t]: (0, 2) for t in range(30)}
    layout.update({ids[t]: (1, 2) for t in range(30, 36)})
    s = _two_player(layout, rest=2, phase=FORTIFY)
    assert s.counts[:2] == (30, 6)
    s, events = apply(s, EndTurn())
    assert GameWon(0) in events and how_won(s) == "territories"
    # The opponent holding 30 when *your* turn ends does not win it for them.
    s = _two_player(layout, rest=2, phase=FORTIFY, player=1)
    s, events = apply(s, EndTurn())
    assert not s.is_terminal and s.player == 0


def test_each_deck_takes_its_own_kind_of_trade() -> None:
    stars = position({}, config=preset_config("classic_2016", 3), phase=REINFORCE, rest=1,
                     hands={0: ("alaska", "northwest_territory", "greenland")})
    with pytest.raises(MalformedActionError, match="by their stars"):
        apply(stars, Trade((0, 1, 2)))
    symbols = position({}, phase=REINFORCE, rest=1,
                       hands={0: ("alaska", "northwest_territory", "greenland")})
    with pytest.raises(MalformedActionError, match="1993 symbol sets"):
        apply(symbols, TradeStars((0, 1)))
