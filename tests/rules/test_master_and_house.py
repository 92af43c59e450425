"""Master variants (re-roll with a held territory card, commander, slow values) and house
rules (fixed set values, three defence dice, no minimum of 3, traded cards removed)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from risktable.rules import (
    Attack,
    Config,
    Defend,
    IllegalActionError,
    Options,
    Roll,
    State,
    Trade,
    apply,
    chance_outcomes,
    legal_actions,
)
from risktable.rules.actions import ACCEPT_ROLL, Commander, Reroll, RerollDie
from risktable.rules.events import DiceRolled, RollChanged, RollHeld
from risktable.rules.state import REINFORCE
from risktable.rules.turn import reinforcements, start_turn
from tests.rules.scenario import T, position

REROLL = Options(reroll="on")
COMMANDER = Options(commander="on")


def _battle(options: Options, **fields: Any) -> State:
    s = position({"alaska": (0, 10), "kamchatka": (1, 5)}, options=options, **fields)
    s, _ = apply(s, Attack(T("alaska"), T("kamchatka"), 3))
    s, _ = apply(s, Defend(2))
    return s


def test_holding_a_battle_territory_card_allows_one_reroll() -> None:
    s = _battle(REROLL, hands={0: ("kamchatka",)})
    s, events = apply(s, Roll((1, 5, 2), (4, 4)))
    assert events == [RollHeld(0, (1, 5, 2), (4, 4))] and s.phase_name == "modify"
    assert legal_actions(s) == [Reroll(0), Reroll(1), Reroll(2), ACCEPT_ROLL]
    s, _ = apply(s, Reroll(0))
    assert s.phase_name == "reroll" and len(chance_outcomes(s)) == 6
    assert chance_outcomes(s).probability(RerollDie(6)) == Fraction(1, 6)
    s, events = apply(s, RerollDie(6))
    # One re-roll per roll: the roll counts now, with the new face.
    assert events[0] == RollChanged(0, "reroll", 0, 6)
    assert events[1] == DiceRolled((6, 5, 2), (4, 4), 0, 2)
    assert s.phase_name == "attack" and s.armies[T("kamchatka")] == 3


def test_no_reroll_without_the_card_or_for_the_defender() -> None:
    s = _battle(REROLL, hands={0: ("peru",), 1: ("alaska", "kamchatka")})
    s, events = apply(s, Roll((1, 5, 2), (4, 4)))
    assert isinstance(events[0], DiceRolled) and s.phase_name == "attack"


def test_commander_turns_one_die_into_a_six_once_per_turn() -> None:
    s = _battle(COMMANDER)
    s, _ = apply(s, Roll((1, 5, 2), (5, 5)))
    assert legal_actions(s) == [Commander(0), Commander(1), Commander(2), ACCEPT_ROLL]
    s, events = apply(s, Commander(0))
    assert events[0] == RollChanged(0, "commander", 0, 6)
    assert events[1] == DiceRolled((6, 5, 2), (5, 5), 1, 1)
    assert s.commander_used
    s, _ = apply(s, Attack(T("alaska"), T("kamchatka"), 3))
    s, _ = apply(s, Defend(2))
    s, events = apply(s, Roll((1, 1, 1), (6, 6)))
    assert isinstance(events[0], DiceRolled)  # used up for this turn
    with pytest.raises(IllegalActionError):
        apply(s, Commander(0))


def test_commander_and_reroll_together_and_accepting() -> None:
    s = _battle(Options(reroll="on", commander="on"), hands={0: ("alaska",)})
    s, _ = apply(s, Roll((1, 2, 3), (6, 6)))
    s, _ = apply(s, Commander(0))
    assert s.phase_name == "modify" and legal_actions(s)[-1] == ACCEPT_ROLL
    s, events = apply(s, ACCEPT_ROLL)
    assert events == [DiceRolled((6, 2, 3), (6, 6), 2, 0)]


def test_fixed_set_values() -> None:
    # Placeholder symbols cycle infantry, cavalry, artillery in territory order.
    options = Options(card_values="fixed")
    symbols = position({}, options=options).config.board.card_symbols
    by_symbol = {k: [c for c in range(42) if symbols[c] == k][:3] for k in range(3)}
    ids = position({}, options=options).config.board.territory_ids
    expected = {0: 4, 1: 6, 2: 8}
    for symbol, value in expected.items():
        hand = tuple(ids[c] for c in by_symbol[symbol])
        s = position({}, options=options, phase=REINFORCE, hands={0: hand}, pool=3, rest=1,
                     sets_traded=7, bonus_used=True)
        s, _ = apply(s, Trade(tuple(by_symbol[symbol])))  # type: ignore[arg-type]
        assert s.pool == 3 + value
    mixed = (by_symbol[0][0], by_symbol[1][0], by_symbol[2][0])
    s = position({}, options=options, phase=REINFORCE, pool=0, rest=1, bonus_used=True,
                 hands={0: tuple(ids[c] for c in mixed)})
    s, _ = apply(s, Trade(tuple(sorted(mixed))))  # type: ignore[arg-type]
    assert s.pool == 10
    s = position({}, options=options, phase=REINFORCE, pool=0, rest=1, bonus_used=True,
                 hands={0: (ids[mixed[0]], ids[mixed[1]], "wild1")})
    s, _ = apply(s, Trade((mixed[0], mixed[1], 42)))
    assert s.pool == 12


def test_three_defence_dice_compare_three_pairs() -> None:
    options = Options(defence_dice="3")
    s = position({"alaska": (0, 10), "kamchatka": (1, 5)}, options=options)
    s, _ = apply(s, Attack(T("alaska"), T("kamchatka"), 3))
    assert legal_actions(s) == [Defend(1), Defend(2), Defend(3)]
    s, _ = apply(s, Defend(3))
    s, events = apply(s, Roll((6, 5, 4), (5, 5, 1)))
    assert events[0] == DiceRolled((6, 5, 4), (5, 5, 1), 1, 2)
    classic = position({"alaska": (0, 10), "kamchatka": (1, 5)})
    classic, _ = apply(classic, Attack(T("alaska"), T("kamchatka"), 3))
    with pytest.raises(ValueError):
        apply(classic, Defend(3))


def test_no_minimum_of_three_reinforcements() -> None:
    small = {"alaska": (0, 1), "peru": (0, 1)}
    assert reinforcements(position(small, rest=1), 0) == (3, 0)
    no_min = Options(reinforce_min="none")
    assert reinforcements(position(small, rest=1, options=no_min), 0) == (0, 0)
    # Nothing to place: the turn goes straight to attacking, unless a trade is forced.
    s, events = start_turn(position(small, rest=1, options=no_min), 0, [])
    assert s.phase_name == "attack" and s.pool == 0 and events[0].armies == 0
    five = ("greenland", "ontario", "quebec", "venezuela", "brazil")
    s, _ = start_turn(position(small, rest=1, options=no_min, hands={0: five}), 0, [])
    assert s.phase_name == "reinforce" and all(isinstance(a, Trade) for a in legal_actions(s))


@pytest.mark.parametrize(("how", "discarded"), [("reshuffle", 3), ("removed", 0)])
def test_traded_cards_reshuffle_or_leave_the_game(how: str, discarded: int) -> None:
    options = Options(traded_cards=how)  # type: ignore[arg-type]
    s = position({}, options=options, phase=REINFORCE, pool=0, rest=1, bonus_used=True,
                 hands={0: ("alaska", "northwest_territory", "wild1")})
    s, _ = apply(s, Trade((0, 1, 42)))
    assert len(s.discard) == discarded and s.pool == 4


def test_slow_values_in_a_preset_config() -> None:
    assert Config(3, Options(card_values="slow")).options.card_values == "slow"
