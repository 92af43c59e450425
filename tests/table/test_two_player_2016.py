"""The two-player 2016 game at the table: the neutrals' cards set aside by tapping, the
3 neutral armies a player adds at the start of each turn (a cursor over exactly the
legal neutral territories), neutral defence rolled by the other player, restarts in
these phases, and whole games played only through seat events."""

from __future__ import annotations

import random

import pytest

from risktable.rules import Attack, DealCard, Place, Roll, replay
from risktable.rules import state as st
from risktable.rules.bots import HeuristicBot
from risktable.rules.decks import ceasefire_card
from risktable.rules.engine import apply, legal_actions, new_game
from risktable.rules.events import CardSetAside
from risktable.rules.goals import how_won
from risktable.rules.presets import preset_config
from risktable.table import menus
from risktable.table.autopilot import Autopilot
from risktable.table.session import TableSession
from tests.rules.scenario import BOARD, T, position
from tests.table.inputs import (
    back,
    cards_of,
    confirm,
    go_to,
    neutral_defence_by_seat_2,
    ok,
    refused,
    session_at,
    turn,
    uids_of,
)
from tests.table.test_games import play

CONFIG = preset_config("two_player_2016", 2)
NEUTRALS = range(CONFIG.players, CONFIG.seats)
CARDS = cards_of("2016")
UIDS = uids_of("2016")


def _card(uid_of: int) -> dict[str, object]:
    return {"kind": "card", "uid": UIDS[uid_of]}


def _table_and_pilot(seed: int) -> tuple[TableSession, Autopilot]:
    table = TableSession(CONFIG, [1, 2], CARDS)
    bots = {seat: HeuristicBot(seed * 10 + seat) for seat in table.seats}
    return table, Autopilot(table, bots, UIDS, random.Random(seed))


def _play_until(table: TableSession, pilot: Autopilot, phase: int, logged: int = 0) -> None:
    """Feed the autopilot's events until ``phase`` with at least ``logged`` actions."""
    while not (table.state.phase == phase and len(table.log) >= logged):
        event = pilot.next_event()
        assert event is not None, table.menu
        assert table.handle(*event).error is None


def _neutral_turn(pool: int = 3, seat: int = -1) -> TableSession:
    """Player 0 (seat 1) to add ``pool`` neutral armies; neutral 1 holds Ural and Ukraine,
    neutral 2 Peru, neutral 3 Siam."""
    layout = {"ural": (2, 1), "ukraine": (2, 4), "peru": (3, 2), "siam": (4, 1),
              "alaska": (1, 3)}
    return session_at(position(layout, config=CONFIG, rest=0, phase=st.NEUTRAL,
                               neutral_pool=pool, neutral_seat=seat, pool=5))


def test_the_first_player_taps_the_cards_set_aside_for_each_neutral() -> None:
    table, pilot = _table_and_pilot(1)
    _play_until(table, pilot, st.DEAL)
    first = table.state.first_player
    tapper, other = table.seats[first], table.seats[1 - first]
    while table.state.player != NEUTRALS[2]:  # the deal names the neutral dealt to
        event = pilot.next_event()
        assert event is not None
        ok(table, *event)
    assert table.menu.player == first
    assert table.view(tapper)["lines"] == ["Deal neutral 3 a card", "tap it on your reader"]
    _play_until(table, pilot, st.ASIDE)
    assert table.menu.stage == menus.CARD and table.menu.player == first
    assert table.state.player == NEUTRALS[0]
    assert table.view(tapper)["lines"] == ["Set aside a card for", "neutral 1: tap it on",
                                           "your reader, face down"]
    card = table.state.draw_pile[5]
    refused(table, other, _card(card), f"Seat {tapper} taps a card now")
    refused(table, other, confirm(other), f"Seat {tapper} must tap a card first")
    # The seat that must tap is told so itself, not by its own name.
    refused(table, tapper, confirm(tapper), "Tap a card on your reader first")
    # The ceasefire card is out of this game: not a card to set aside.
    refused(table, tapper, _card(ceasefire_card(BOARD)), "not in the pile")
    out = ok(table, tapper, _card(card))
    assert out.actions == (DealCard(card),) and out.events == (CardSetAside(NEUTRALS[0]),)
    assert table.state.hands[NEUTRALS[0]] == (card,)
    # A card already set aside is no longer in the pile.
    refused(table, tapper, _card(card), "not in the pile")
    for neutral in NEUTRALS:
        while table.state.phase == st.ASIDE and table.state.player == neutral:
            assert table.view(tapper)["lines"][1].startswith(f"neutral {neutral - 1}:")
            ok(table, tapper, _card(table.state.draw_pile[0]))
        assert len(table.state.hands[neutral]) == 3
    # Set aside, the play starts with the first player's neutral armies.
    assert table.state.phase == st.NEUTRAL and table.menu.player == first
    assert sum(1 for a in table.log if isinstance(a, DealCard)) == BOARD.size + 9


def test_the_neutral_placement_walks_exactly_the_legal_territories() -> None:
    table = _neutral_turn()
    legal = {a.territory for a in legal_actions(table.state) if isinstance(a, Place)}
    menu = table.menu
    assert menu.stage == menus.NEUTRAL_STAGE and menu.player == 0
    assert menu.choices == tuple(sorted(legal)) == tuple(sorted(T(x) for x in (
        "ural", "ukraine", "peru", "siam")))
    assert table.view(1)["ring"] == {"mode": "count", "value": 3}
    go_to(table, 1, "peru")
    assert table.view(1)["lines"] == ["Place 1 neutral army on", "Peru", "owner: neutral 2",
                                      "3 left, all on 1 neutral"]
    assert table.highlight == {"peru"}
    refused(table, 2, confirm(2), "Seat 1 is playing: wait for your turn")
    refused(table, 1, back(1), "Nothing to take back")
    go_to(table, 1, "ukraine")
    out = ok(table, 1, confirm(1))
    assert out.actions == (Place(T("ukraine")),)
    assert out.views[2]["lines"][1:] == ["Seat 1: Place 1 army of", "neutral 1", "on Ukraine"]
    # The first army chose the neutral: the other two go to neutral 1 only.
    assert table.menu.choices == tuple(sorted((T("ural"), T("ukraine"))))
    assert table.view(1)["lines"][2:] == ["owner: neutral 1", "2 left for neutral 1"]
    go_to(table, 1, "ural")
    ok(table, 1, confirm(1))
    ok(table, 1, confirm(1))
    assert table.state.armies[T("ural")] == 3 and table.state.armies[T("ukraine")] == 5
    assert table.state.phase == st.REINFORCE and table.menu.stage == menus.PLACE
    assert table.state.pool == 5


def test_the_player_not_attacking_chooses_and_rolls_a_neutral_defence() -> None:
    layout = {"ukraine": (0, 6), "scandinavia": (3, 2), "middle_east": (1, 2)}
    table = session_at(position(layout, config=CONFIG, rest=1, phase=st.ATTACK))
    out = neutral_defence_by_seat_2(table, (6, 5, 4), (3, 2))
    assert out.actions == (Roll((6, 5, 4), (3, 2)),)
    # Neutral 2 lost its only territory; the occupation is the player's at seat 1.
    assert table.state.owners[T("scandinavia")] == 0 and table.menu.player == 0


@pytest.mark.parametrize(("phase", "more"), [
    (st.ASIDE, 0), (st.ASIDE, 4), (st.NEUTRAL, 0), (st.NEUTRAL, 1)],
    ids=["aside", "aside-4-taps-in", "neutral", "neutral-1-army-in"])
def test_a_session_rebuilt_in_the_new_phases_offers_the_same_menu(phase: int, more: int) -> None:
    table, pilot = _table_and_pilot(2)
    _play_until(table, pilot, phase)
    _play_until(table, pilot, phase, len(table.log) + more)
    if phase == st.NEUTRAL and more:
        assert table.state.neutral_seat >= 0  # an army of the 3 is placed already
    rebuilt = TableSession(CONFIG, table.seats, CARDS, actions=table.log)
    assert rebuilt.state == table.state
    seat = table.seats[table.menu.player]
    if phase == st.NEUTRAL:
        # The rebuilt cursor starts afresh on the first choice; put the old one there too.
        ok(table, seat, turn(seat, -table.menu.choices.index(table.menu.cursor)))
    assert rebuilt.menu == table.menu and rebuilt.highlight == table.highlight
    for x in table.seats:
        assert rebuilt.view(x) == table.view(x)
    # It carries on: the same input does the same in both.
    event = confirm(seat) if phase == st.NEUTRAL else _card(table.state.draw_pile[0])
    for session in (table, rebuilt):
        ok(session, seat, event)
    assert rebuilt.state == table.state and rebuilt.log == table.log


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_whole_two_player_2016_game_through_seat_events_replays(seed: int) -> None:
    table, pilot = _table_and_pilot(seed)
    play(table, pilot)
    final = table.state
    assert final.phase == st.GAME_OVER and how_won(final) in ("territories", "conquest")
    assert replay(CONFIG, table.log) == final
    # Every step of the rule set came through the seats: the set-aside cards, the neutral
    # armies of every turn and the neutral defence.
    s = new_game(CONFIG)
    seen = {"aside": 0, "neutral armies": 0, "neutral defence": 0}
    for a in table.log:
        if s.phase == st.ASIDE:
            seen["aside"] += 1
        elif s.phase == st.NEUTRAL:
            seen["neutral armies"] += 1
        elif isinstance(a, Attack) and s.owners[a.target] >= CONFIG.players:
            seen["neutral defence"] += 1
        s, _ = apply(s, a)
    assert seen["aside"] == 9 and seen["neutral armies"] >= 3 * (final.turn - 1)
    assert seen["neutral defence"] > 0
    assert table.view(table.seats[final.winner])["lines"] == ["You won!"]
    assert TableSession(CONFIG, table.seats, CARDS, actions=table.log).state == final


def test_bot_seats_set_aside_cards_and_place_neutral_armies_themselves() -> None:
    bots = {1: HeuristicBot(1), 2: HeuristicBot(2)}
    table = TableSession(CONFIG, [1, 2], CARDS, bots=bots, dice=random.Random(5))
    neutral_moves = 0
    while table.state.turn < 4:
        phase = table.state.phase
        out = table.step_bots()
        assert out is not None and out.error is None
        if phase == st.NEUTRAL:
            # A bot's Place puts all 3 armies at once; its seat says how to mirror it.
            [place] = out.actions
            assert isinstance(place, Place) and place.armies == 3
            lines = table.view(table.seats[table.state.player])["lines"]
            assert lines[:2] == ["Bot: mirror this move", "Place 3 armies of"]
            neutral_moves += 1
    assert neutral_moves == 3
    assert all(len(table.state.hands[n]) == 3 for n in NEUTRALS)
    assert replay(CONFIG, table.log) == table.state
