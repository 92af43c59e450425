"""Capital Risk at the table: each player secretly chooses a capital with a territory
cursor that only their own seat shows, the reveal, and whole ``capital_1993`` and
``capital_1993_short`` games played only through seat events."""

from __future__ import annotations

import random
from typing import Any

import pytest

from risktable.rules import ChooseCapital, DrawCard, legal_actions, replay
from risktable.rules import state as st
from risktable.rules.bots import Bot, HeuristicBot
from risktable.rules.events import CapitalCardPassed
from risktable.rules.goals import how_won
from risktable.rules.presets import preset_config
from risktable.table import menus
from risktable.table.autopilot import Autopilot
from risktable.table.public import board_message, led_scene
from risktable.table.session import TableSession
from tests.rules.scenario import T, position
from tests.table.inputs import (
    CARDS,
    armed,
    autopiloted_table,
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
from tests.table.test_games import play

CONFIG = preset_config("capital_1993", 4)



def _play_to_capitals(table: TableSession, pilot: Autopilot, chosen: int = 0) -> None:
    """Feed the autopilot's events until capitals are chosen and ``chosen`` of them are in."""
    while not (table.state.phase == st.CAPITAL
               and sum(1 for c in table.state.capitals if c >= 0) == chosen):
        assert table.state.phase != st.GAME_OVER
        event = pilot.next_event()
        assert event is not None, table.menu
        assert table.handle(*event).error is None


def _names(table: TableSession, seat: int) -> list[str]:
    return list(table.view(seat)["lines"])


def test_the_chooser_walks_exactly_the_legal_capitals_and_nobody_else_sees_the_cursor() -> None:
    table, pilot = autopiloted_table(CONFIG, 1)
    _play_to_capitals(table, pilot)
    s = table.state
    chooser = s.player
    assert chooser == s.first_player
    seat = table.seats[chooser]
    others = [x for x in table.seats if x != seat]
    menu = table.menu
    legal = tuple(a.territory for a in legal_actions(s) if isinstance(a, ChooseCapital))
    assert len(legal) == len(legal_actions(s)) and legal
    assert menu.stage == menus.CAPITAL_STAGE and menu.player == chooser
    assert menu.choices == legal and menu.cursor == legal[0]
    assert table.view(seat)["active"] and table.view(seat)["lines"][0] == "Choose your capital:"
    assert all(len(line) <= 24 for line in table.view(seat)["lines"])
    assert table.view(seat)["phase"] == "setup"

    # Others' views, the LED board and the public board message stay the same while the
    # cursor walks every legal capital (once round and back to the start).
    seen = {x: table.view(x) for x in others}
    board = board_message(s)
    walked = [table.menu.cursor]
    for _ in legal:
        out = ok(table, seat, turn(seat, 1))
        assert set(out.views) == {seat} and out.highlight == frozenset()
        assert table.highlight == frozenset()
        assert not any(light.blink for light in led_scene(table.state, table.highlight).values())
        assert board_message(table.state) == board
        assert {x: table.view(x) for x in others} == seen
        walked.append(table.menu.cursor)
        name = CONFIG.board.territory_names[table.menu.cursor]
        assert table.view(seat)["lines"][1] == name
    assert tuple(walked[:-1]) == legal and walked[-1] == legal[0]
    ok(table, seat, turn(seat, -1))
    assert table.menu.cursor == legal[-1]

    # Only the chooser may act; Back has nothing to take back.
    for other in others:
        refused(table, other, confirm(other), f"Seat {seat} is playing")
        refused(table, other, turn(other, 1), "wait for your turn")
    refused(table, seat, back(seat), "Nothing to take back")

    capital = table.menu.cursor
    name = CONFIG.board.territory_names[capital]
    out = ok(table, seat, confirm(seat))
    assert out.actions == (ChooseCapital(capital),)
    after = table.state
    assert after.capitals[chooser] == capital and after.phase == st.CAPITAL
    assert out.highlight == frozenset() and table.highlight == frozenset()
    # The public board message differs only by whose turn it is: it carries no capital.
    assert board_message(after) == board_message(s._replace(player=after.player))
    # The owner is reminded of the capital; nobody else's seat names it.
    assert _names(table, seat)[1:3] == ["Your capital:", name]
    for other in others:
        assert name not in _names(table, other), table.view(other)
    nxt = table.seats[after.player]
    assert _names(table, nxt)[0] == "Choose your capital:"
    assert table.menu.cursor == table.menu.choices[0]
    assert all(_names(table, x) == [f"Seat {nxt} to play", f"Seat {seat}: Capital chosen"]
               for x in others if x != nxt)


def test_the_last_choice_reveals_every_capital_on_the_led_board() -> None:
    table, pilot = autopiloted_table(CONFIG, 2)
    _play_to_capitals(table, pilot, chosen=CONFIG.players - 1)
    seat = table.seats[table.state.player]
    ok(table, seat, confirm(seat))
    s = table.state
    assert s.phase == st.REINFORCE and -1 not in s.capitals
    ids = CONFIG.board.territory_ids
    capitals = frozenset(ids[t] for t in s.capitals)
    assert table.highlight == capitals
    first = table.seats[s.player]
    for other in table.seats:
        if other != first:
            # Each owner is told to lay their capital's card before them, out of the pile.
            capital = CONFIG.board.territory_names[s.capitals[table.seats.index(other)]]
            assert _names(table, other) == [f"Seat {first} to play", "Take from the pile,",
                                            "lay face down by you:", capital]
    own = CONFIG.board.territory_names[s.capitals[s.player]]
    assert _names(table, first)[:3] == ["Lay capital card down:", own, "Place 1 army on"]
    # Once the first player acts, the board is back to the cursor, the seats to the play.
    ok(table, first, confirm(first))
    assert table.highlight == frozenset({ids[table.menu.cursor]})
    assert _names(table, first)[0] == "Place 1 army on"
    assert all("Take from the pile," not in _names(table, x) for x in table.seats)
    # Taking that army back brings the reveal back: it is the state right after it.
    ok(table, first, back(first))
    assert table.highlight == capitals
    assert _names(table, first)[:2] == ["Lay capital card down:", own]


def _capitals_at(phase: int, **fields: Any) -> TableSession:
    config = preset_config("capital_1993", 3)
    caps = (T("alaska"), T("kamchatka"), T("egypt"))
    s = position({"alaska": (0, 8), "kamchatka": (1, 1), "egypt": (2, 3)}, config=config,
                 capitals=caps, laid=caps, rest=2, phase=phase, **fields)
    return session_at(s)


def test_a_capital_card_tapped_at_a_draw_is_refused_with_its_reason() -> None:
    table = _capitals_at(st.DRAW, conquered=True)
    assert table.menu.stage == menus.CARD and table.menu.player == 0
    refused(table, 1, tap(1, "kamchatka"), "Seat 2's capital card")
    refused(table, 1, tap(1, "alaska"), "Seat 1's capital card")
    out = ok(table, 1, tap(1, "peru"))
    assert out.actions == (DrawCard(T("peru")),)


def test_a_laid_capital_card_is_not_traded_by_its_owner() -> None:
    table = _capitals_at(st.REINFORCE, pool=3, hands={0: ("peru", "brazil")})
    refused(table, 1, tap(1, "alaska"), "in no hand")


def test_the_captors_seat_says_whose_capital_card_to_take() -> None:
    table = _capitals_at(st.ATTACK)
    go_to(table, 1, "alaska")
    ok(table, 1, confirm(1))
    go_to(table, 1, "kamchatka")
    ok(table, 1, confirm(1))
    ok(table, 1, confirm(1))  # 3 dice against the one army: no defence choice
    ok(table, 1, dice(1, armed(table, 1)[0], 6, 6, 6))
    out = ok(table, 2, dice(2, armed(table, 2)[0], 1))
    assert CapitalCardPassed(1, 0, T("kamchatka")) in out.events
    assert table.state.hands[0] == (T("kamchatka"),)
    assert _names(table, 1)[:2] == ["Take Seat 2's capital", "card: Kamchatka"]
    assert not any("capital card" in line for x in (2, 3) for line in _names(table, x))
    # Told once: the next choice (how many armies move in) has the seat's lines back.
    ok(table, 1, confirm(1))
    assert "Take Seat 2's capital" not in _names(table, 1)


def test_a_bot_choosing_a_capital_shows_it_nowhere() -> None:
    bots: dict[int, Bot] = {seat: HeuristicBot(40 + seat) for seat in (2, 3, 4)}
    table, pilot = autopiloted_table(CONFIG, 4, bots=bots, dice=random.Random(4))
    names = CONFIG.board.territory_names
    ids = CONFIG.board.territory_ids
    choices = 0
    while table.state.phase != st.REINFORCE:
        before = table.state
        out = table.step_bots()
        if out is None:
            event = pilot.next_event()
            assert event is not None
            out = table.handle(*event)
            assert out.error is None
        if table.state.phase != st.CAPITAL:
            continue
        for p, t in enumerate(table.state.capitals):
            if t < 0:
                continue
            assert ids[t] not in table.highlight
            for seat in table.seats:
                if seat != table.seats[p] or table.is_bot(seat):
                    assert names[t] not in _names(table, seat), (seat, table.view(seat))
        choices += sum(1 for a in out.actions if isinstance(a, ChooseCapital))
        assert before.phase != st.CAPITAL or out.highlight == frozenset()
    assert choices == CONFIG.players - 1  # the last choice reveals them: no more secret


def test_a_session_rebuilt_mid_choice_offers_the_same_menu() -> None:
    table, pilot = autopiloted_table(CONFIG, 3)
    _play_to_capitals(table, pilot, chosen=1)
    seat = table.seats[table.state.player]
    rebuilt = TableSession(CONFIG, table.seats, CARDS, actions=table.log)
    assert rebuilt.state == table.state and rebuilt.menu == table.menu
    assert rebuilt.menu.stage == menus.CAPITAL_STAGE
    assert rebuilt.highlight == table.highlight == frozenset()
    for x in table.seats:
        assert rebuilt.view(x) == table.view(x)
    # It carries on: the same inputs choose the same capital in both.
    for session in (table, rebuilt):
        ok(session, seat, turn(seat, 2))
        ok(session, seat, confirm(seat))
    assert rebuilt.state == table.state and rebuilt.log == table.log


@pytest.mark.parametrize(("name", "players", "seed"), [
    ("capital_1993", 4, 1), ("capital_1993_short", 4, 2), ("capital_1993_short", 5, 4)])
def test_a_whole_capital_game_through_seat_events_replays(
        name: str, players: int, seed: int) -> None:
    config = preset_config(name, players)
    table, pilot = autopiloted_table(config, seed)
    play(table, pilot)
    final = table.state
    assert final.phase == st.GAME_OVER and how_won(final) == "capitals"
    assert sum(1 for a in table.log if isinstance(a, ChooseCapital)) == players
    assert replay(config, table.log) == final
    winner = table.seats[final.winner]
    assert table.view(winner)["lines"] == ["You won!"]
    assert TableSession(config, table.seats, CARDS, actions=table.log).state == final
