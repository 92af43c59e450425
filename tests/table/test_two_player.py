"""The two-player 1993 game at the table: the neutral's dealt cards, its armies in the
setup rounds (2 own, then 1 neutral) and its defence dice rolled by the other player."""

from __future__ import annotations

import random

from risktable.rules import Attack, DealCard, Place, Roll, replay
from risktable.rules import state as st
from risktable.rules.bots import HeuristicBot
from risktable.rules.engine import apply, new_game
from risktable.rules.presets import preset_config
from risktable.table import menus
from risktable.table.autopilot import Autopilot
from risktable.table.session import TableSession
from tests.rules.scenario import T, position
from tests.table.inputs import (
    CARDS,
    UIDS,
    confirm,
    neutral_defence_by_seat_2,
    ok,
    refused,
    session_at,
)
from tests.table.test_games import play

CONFIG = preset_config("two_player_1993", 2)
NEUTRAL = CONFIG.players


def _table_and_pilot(seed: int) -> tuple[TableSession, Autopilot]:
    table = TableSession(CONFIG, [1, 2], CARDS)
    bots = {seat: HeuristicBot(seed * 10 + seat) for seat in table.seats}
    return table, Autopilot(table, bots, UIDS, random.Random(seed))


def _play_until(table: TableSession, pilot: Autopilot, phase: int, player: int = -1) -> None:
    while not (table.state.phase == phase and player in (-1, table.state.player)):
        event = pilot.next_event()
        assert event is not None, table.menu
        assert table.handle(*event).error is None


def test_the_first_player_taps_the_cards_dealt_to_the_neutral() -> None:
    table, pilot = _table_and_pilot(1)
    _play_until(table, pilot, st.DEAL, NEUTRAL)
    first = table.state.first_player
    tapper, other = table.seats[first], table.seats[1 - first]
    assert table.menu.stage == menus.CARD and table.menu.player == first
    assert table.view(tapper)["lines"] == ["Deal the neutral a card", "tap it on your reader"]
    card = table.state.draw_pile[0]
    refused(table, other, {"kind": "card", "uid": UIDS[card]}, f"Seat {tapper} taps")
    out = ok(table, tapper, {"kind": "card", "uid": UIDS[card]})
    assert out.actions == (DealCard(card),) and table.state.owners[card] == NEUTRAL


def test_setup_rounds_place_two_own_armies_then_one_neutral_army() -> None:
    table, pilot = _table_and_pilot(2)
    _play_until(table, pilot, st.SETUP_PLACE)
    p = table.state.player
    seat = table.seats[p]
    owners = table.state.owners
    assert table.menu.choices == tuple(t for t, o in enumerate(owners) if o == p)
    for _ in range(2):
        out = ok(table, seat, confirm(seat))
        assert isinstance(out.actions[0], Place) and owners[out.actions[0].territory] == p
    neutral_land = tuple(t for t, o in enumerate(owners) if o == NEUTRAL)
    assert table.state.player == p and table.menu.choices == neutral_land
    lines = table.view(seat)["lines"]
    assert lines[0] == "Place 1 neutral army on" and lines[2].endswith("neutral left")
    left = table.state.to_place[NEUTRAL]
    out = ok(table, seat, confirm(seat))
    assert out.actions[0].territory in neutral_land  # type: ignore[union-attr]
    assert table.state.to_place[NEUTRAL] == left - 1 and table.state.player == 1 - p


def test_the_player_not_attacking_chooses_and_rolls_the_neutral_defence() -> None:
    layout = {"ukraine": (0, 6), "scandinavia": (NEUTRAL, 3), "middle_east": (1, 2)}
    table = session_at(position(layout, config=CONFIG, rest=1, phase=st.ATTACK))
    out = neutral_defence_by_seat_2(table, (6, 6, 6), (1, 1))
    assert out.actions == (Roll((6, 6, 6), (1, 1)),)
    assert table.state.armies[T("scandinavia")] == 1


def test_a_whole_two_player_game_through_seat_events_replays() -> None:
    table, pilot = _table_and_pilot(3)
    play(table, pilot)
    final = table.state
    assert final.phase == st.GAME_OVER and final.winner in (0, 1)
    assert replay(CONFIG, table.log) == final
    # The neutral was attacked, so its defence was chosen at a player's seat.
    s = new_game(CONFIG)
    on_neutral = 0
    for a in table.log:
        if isinstance(a, Attack) and s.owners[a.target] == NEUTRAL:
            on_neutral += 1
        s, _ = apply(s, a)
    assert on_neutral > 0
    assert TableSession(CONFIG, table.seats, CARDS, actions=table.log).state == final
