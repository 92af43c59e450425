"""Reinforcements: territories, continents, card sets, the pictured bonus, forced trades."""

from __future__ import annotations

import pytest

from risktable.rules import (
    Attack,
    IllegalActionError,
    MalformedActionError,
    Options,
    Place,
    Trade,
    apply,
    legal_actions,
)
from risktable.rules.cards import is_set, set_value
from risktable.rules.record import card_index
from risktable.rules.state import ATTACK, FORTIFY, REINFORCE, State
from risktable.rules.turn import must_trade, reinforcements, start_turn
from tests.rules.scenario import BOARD, T, position


def cards(*names: str) -> tuple[int, int, int]:
    a, b, c = sorted(card_index(BOARD, n) for n in names)
    return (a, b, c)


def test_set_value_schedules() -> None:
    assert [set_value(n, "standard") for n in range(10)] == [4, 6, 8, 10, 12, 15, 20, 25, 30, 35]
    assert [set_value(n, "slow") for n in range(5)] == [4, 5, 6, 7, 8]


def test_sets() -> None:
    inf, cav, art, wild = 0, 1, 2, 3
    assert is_set((inf, inf, inf)) and is_set((inf, cav, art))
    assert is_set((inf, cav, wild)) and is_set((art, art, wild)) and is_set((wild, wild, inf))
    assert not is_set((inf, inf, cav)) and not is_set((art, cav, cav))


def _owning(*names: str, player: int = 0) -> dict[str, tuple[int, int]]:
    return {n: (player, 1) for n in names}


def test_territory_armies_floor_third_at_least_3() -> None:
    few = position(_owning("peru", "brazil"), rest=1)
    assert reinforcements(few, 0) == (3, 0)
    many = position(_owning(*BOARD.territory_ids[:14]), rest=1)
    # The first 14 ids are all of North America (5), South America (2) and iceland.
    assert reinforcements(many, 0) == (4, 7)
    s = position({}, rest=1)
    assert reinforcements(s, 1) == (14, 24)


def test_continent_bonus_needs_every_territory() -> None:
    australia = ["indonesia", "new_guinea", "western_australia", "eastern_australia"]
    s = position(_owning(*australia), rest=1)
    assert reinforcements(s, 0) == (3, 2)
    s = position(_owning(*australia[:3]), rest=1)
    assert reinforcements(s, 0) == (3, 0)


def test_turn_start_grants_the_pool() -> None:
    s = position(_owning("indonesia", "new_guinea", "western_australia", "eastern_australia"),
                 rest=1, phase=ATTACK, player=1)
    s = s._replace(phase=9)  # fortify
    s, _events = apply(s, legal_actions(s)[-1])  # end turn
    assert s.player == 0 and s.phase_name == "reinforce" and s.pool == 3 + 2


def test_placing_only_on_own_territory_and_within_pool() -> None:
    s = position(_owning("peru"), rest=1, phase=REINFORCE, pool=5)
    with pytest.raises(IllegalActionError, match="does not own"):
        apply(s, Place(T("brazil"), 1))
    with pytest.raises(IllegalActionError, match="only 5"):
        apply(s, Place(T("peru"), 6))
    with pytest.raises(MalformedActionError):
        apply(s, Place(T("peru"), 0))
    s, _ = apply(s, Place(T("peru"), 2))
    assert s.pool == 3 and s.armies[T("peru")] == 3 and s.phase == REINFORCE
    s, _ = apply(s, Place(T("peru"), 3))
    assert s.pool == 0 and s.phase == ATTACK


def test_trade_adds_the_global_schedule_value_and_discards() -> None:
    hand = ("alaska", "ontario", "quebec")  # infantry, cavalry, artillery in the placeholder deck
    s = position({}, rest=1, phase=REINFORCE, pool=3, sets_traded=5, hands={0: hand})
    s, _events = apply(s, Trade(cards(*hand)))
    assert s.pool == 3 + 15 and s.sets_traded == 6 and s.hands[0] == ()
    assert set(s.discard) == set(cards(*hand))
    slow = position({}, rest=1, phase=REINFORCE, pool=3, sets_traded=5, hands={0: hand},
                    options=Options(card_values="slow"))
    slow, _ = apply(slow, Trade(cards(*hand)))
    assert slow.pool == 3 + 9


def test_not_a_set_is_malformed_and_unheld_cards_are_illegal() -> None:
    s = position({}, rest=1, phase=REINFORCE, pool=3, hands={0: ("alaska", "greenland", "peru")})
    with pytest.raises(MalformedActionError, match="set"):
        apply(s, Trade(cards("alaska", "alberta", "peru")))  # inf, inf... not all the same
    with pytest.raises(IllegalActionError, match="does not hold"):
        apply(s, Trade(cards("ontario", "quebec", "alaska")))


def test_pictured_territory_bonus_goes_on_that_territory_once_per_turn() -> None:
    hand = ("alaska", "ontario", "quebec", "northwest_territory", "greenland", "alberta")
    s = position({"alaska": (0, 1), "ontario": (0, 1), "northwest_territory": (0, 1)}, rest=1,
                 phase=REINFORCE, pool=3, hands={0: hand[:3]})
    first = cards("alaska", "ontario", "quebec")
    assert {a.bonus for a in legal_actions(s) if isinstance(a, Trade)} == {
        T("alaska"), T("ontario")}
    with pytest.raises(IllegalActionError, match=r"\+2"):
        apply(s, Trade(first))
    with pytest.raises(IllegalActionError, match=r"\+2"):
        apply(s, Trade(first, T("quebec")))
    after, _ = apply(s, Trade(first, T("ontario")))
    assert after.armies[T("ontario")] == 3 and after.pool == 3 + 4 and after.bonus_used
    # A second set the same turn earns no second +2.
    after = after._replace(hands=((*after.hands[0], *cards(*hand[3:])), *after.hands[1:]))
    second = cards("northwest_territory", "greenland", "alberta")
    with pytest.raises(IllegalActionError, match="no \\+2"):
        apply(after, Trade(second, T("northwest_territory")))
    final, _ = apply(after, Trade(second))
    assert final.armies[T("northwest_territory")] == 1 and final.pool == 3 + 4 + 6


def test_five_cards_force_a_trade_before_placing() -> None:
    hand = ("alaska", "alberta", "ontario", "quebec", "peru")
    s = position({"peru": (0, 1)}, rest=1, phase=REINFORCE, pool=3, hands={0: hand})
    with pytest.raises(IllegalActionError, match="must trade"):
        apply(s, Place(T("peru"), 1))
    legal = legal_actions(s)
    assert legal and all(isinstance(a, Trade) for a in legal)
    s, _ = apply(s, next(a for a in legal if isinstance(a, Trade)))
    assert len(s.hands[0]) == 2
    assert any(isinstance(a, Place) for a in legal_actions(s))


def test_trading_is_optional_below_five_cards() -> None:
    hand = ("alaska", "ontario", "quebec")
    s = position({"peru": (0, 1)}, rest=1, phase=REINFORCE, pool=3, hands={0: hand})
    legal = legal_actions(s)
    assert any(isinstance(a, Trade) for a in legal) and any(isinstance(a, Place) for a in legal)
    s, _ = apply(s, Place(T("peru"), 3))
    assert s.phase == ATTACK and len(s.hands[0]) == 3
    with pytest.raises(IllegalActionError, match="not allowed in the attack phase"):
        apply(s, Trade(cards(*hand)))
    assert not any(isinstance(a, Trade) for a in legal_actions(s))
    assert all(isinstance(a, Attack) or a == legal_actions(s)[-1] for a in legal_actions(s))


# Six cards that make two separate sets (one of each, then two and a wild), yet one
# trade (two infantry and the wild) leaves no set behind.
SIX = ("alaska", "northwest_territory", "greenland", "alberta", "ontario", "wild1")


def _six_cards_turn(second_set: str) -> State:
    s = position({"peru": (0, 1)}, rest=1, phase=FORTIFY, hands={0: SIX},
                 options=Options(second_set=second_set))  # type: ignore[arg-type]
    s, _ = start_turn(s, 0, [])
    return s


def test_six_cards_with_two_sets_force_one_trade_by_default() -> None:
    s = _six_cards_turn("optional")
    assert s.phase == REINFORCE and s.trades_due == 0 and must_trade(s)
    s, _ = apply(s, Trade(cards("alaska", "alberta", "wild1")))
    assert not must_trade(s)
    s, _ = apply(s, Place(T("peru"), 1))
    assert s.hands[0] == cards("northwest_territory", "greenland", "ontario")


def test_second_set_forced_makes_both_sets_of_six_cards_go() -> None:
    s = _six_cards_turn("forced")
    assert s.trades_due == 2
    with pytest.raises(IllegalActionError, match="leaves the other whole"):
        apply(s, Trade(cards("alaska", "alberta", "wild1")))
    trades = [a for a in legal_actions(s) if isinstance(a, Trade)]
    assert trades and Trade(cards("alaska", "alberta", "wild1")) not in trades
    assert not any(isinstance(a, Place) for a in legal_actions(s))
    s, _ = apply(s, Trade(cards("alaska", "northwest_territory", "greenland")))
    assert s.trades_due == 1 and len(s.hands[0]) == 3
    with pytest.raises(IllegalActionError, match="second set"):
        apply(s, Place(T("peru"), 1))
    assert all(isinstance(a, Trade) for a in legal_actions(s))
    s, _ = apply(s, Trade(cards("alberta", "ontario", "wild1")))
    assert s.trades_due == 0 and s.hands[0] == () and s.sets_traded == 2
    s, _ = apply(s, Place(T("peru"), 1))


def test_second_set_forced_asks_one_trade_of_six_cards_without_two_sets() -> None:
    hand = ("alaska", "alberta", "northwest_territory", "ontario", "greenland", "peru")
    s = position({"peru": (0, 1)}, rest=1, phase=FORTIFY, hands={0: hand},
                 options=Options(second_set="forced"))
    s, _ = start_turn(s, 0, [])
    assert s.trades_due == 0
    s, _ = apply(s, Trade(cards("alaska", "northwest_territory", "greenland")))
    s, _ = apply(s, Place(T("peru"), 1))
