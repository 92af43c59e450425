"""The master variants at the table (``master_1993``): a held roll's choices on the
attacker's seat (re-roll a die, the commander's 6, accept), the re-rolled die read
from the attacker's dice with a roll number of its own, and whole games played only
through seat events."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

import pytest

from risktable.rules import AcceptRoll, Attack, Commander, Reroll, RerollDie, legal_actions, replay
from risktable.rules import state as st
from risktable.rules.bots import Bot, HeuristicBot
from risktable.rules.combat import commander_ready
from risktable.rules.engine import apply, new_game
from risktable.rules.presets import preset_config
from risktable.rules.state import State
from risktable.table import menus
from risktable.table.autopilot import Autopilot
from risktable.table.dice import roll_number
from risktable.table.session import TableSession
from tests.table.inputs import (
    CARDS,
    autopiloted_table,
    back,
    confirm,
    dice,
    ok,
    refused,
    turn,
)
from tests.table.test_games import play

CONFIG = preset_config("master_1993", 3)



def _play_until(table: TableSession, pilot: Autopilot, done: Callable[[State], bool]) -> None:
    while not done(table.state):
        assert table.state.phase != st.GAME_OVER
        event = pilot.next_event()
        assert event is not None, table.menu
        assert table.handle(*event).error is None


def _both_choices(s: State) -> bool:
    """A held roll that may be re-rolled and changed by the commander."""
    return s.phase == st.MODIFY and s.rerolls > 0 and commander_ready(s, s.pending[0])


def _battle_at(table: TableSession) -> int:
    return max(i for i, a in enumerate(table.log) if isinstance(a, Attack))


def _ids(table: TableSession, *territories: int) -> frozenset[str]:
    ids = table.config.board.territory_ids
    return frozenset(ids[t] for t in territories)


def test_the_attacker_walks_exactly_the_legal_choices_of_a_held_roll() -> None:
    table, pilot = autopiloted_table(CONFIG, 2)
    _play_until(table, pilot, _both_choices)
    s = table.state
    seat = table.seats[s.player]
    others = [x for x in table.seats if x != seat]
    menu = table.menu
    assert menu.stage == menus.MODIFY_STAGE and menu.player == s.player
    assert sorted(map(repr, menu.options)) == sorted(map(repr, legal_actions(s)))
    assert menu.options[0] == AcceptRoll() and menu.value == 0
    assert any(isinstance(a, Reroll) for a in menu.options)
    assert any(isinstance(a, Commander) for a in menu.options)
    att, dfn = s.pending
    held = "Dice " + " ".join(map(str, att)) + " v " + " ".join(
        map(str, sorted(dfn, reverse=True)))
    view = table.view(seat)
    assert view["active"] and view["phase"] == "attack"
    assert view["lines"] == [held, "Accept the roll", f"Choice 1 of {len(menu.options)}",
                             "Press: do it"]
    # The battle stays lit as during the roll.
    assert table.highlight == _ids(table, s.source, s.target)

    # The encoder walks every choice, once round and back to the start.
    shown = []
    for _ in menu.options:
        shown.append(table.view(seat)["lines"][1])
        out = ok(table, seat, turn(seat, 1))
        assert set(out.views) == {seat}
        assert all(len(line) <= 24 for line in table.view(seat)["lines"])
    assert table.menu.value == 0
    texts = [f"Re-roll die {a.die + 1} (a {att[a.die]})" if isinstance(a, Reroll)
             else f"Commander: die {a.die + 1} -> 6" if isinstance(a, Commander)
             else "Accept the roll" for a in menu.options]
    assert shown == texts

    # The others see who may change the roll and may not act; Back takes nothing back.
    for other in others:
        assert table.view(other)["lines"][0] == f"Seat {seat} may change roll"
        assert not table.view(other)["active"]
        refused(table, other, confirm(other), f"Seat {seat} is playing")
        refused(table, other, turn(other, 1), "wait for your turn")
        refused(table, other, dice(other, 1, 6), "No dice are wanted")
    refused(table, seat, back(seat), "The roll stands")
    assert table.state == s

    # Choosing a re-roll arms exactly one die on the attacker's seat, with a new number.
    reroll = next(a for a in menu.options if isinstance(a, Reroll))
    ok(table, seat, turn(seat, menu.options.index(reroll)))
    out = ok(table, seat, confirm(seat))
    assert out.actions == (reroll,) and table.state.phase == st.REROLL
    roll = roll_number(len(table.log), 1)  # numbered from the RerollDie's own position
    battle = _battle_at(table)
    assert roll not in (roll_number(battle, 1), roll_number(battle, 2))
    assert [(x, c["cmd"], c["roll"], c["count"]) for x, c in out.commands] == [
        (seat, "arm_dice", roll, 1)]
    assert [c for _, c in table.standing_commands(seat)] == [
        {"v": 1, "t": "cmd", "cmd": "arm_dice", "roll": roll, "count": 1}]
    assert all(table.standing_commands(x) == [] for x in others)
    assert table.view(seat)["lines"][:2] == [f"Re-roll die {reroll.die + 1} "
                                             f"(a {att[reroll.die]})", "Roll 1 die"]
    assert table.highlight == _ids(table, s.source, s.target)
    # Everyone else sees the re-roll and the card it reveals.
    card = s.source if s.source in s.hands[s.player] else s.target
    seen = table.view(others[0])["lines"]
    assert seen[1] == f"Re-roll die {reroll.die + 1} (a {att[reroll.die]})"
    shown = "Card shown: " + CONFIG.board.territory_names[card]
    assert seen[2] == shown or (len(shown) > 24 and shown.startswith(seen[2][:-1]))

    # Only the armed roll number with exactly one settled die counts.
    refused(table, seat, dice(seat, roll_number(battle, 1), 4), "for another roll")
    refused(table, seat, dice(seat, roll, 4, 4), "Roll 1 die, not 2")
    refused(table, seat, confirm(seat), "Waiting for the dice")
    assert ok(table, seat, dice(seat, roll, 4, state="rolling")).actions == ()
    out = ok(table, seat, dice(seat, roll, 4))
    assert out.actions == (RerollDie(4),)
    assert ("disarm", roll) in [(c["cmd"], c.get("roll")) for _, c in out.commands]
    faces = (*att[:reroll.die], 4, *att[reroll.die + 1:])
    # The commander is still there, so the roll is held again with the new face.
    assert table.state.phase == st.MODIFY and table.state.pending == (faces, dfn)
    assert table.menu.options[0] == AcceptRoll()
    assert not any(isinstance(a, Reroll) for a in table.menu.options)
    assert table.view(others[0])["lines"][0] == f"Seat {seat} may use commander"
    out = ok(table, seat, confirm(seat))
    assert out.actions == (AcceptRoll(),)
    assert table.state.phase in (st.ATTACK, st.OCCUPY, st.REINFORCE, st.GAME_OVER)


def test_a_session_rebuilt_mid_choice_or_mid_reroll_asks_the_same() -> None:
    table, pilot = autopiloted_table(CONFIG, 2)
    _play_until(table, pilot, _both_choices)
    seat = table.seats[table.state.player]
    rebuilt = TableSession(CONFIG, table.seats, CARDS, actions=table.log)
    assert rebuilt.state == table.state and rebuilt.menu == table.menu
    assert rebuilt.highlight == table.highlight
    for x in table.seats:
        assert rebuilt.view(x) == table.view(x)
    # The same inputs choose the same re-roll in both, and arm the same roll.
    reroll = next(a for a in table.menu.options if isinstance(a, Reroll))
    steps = table.menu.options.index(reroll)
    for session in (table, rebuilt):
        ok(session, seat, turn(seat, steps))
        ok(session, seat, confirm(seat))
    assert table.state.phase == st.REROLL and rebuilt.state == table.state

    again = TableSession(CONFIG, table.seats, CARDS, actions=table.log)
    armed = table.standing_commands(seat)
    assert armed and again.standing_commands(seat) == armed
    assert again.menu == table.menu and again.highlight == table.highlight
    for x in table.seats:
        assert again.view(x) == table.view(x)
    roll = armed[0][1]["roll"]
    for session in (table, again):
        assert ok(session, seat, dice(seat, roll, 2)).actions == (RerollDie(2),)
    assert again.state == table.state and again.log == table.log


def test_bot_seats_change_and_reroll_their_held_rolls_with_the_session_dice() -> None:
    config = preset_config("master_1993", 4)
    bots: dict[int, Bot] = {seat: HeuristicBot(50 + seat) for seat in (2, 3, 4)}
    table, pilot = autopiloted_table(config, 5, bots=bots, dice=random.Random(5))
    play(table, pilot)
    final = table.state
    assert final.phase == st.GAME_OVER and replay(config, table.log) == final
    done = Counter(type(a) for a in table.log)
    assert done[Reroll] == done[RerollDie] >= 1 and done[Commander] >= 1
    # Some of them by the session's bots: their re-rolled dice came from its rng.
    s, by = new_game(config), set()
    for a in table.log:
        if isinstance(a, Reroll | Commander):
            by.add(table.seats[s.player])
        s, _ = apply(s, a)
    assert by & set(bots) and 1 in by


@pytest.mark.parametrize(("players", "seed"), [(3, 2), (3, 4), (4, 1), (4, 2)])
def test_a_whole_master_game_through_seat_events_replays(players: int, seed: int) -> None:
    config = preset_config("master_1993", players)
    table, pilot = autopiloted_table(config, seed)
    play(table, pilot)
    final = table.state
    assert final.phase == st.GAME_OVER
    assert replay(config, table.log) == final
    done = Counter(type(a) for a in table.log)
    assert done[Reroll] == done[RerollDie] >= 1 and done[Commander] >= 1
    winner = table.seats[final.winner]
    assert table.view(winner)["lines"] == ["You won!"]
    assert TableSession(config, table.seats, CARDS, actions=table.log).state == final
