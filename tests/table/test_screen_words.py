"""What the seats' screens say: whose turn it is, who did what last, the battle's result
on both sides, offline seats, chance steps named for what they are, plurals, names."""

from __future__ import annotations

import pytest

from risktable.config import ConfigError, parse_config
from risktable.rules import state as st
from risktable.table import menus
from risktable.table.session import TableSession
from tests.rules.scenario import position
from tests.table.inputs import (
    armed,
    confirm,
    dice,
    go_to,
    ok,
    refused,
    session_at,
    tap,
    turn,
)
from tests.table.test_turn_inputs import LAYOUT, declare


def lines(table: TableSession, seat: int) -> list[str]:
    return list(table.view(seat)["lines"])


def test_the_last_move_names_who_made_it_and_the_mover_reads_you() -> None:
    table = session_at(position(LAYOUT, phase=st.REINFORCE, pool=2))
    go_to(table, 1, "ukraine")
    ok(table, 1, confirm(1))
    # Before: "Seat 1 to play / Place 1 army / on Ukraine", as if seat 2 had placed it.
    assert lines(table, 2) == ["Seat 1 to play", "Seat 1: Place 1 army", "on Ukraine"]
    ok(table, 1, confirm(1))  # the last army: the attack begins
    ok(table, 1, turn(1, 1))
    ok(table, 1, confirm(1))  # no attack
    assert lines(table, 2)[:2] == ["Seat 1 to play", "Seat 1: Attack over"]


def test_players_named_at_the_hub_are_named_on_every_screen() -> None:
    table = session_at(position(LAYOUT, phase=st.REINFORCE, pool=2),
                       names={1: "Ana", 3: "Carl"})
    assert lines(table, 2)[0] == "Ana to play"
    refused(table, 2, confirm(2), "Ana is playing: wait for your turn")
    ok(table, 1, confirm(1))
    assert lines(table, 3)[1] == "Ana: Place 1 army"
    assert table.name(2) == "Seat 2" and table.name(3) == "Carl"


def test_seat_names_come_from_the_hub_configuration() -> None:
    config = parse_config('[table]\nseats = 3\n[seats]\n1 = "Ana"\n3 = "Carl"\n')
    assert config.table.names == {1: "Ana", 3: "Carl"}
    with pytest.raises(ConfigError, match=r"\[seats\] 4: is not a seat"):
        parse_config('[table]\nseats = 3\n[seats]\n4 = "Dan"\n')
    with pytest.raises(ConfigError, match="1 to 12 printable ASCII"):
        parse_config('[seats]\n1 = "Anastasia Maria"\n')


def test_both_sides_see_the_battle_result_and_a_lone_defender_is_told_where() -> None:
    table = session_at(position({**LAYOUT, "middle_east": (1, 1)}, phase=st.ATTACK))
    declare(table)
    assert table.state.phase == st.ROLL
    # One army defends: no choice, but the defender is told which territory.
    assert lines(table, 2) == ["Defend Middle East", "from Ukraine", "Roll 1 die"]
    assert lines(table, 1) == ["Attack Middle East", "from Ukraine", "Roll 3 dice"]
    ok(table, 2, dice(2, armed(table, 2)[0], 6))
    out = ok(table, 1, dice(1, armed(table, 1)[0], 6, 2, 1))
    assert out.views[1]["lines"][:3] == ["You lost 1, they lost 0", "Attack Middle East",
                                        "Roll 3 dice?"]
    assert out.views[2]["lines"] == ["Seat 1 to play", "Dice 6 2 1 v 6", "Take 1 off Ukraine"]


def test_plurals_follow_the_count() -> None:
    table = session_at(position({**LAYOUT, "ukraine": (0, 2)}, phase=st.ATTACK))
    ok(table, 1, confirm(1))
    go_to(table, 1, "middle_east")
    ok(table, 1, confirm(1))
    assert table.menu.stage == menus.ATTACK_DICE and lines(table, 1)[2] == "Roll 1 die?"
    table = session_at(position(LAYOUT, phase=st.REINFORCE, pool=2,
                                hands={0: ("brazil",)}))
    assert lines(table, 1)[3] == "1 card, Back: undo"


def test_a_card_draw_names_the_drawer_instead_of_rolling() -> None:
    table = session_at(position(LAYOUT, phase=st.FORTIFY, conquered=True))
    ok(table, 1, turn(1, -1))
    ok(table, 1, confirm(1))  # end the turn: a card is due
    assert table.state.phase == st.DRAW
    assert lines(table, 2) == ["Seat 1 draws a card", "Seat 1: Turn over"]
    ok(table, 1, tap(1, "peru"))
    assert lines(table, 3) == ["Seat 2 to play", "Seat 1: Drew a card"]


def test_offline_seats_are_shown_to_the_others() -> None:
    table = session_at(position(LAYOUT, phase=st.REINFORCE, pool=2))
    out = table.set_offline({1, 3})
    assert out.actions == () and set(out.views) == {2, 3}
    assert lines(table, 2) == ["Seat 1 to play (offline)", "Offline: Seat 3"]
    # Named too long for the line: the head still says it.
    named = session_at(position(LAYOUT, phase=st.REINFORCE, pool=2),
                       names={1: "Bartholomew"})
    named.set_offline({1})
    assert lines(named, 3) == ["Bartholomew is offline"]
    assert table.set_offline({1, 3}).views == {}
    table.set_offline(())
    assert lines(table, 2) == ["Seat 1 to play"]
