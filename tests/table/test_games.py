"""Whole games played only through seat events, and a hub restart mid-game."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from riskproto import messages
from riskproto.territories import TERRITORIES
from risktable.hardware.palette import seat_colour
from risktable.rules import Claim, Config, Options, replay
from risktable.rules import state as st
from risktable.rules.bots import HeuristicBot
from risktable.table.autopilot import Autopilot
from risktable.table.menus import Pick
from risktable.table.prompts import describe
from risktable.table.session import Outcome, TableSession
from tests.table.inputs import CARDS, UIDS


def _check_outputs(table: TableSession, out: Outcome) -> None:
    """Every view and command is a valid protocol message; the highlight names territories."""
    for seat, fields in out.views.items():
        messages.validate(messages.message("view", seat=seat, colour=list(seat_colour(seat).rgb),
                                           **fields))
    for seat, cmd in out.commands:
        assert seat in table.seats
        messages.validate(cmd)
    assert out.highlight <= set(TERRITORIES)


def play(table: TableSession, pilot: Autopilot, limit: int = 100_000,
         stop_at: int | None = None,
         after: Callable[[Outcome], None] | None = None) -> int:
    """Feed the autopilot's events until the game ends (or ``stop_at`` events); returns count.
    ``after`` is handed the outcome of every seat input."""
    events = 0
    while table.state.phase != st.GAME_OVER and events != stop_at:
        while (bot_move := table.step_bots()) is not None:
            _check_outputs(table, bot_move)
        if table.state.phase == st.GAME_OVER:
            break
        nxt = pilot.next_event()
        assert nxt is not None, table.menu
        out = table.handle(*nxt)
        assert out.error is None, (nxt, out.error)
        _check_outputs(table, out)
        if after is not None:
            after(out)
        events += 1
        assert events < limit
    return events


def autopiloted(players: int, seed: int, **options: Any) -> tuple[TableSession, Autopilot]:
    config = Config(players, Options(**options))
    table = TableSession(config, list(range(1, players + 1)), CARDS)
    bots = {seat: HeuristicBot(seed * 10 + seat) for seat in table.seats}
    return table, Autopilot(table, bots, UIDS, random.Random(seed))


@pytest.mark.parametrize(("players", "seed", "options"), [
    (3, 1, {}), (4, 1, {}), (6, 3, {}), (4, 5, {"setup": "deal", "fortify": "connected"}),
])
def test_a_whole_game_played_through_seat_events_replays_to_the_same_state(
        players: int, seed: int, options: dict[str, str]) -> None:
    table, pilot = autopiloted(players, seed, **options)
    play(table, pilot)
    final = table.state
    assert final.phase == st.GAME_OVER and final.counts[final.winner] == len(final.owners)
    assert replay(table.config, table.log) == final
    winner = table.seats[final.winner]
    assert table.view(winner)["lines"] == ["You won!"]
    assert all(table.view(s)["lines"] == [f"Seat {winner} won"]
               for s in table.seats if s != winner)


def test_a_session_rebuilt_from_the_journal_shows_the_same_and_arms_the_same_rolls() -> None:
    table, pilot = autopiloted(4, 1)
    checked = 0
    while table.state.phase != st.GAME_OVER:
        play(table, pilot, stop_at=37)
        rebuilt = TableSession(table.config, table.seats, CARDS, actions=table.log)
        assert rebuilt.state == table.state and rebuilt.log == table.log
        for seat in table.seats:
            assert rebuilt.standing_commands(seat) == table.standing_commands(seat)
            if table.pick == Pick() and not table.standing_commands(seat):
                assert rebuilt.view(seat) == table.view(seat)
        checked += 1
    assert checked > 10
    # The rebuilt session carries on the game from where it was.
    table, pilot = autopiloted(4, 2)
    play(table, pilot, stop_at=1500)
    resumed = TableSession(table.config, table.seats, CARDS, actions=table.log)
    pilot.session = resumed
    play(resumed, pilot)
    assert replay(resumed.config, resumed.log) == resumed.state
    assert resumed.state.phase == st.GAME_OVER


def test_bot_seats_are_played_by_the_session_and_shown_for_mirroring() -> None:
    config = Config(3)
    bots = {2: HeuristicBot(21), 3: HeuristicBot(31)}
    table = TableSession(config, [1, 2, 3], CARDS, bots=bots, dice=random.Random(11))
    pilot = Autopilot(table, {1: HeuristicBot(11)}, UIDS, random.Random(12))
    shown = 0
    while table.state.phase != st.GAME_OVER:
        before = table.state
        mover = table.menu.player
        out = table.step_bots()
        if out is None:
            nxt = pilot.next_event()
            assert nxt is not None and nxt[0] == 1
            assert table.handle(*nxt).error is None
            continue
        _check_outputs(table, out)
        assert len(out.actions) <= 1
        if out.actions and before.phase not in st.CHANCE_PHASES and table.menu.stage != "over":
            seat = table.seats[mover]
            assert seat in bots
            expected = ["Bot: mirror this move", *describe(before, out.actions[0])][:4]
            assert table.view(seat)["lines"] == expected
            shown += 1
    assert shown > 50
    assert replay(config, table.log) == table.state
    resync = table.handle(2, {"kind": "resync"})
    assert resync.error is None and resync.views[2] == table.view(2)


def test_inputs_from_a_bot_seat_are_refused() -> None:
    table = TableSession(Config(3), [1, 2, 3], CARDS, bots={3: HeuristicBot(1)},
                         dice=random.Random(1))
    out = table.handle(3, {"kind": "button", "button": "confirm", "press": "short"})
    assert out.error is not None and "bot" in str(out.error)
    # Only the two people's dice are armed; the bot's die comes from the dice source.
    assert table.standing_commands(3) == []
    assert table.step_bots() is not None and table.step_bots() is None


def test_a_journal_the_rules_refuse_is_reported_on_rebuilding() -> None:
    table, pilot = autopiloted(3, 1)
    play(table, pilot, stop_at=200)
    broken = [*table.log[:10], table.log[5]]
    with pytest.raises(ValueError, match="journal action 11"):
        TableSession(table.config, table.seats, CARDS, actions=broken)


class _Stubborn:
    """A broken bot: always claims Alaska."""

    def choose(self, state: object) -> Claim:
        return Claim(0)


def test_a_bot_choosing_a_refused_action_is_reported_not_applied() -> None:
    table = TableSession(Config(3), [1, 2, 3], CARDS, bots={s: _Stubborn() for s in (1, 2, 3)},
                         dice=random.Random(3))
    while table.state.phase == st.OPENING:
        assert table.step_bots() is not None
    assert table.step_bots() is not None  # the first claim of Alaska is legal
    log = table.log
    with pytest.raises(ValueError, match="chose Claim"):
        table.step_bots()
    assert table.log == log
