"""Opening roll, claiming and setup placement driven by seat inputs."""

from __future__ import annotations

from typing import Any

from risktable.rules import Claim, DealCard, OpeningRoll, Place
from risktable.rules import state as st
from risktable.table import menus
from risktable.table.session import TableSession
from tests.rules.scenario import BOARD, T
from tests.table.inputs import armed, back, confirm, dice, new_session, ok, refused, tap, turn


def opened(seat_faces: tuple[int, ...] = (2, 6, 4)) -> TableSession:
    table = new_session(3)
    for seat, face in enumerate(seat_faces, start=1):
        ok(table, seat, dice(seat, armed(table, seat)[0], face))
    return table


def test_every_seat_is_armed_with_one_die_and_distinct_roll_numbers() -> None:
    table = new_session(4)
    rolls = [armed(table, seat) for seat in table.seats]
    assert [count for _, count in rolls] == [1, 1, 1, 1]
    assert len({roll for roll, _ in rolls}) == 4
    assert all(table.view(seat)["lines"][0] == "Roll 1 die" for seat in table.seats)


def test_opening_roll_is_applied_when_the_last_die_is_in() -> None:
    table = new_session(3)
    roll1, roll2, roll3 = (armed(table, s)[0] for s in (1, 2, 3))
    out = ok(table, 1, dice(1, roll1, 2))
    assert out.dice == (("d0", 2),)
    assert out.actions == () and [(s, c["cmd"], c["roll"]) for s, c in out.commands] == [
        (1, "disarm", roll1)]
    assert table.standing_commands(1) == []
    ok(table, 3, dice(3, roll3, 4))
    out = ok(table, 2, dice(2, roll2, 6))
    assert out.actions == (OpeningRoll((2, 6, 4)),)
    assert table.state.phase == st.CLAIM and table.state.player == 1
    assert table.view(2)["active"] and table.view(2)["lines"][0] == "Claim a territory:"
    assert not table.view(1)["active"]


def test_refused_dice_readings_keep_the_roll_armed() -> None:
    table = new_session(3)
    roll, _ = armed(table, 1)
    refused(table, 1, dice(1, roll + 100, 3), "for another roll")
    refused(table, 1, dice(1, roll, 3, 4), "Roll 1 die, not 2")
    refused(table, 1, dice(1, roll, 3, state="crooked"), "roll again")
    refused(table, 1, dice(1, armed(table, 2)[0], 3), "for another roll")
    assert armed(table, 1) == (roll, 1)
    # A reading while the die still rolls is acknowledged and changes nothing.
    out = ok(table, 1, dice(1, roll, 3, state="rolling"))
    assert not out.actions and not out.commands and armed(table, 1) == (roll, 1)
    ok(table, 1, dice(1, roll, 3))
    refused(table, 1, dice(1, roll, 3), "No dice are wanted")


def test_a_tie_rearms_only_the_tied_seats_with_new_roll_numbers() -> None:
    table = new_session(3)
    first = {s: armed(table, s)[0] for s in (1, 2, 3)}
    ok(table, 1, dice(1, first[1], 6))
    ok(table, 2, dice(2, first[2], 1))
    out = ok(table, 3, dice(3, first[3], 6))
    assert out.actions == (OpeningRoll((6, 1, 6)),)
    arms = {s: c["roll"] for s, c in out.commands if c["cmd"] == "arm_dice"}
    assert set(arms) == {1, 3} and not set(arms.values()) & set(first.values())
    refused(table, 1, dice(1, first[1], 5), "for another roll")
    ok(table, 3, dice(3, arms[3], 5))
    out = ok(table, 1, dice(1, arms[1], 2))
    assert out.actions == (OpeningRoll((2, 5)),) and table.state.player == 2


def test_inputs_before_the_opening_roll_are_refused() -> None:
    table = new_session(3)
    refused(table, 1, confirm(1), "Waiting for the dice")
    refused(table, 2, turn(2, 1), "Waiting for the dice")
    refused(table, 3, back(3))


def test_claim_cursor_walks_the_unclaimed_territories_in_board_order_and_wraps() -> None:
    table = opened()
    assert table.menu.stage == menus.CLAIM_STAGE and table.menu.cursor == T("alaska")
    assert table.highlight == {"alaska"}
    out = ok(table, 2, turn(2, -1))
    assert table.menu.cursor == T("eastern_australia")
    assert out.highlight == {"eastern_australia"}
    assert out.views[2]["lines"][:2] == ["Claim a territory:", "Eastern Australia"]
    ok(table, 2, turn(2, 2))
    assert table.menu.cursor == T("northwest_territory")
    out = ok(table, 2, confirm(2))
    assert out.actions == (Claim(T("northwest_territory")),)
    # The next claimer's cursor skips the claimed territory.
    assert table.state.player == 2 and table.menu.cursor == T("alaska")
    ok(table, 3, turn(3, 1))
    assert table.menu.cursor == T("greenland")


def test_a_seat_that_may_not_act_is_refused_and_nothing_changes() -> None:
    table = opened()
    refused(table, 1, turn(1, 3), "Seat 2 is playing")
    refused(table, 3, confirm(3), "Seat 2 is playing")
    refused(table, 2, back(2), "Nothing to take back")
    refused(table, 2, dice(2, 1, 6), "No dice are wanted")
    ok(table, 2, turn(2, 1))
    out = table.handle(7, confirm(1))
    assert out.error is not None and out.error.code == "unknown_seat"


def test_setup_placement_after_the_last_claim_counts_down_on_the_ring() -> None:
    table = opened()
    while table.state.phase == st.CLAIM:
        ok(table, table.seats[table.state.player], confirm(table.seats[table.state.player]))
    assert table.state.phase == st.SETUP_PLACE
    seat = table.seats[table.state.player]
    own = [t for t, o in enumerate(table.state.owners) if o == table.state.player]
    assert table.menu.choices == tuple(own)
    left = table.state.to_place[table.state.player]
    assert table.view(seat)["ring"] == {"mode": "count", "value": left}
    ok(table, seat, turn(seat, 1))
    out = ok(table, seat, confirm(seat))
    assert out.actions == (Place(own[1]),)
    assert out.views[seat]["ring"] == {"mode": "count", "value": left - 1}
    assert BOARD.size == len(table.state.owners)


def test_with_dealt_territories_each_seat_taps_its_dealt_card_in_turn() -> None:
    table = new_session(3, setup="deal")
    for seat, face in ((1, 2), (2, 6), (3, 4)):
        ok(table, seat, dice(seat, armed(table, seat)[0], face))
    assert table.state.phase == st.DEAL and table.state.player == 1
    assert table.view(2)["lines"] == ["Tap your dealt card", "on your reader"]
    refused(table, 1, tap(1, "alaska"), "Seat 2 taps a card now")
    refused(table, 2, tap(2, "wild1"), "not in the pile")
    out = ok(table, 2, tap(2, "alaska"))
    assert out.actions == (DealCard(T("alaska")),) and table.state.player == 2
    refused(table, 3, tap(3, "alaska"), "not in the pile")
    ok(table, 3, tap(3, "peru"))
    assert table.state.owners[T("alaska")] == 1 and table.state.owners[T("peru")] == 2


def test_the_encoder_push_confirms_and_the_roll_button_is_the_seats_own() -> None:
    table = opened()
    refused(table, 2, _button(2, "roll"), "Roll button")
    out = ok(table, 2, _button(2, "encoder"))
    assert out.actions == (Claim(T("alaska")),)


def _button(seat: int, name: str) -> dict[str, Any]:
    event = confirm(seat)
    event["button"] = name
    return event
