"""A turn driven by seat inputs: reinforce with undo, card trades, attack with dice,
occupation, fortify and the card draw."""

from __future__ import annotations

from itertools import combinations
from typing import Any

import pytest

from risktable.rules import (
    Attack,
    Defend,
    DrawCard,
    EndAttack,
    EndTurn,
    Fortify,
    Occupy,
    Options,
    Place,
    Roll,
    Trade,
)
from risktable.rules import state as st
from risktable.rules.odds import battle
from risktable.table import menus
from risktable.table.session import TableSession
from tests.rules.scenario import BOARD, T, position
from tests.table.inputs import (
    armed,
    back,
    confirm,
    dice,
    go_to,
    ok,
    refused,
    session_at,
    tap,
    turn,
)

# Seat 1 (player 0) holds Ukraine with 5 armies and everything else but the
# Middle East and Afghanistan (seat 2) and Eastern Australia (seat 3).
LAYOUT = {"ukraine": (0, 5), "middle_east": (1, 2), "afghanistan": (1, 4),
          "eastern_australia": (2, 1)}


def reinforce(pool: int = 3, **kw: Any) -> TableSession:
    return session_at(position(LAYOUT, phase=st.REINFORCE, pool=pool, **kw))


def test_one_army_per_press_and_back_takes_the_last_one_back() -> None:
    table = reinforce(pool=3)
    go_to(table, 1, "ukraine")
    before = table.state
    out = ok(table, 1, confirm(1))
    assert out.actions == (Place(T("ukraine"), 1),) and table.state.pool == 2
    assert out.views[1]["ring"] == {"mode": "count", "value": 2}
    ok(table, 1, turn(1, 1))
    ok(table, 1, confirm(1))
    out = ok(table, 1, back(1))
    assert out.retracted == 1 and not out.actions and len(table.log) == 1
    out = ok(table, 1, back(1))
    assert out.retracted == 1 and table.state == before and table.log == []
    refused(table, 1, back(1), "Nothing to take back")


def test_back_after_the_last_army_returns_to_placing() -> None:
    table = reinforce(pool=1)
    ok(table, 1, confirm(1))
    assert table.state.phase == st.ATTACK
    ok(table, 1, back(1))
    assert table.state.phase == st.REINFORCE and table.state.pool == 1
    ok(table, 1, confirm(1))
    ok(table, 1, confirm(1))  # Ukraine is the only attack source
    ok(table, 1, confirm(1))  # the first target
    ok(table, 1, confirm(1))  # 3 dice: the attack is declared
    refused(table, 1, back(1), "")
    assert table.state.phase == st.DEFEND


def _mixed() -> tuple[str, str, str]:
    """Two territory cards of one symbol and one of another: not a set."""
    sym = BOARD.card_symbols
    a, b = next((x, y) for x, y in combinations(range(BOARD.size), 2) if sym[x] == sym[y])
    c = next(z for z in range(BOARD.size) if sym[z] != sym[a])
    return BOARD.territory_ids[a], BOARD.territory_ids[b], BOARD.territory_ids[c]


def test_tapping_three_held_cards_trades_them_and_lets_the_player_pick_the_plus_two() -> None:
    table = reinforce(pool=3, hands={0: ("alaska", "ukraine", "wild1")})
    refused(table, 1, tap(1, "brazil"), "do not hold")
    refused(table, 2, tap(2, "alaska"), "No card is wanted")
    ok(table, 1, tap(1, "alaska"))
    ok(table, 1, tap(1, "alaska"))  # tapped again: taken out of the set
    assert table.pick.cards == ()
    for card in ("ukraine", "alaska"):
        assert not ok(table, 1, tap(1, card)).actions
    out = ok(table, 1, tap(1, "wild1"))
    assert not out.actions and table.menu.stage == menus.BONUS
    assert table.menu.choices == (T("alaska"), T("ukraine"))
    assert table.highlight == {"alaska", "ukraine"}
    go_to(table, 1, "ukraine")
    out = ok(table, 1, confirm(1))
    cards = (T("alaska"), T("ukraine"), BOARD.size)
    assert list(cards) == sorted(cards)
    assert out.actions == (Trade(cards, T("ukraine")),)
    assert table.state.pool == 3 + 4 and table.state.armies[T("ukraine")] == 7


def test_back_cancels_a_set_waiting_for_its_bonus_territory() -> None:
    table = reinforce(pool=3, hands={0: ("alaska", "ukraine", "wild1")})
    for card in ("alaska", "ukraine", "wild1"):
        ok(table, 1, tap(1, card))
    ok(table, 1, back(1))
    assert table.menu.stage == menus.PLACE and table.pick.cards == () and table.log == []


def test_a_set_with_one_pictured_own_territory_trades_at_once() -> None:
    table = reinforce(pool=3, hands={0: ("alaska", "middle_east", "wild1")})
    for card in ("alaska", "middle_east"):
        ok(table, 1, tap(1, card))
    out = ok(table, 1, tap(1, "wild1"))
    assert out.actions == (Trade((T("alaska"), T("middle_east"), BOARD.size), T("alaska")),)


def test_three_cards_that_are_no_set_are_refused_keeping_the_first_two() -> None:
    a, b, c = _mixed()
    table = reinforce(pool=3, hands={0: (a, b, c)})
    ok(table, 1, tap(1, a))
    ok(table, 1, tap(1, c))
    refused(table, 1, tap(1, b), "not a set")
    assert table.pick.cards == (T(a), T(c))
    ok(table, 1, back(1))  # Back takes the last tapped card out
    assert list(table.pick.cards) == [T(a)]


def test_five_cards_must_be_traded_before_placing() -> None:
    hand = ("alaska", "ukraine", "wild1", "middle_east", "afghanistan")
    table = reinforce(pool=3, hands={0: hand})
    assert table.menu.stage == menus.MUST_TRADE
    assert table.view(1)["lines"][:2] == ["You hold 5 cards", "Tap 3 cards to trade"]
    refused(table, 1, confirm(1), "Tap 3 cards")
    refused(table, 1, turn(1, 1), "tap 3 cards to trade")
    for card in ("middle_east", "afghanistan", "wild1"):
        ok(table, 1, tap(1, card))
    assert table.menu.stage == menus.PLACE and table.state.pool == 7


def test_second_set_forced_asks_for_both_sets_of_six_cards() -> None:
    hand = ("alaska", "northwest_territory", "greenland", "alberta", "ontario", "wild1")
    table = reinforce(pool=3, hands={0: hand}, trades_due=2, rest=1,
                      options=Options(second_set="forced"))
    assert table.menu.stage == menus.MUST_TRADE
    assert table.view(1)["lines"][:2] == ["Two sets: trade both", "Tap 3 cards to trade"]
    ok(table, 1, tap(1, "alaska"))
    ok(table, 1, tap(1, "alberta"))
    refused(table, 1, tap(1, "wild1"), "leaves your other set whole")
    ok(table, 1, back(1))  # alberta untapped: alaska stays
    for card in ("northwest_territory", "greenland"):
        ok(table, 1, tap(1, card))
    assert table.state.trades_due == 1 and table.menu.stage == menus.MUST_TRADE
    assert table.view(1)["lines"][:2] == ["Trade the second set", "Tap 3 cards to trade"]
    for card in ("alberta", "ontario", "wild1"):
        ok(table, 1, tap(1, card))
    assert table.menu.stage == menus.PLACE and table.state.sets_traded == 2


def attack_position(**kw: Any) -> TableSession:
    return session_at(position(LAYOUT, phase=st.ATTACK, **kw))


def test_attack_menus_offer_legal_sources_then_targets_then_dice_with_the_battle_odds() -> None:
    table = attack_position()
    assert table.menu.choices == (T("ukraine"), menus.DONE)
    ok(table, 1, confirm(1))
    assert table.menu.stage == menus.ATTACK_TO
    assert table.menu.choices == tuple(sorted((T("middle_east"), T("afghanistan"))))
    assert table.highlight == {"ukraine", "middle_east", "afghanistan"}
    go_to(table, 1, "middle_east")
    out = ok(table, 1, confirm(1))
    assert table.menu.stage == menus.ATTACK_DICE and table.menu.value == 3
    win = float(battle(5, 2).attacker_wins)
    assert out.views[1]["lines"] == ["Attack Middle East", "from Ukraine", "Roll 3 dice?",
                                     f"Battle odds {100 * win:.1f}%"]
    assert out.views[1]["ring"] == {"mode": "progress", "value": round(99 * win), "max": 99}
    assert out.highlight == {"ukraine", "middle_east"}
    ok(table, 1, turn(1, 5))
    assert table.menu.value == 3  # clamped at the top of the legal range
    ok(table, 1, turn(1, -10))
    assert table.menu.value == 1
    ok(table, 1, back(1))
    assert table.menu.stage == menus.ATTACK_TO and table.menu.cursor == T("middle_east")
    ok(table, 1, back(1))
    assert table.menu.stage == menus.ATTACK_FROM
    ok(table, 1, turn(1, 1))
    assert table.menu.cursor == menus.DONE and table.highlight == frozenset()
    out = ok(table, 1, confirm(1))
    assert out.actions == (EndAttack(),) and table.state.phase == st.FORTIFY


def declare(table: TableSession, dice_count: int = 3) -> None:
    ok(table, 1, confirm(1))
    go_to(table, 1, "middle_east")
    ok(table, 1, confirm(1))
    ok(table, 1, turn(1, dice_count - 3))
    out = ok(table, 1, confirm(1))
    assert out.actions == (Attack(T("ukraine"), T("middle_east"), dice_count),)


def test_dice_are_armed_for_both_sides_and_the_roll_is_applied_when_both_are_in() -> None:
    table = attack_position()
    declare(table)
    roll_a, count_a = armed(table, 1)
    assert count_a == 3 and table.standing_commands(2) == []
    assert table.menu.stage == menus.DEFEND_DICE and table.view(2)["active"]
    assert table.view(1)["lines"] == ["Attack Middle East", "from Ukraine", "Roll 3 dice"]
    refused(table, 1, turn(1, 1), "Seat 2 is playing")
    refused(table, 2, dice(2, roll_a, 1, 2, 3), "No dice are wanted")
    refused(table, 1, dice(1, roll_a, 6, 6), "Roll 3 dice, not 2")
    ok(table, 1, dice(1, roll_a, 6, 5, 6))  # the attacker may roll while the defender chooses
    ok(table, 2, turn(2, -1))
    out = ok(table, 2, confirm(2))
    assert out.actions == (Defend(1),)
    roll_d, count_d = armed(table, 2)
    assert count_d == 1 and roll_d != roll_a
    assert [(s, c["cmd"]) for s, c in out.commands] == [(2, "arm_dice")]
    out = ok(table, 2, dice(2, roll_d, 6))
    assert out.actions == (Roll((6, 5, 6), (6,)),)
    assert table.state.armies[T("ukraine")] == 4 and table.state.phase == st.ATTACK
    # Still legal: the same source and target stay chosen for the next roll.
    assert table.menu.stage == menus.ATTACK_DICE and table.menu.value == 3


def test_a_conquest_asks_how_many_move_in_within_the_legal_range() -> None:
    table = attack_position()
    declare(table)
    ok(table, 2, confirm(2))  # defend with 2
    ok(table, 2, dice(2, armed(table, 2)[0], 1, 1))
    out = ok(table, 1, dice(1, armed(table, 1)[0], 4, 5, 6))
    assert out.actions == (Roll((4, 5, 6), (1, 1)),) and table.state.phase == st.OCCUPY
    assert (table.menu.low, table.menu.high, table.menu.value) == (3, 4, 3)
    # The attacker reads the battle's result above the question (the defender reads the
    # dice and the armies to take off).
    assert out.views[1]["lines"][:3] == ["You lost 0, they lost 2", "Move 3 into", "Middle East"]
    assert out.views[2]["lines"][1:] == ["Dice 6 5 4 v 1 1", "Conquered Middle East"]
    ok(table, 1, turn(1, 9))
    assert table.menu.value == 4
    out = ok(table, 1, confirm(1))
    assert out.actions == (Occupy(4),)


def test_one_defending_army_needs_no_choice_and_both_sides_roll_at_once() -> None:
    table = session_at(position({**LAYOUT, "middle_east": (1, 1)}, phase=st.ATTACK))
    ok(table, 1, confirm(1))
    go_to(table, 1, "middle_east")
    ok(table, 1, confirm(1))
    out = ok(table, 1, confirm(1))
    assert table.state.phase == st.ROLL
    assert sorted((s, c["count"]) for s, c in out.commands) == [(1, 3), (2, 1)]


@pytest.mark.parametrize("to", ["scandinavia", "ural"])
def test_fortify_chooses_source_target_and_number_or_ends_the_turn(to: str) -> None:
    table = session_at(position(LAYOUT, phase=st.FORTIFY))
    assert table.menu.choices == (T("ukraine"), menus.DONE)
    ok(table, 1, confirm(1))
    go_to(table, 1, to)
    ok(table, 1, confirm(1))
    assert (table.menu.low, table.menu.high, table.menu.value) == (1, 4, 4)
    ok(table, 1, turn(1, -1))
    out = ok(table, 1, confirm(1))
    assert out.actions[0] == Fortify(T("ukraine"), T(to), 3)
    assert table.state.player == 1 and table.state.phase == st.REINFORCE


def test_end_turn_after_a_conquest_asks_for_the_card_drawn() -> None:
    table = session_at(position(LAYOUT, phase=st.FORTIFY, conquered=True,
                                hands={1: ("brazil",)}))
    ok(table, 1, turn(1, -1))
    out = ok(table, 1, confirm(1))
    assert out.actions == (EndTurn(),) and table.state.phase == st.DRAW
    assert table.view(1)["lines"] == ["Draw a card and tap it", "on your reader"]
    refused(table, 2, tap(2, "peru"), "Seat 1 taps a card now")
    refused(table, 1, tap(1, "brazil"), "not in the pile")
    refused(table, 1, confirm(1), "Tap a card on your reader first")
    out = ok(table, 1, tap(1, "peru"))
    assert out.actions == (DrawCard(T("peru")),)
    assert table.state.hands[0] == (T("peru"),) and table.state.player == 1
    assert (2, "beep") in [(s, c["cmd"]) for s, c in out.commands]


def test_an_unenrolled_card_is_refused() -> None:
    table = reinforce(pool=3)
    event = tap(1, "alaska")
    event["uid"] = "DEADBEEF"
    refused(table, 1, event, "not enrolled")


def test_other_seats_are_told_what_a_roll_takes_off_the_board() -> None:
    table = attack_position()
    declare(table)
    ok(table, 2, confirm(2))
    ok(table, 1, dice(1, armed(table, 1)[0], 2, 6, 1))
    out = ok(table, 2, dice(2, armed(table, 2)[0], 3, 5))
    assert out.actions == (Roll((2, 6, 1), (3, 5)),)
    assert out.views[3]["lines"] == ["Seat 1 to play", "Dice 6 2 1 v 5 3", "Take 1 off Ukraine",
                                     "Take 1 off Middle East"]
    declare_again = ok(table, 1, confirm(1))
    assert declare_again.actions == (Attack(T("ukraine"), T("middle_east"), 3),)
    ok(table, 1, dice(1, armed(table, 1)[0], 6, 6, 6))
    out = ok(table, 2, dice(2, armed(table, 2)[0], 1))
    assert out.views[3]["lines"][1:] == ["Dice 6 6 6 v 1", "Conquered Middle East"]


def test_after_a_restart_mid_battle_the_same_roll_is_armed_again() -> None:
    start = position(LAYOUT, phase=st.ATTACK)
    table = session_at(start)
    declare(table)
    roll_a = armed(table, 1)
    ok(table, 1, dice(1, roll_a[0], 6, 6, 6))
    ok(table, 2, confirm(2))
    assert table.standing_commands(1) == [] and armed(table, 2)[1] == 2
    rebuilt = session_at(start, actions=table.log)
    # The attacker's reading was not journalled: the same roll is armed again.
    assert armed(rebuilt, 1) == roll_a and armed(rebuilt, 2) == armed(table, 2)
    ok(rebuilt, 2, dice(2, armed(rebuilt, 2)[0], 1, 1))
    out = ok(rebuilt, 1, dice(1, roll_a[0], 5, 5, 5))
    assert out.actions == (Roll((5, 5, 5), (1, 1)),)
