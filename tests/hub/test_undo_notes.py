"""After a referee undo, the seats are told what to do by hand, and no secret leaks."""

from __future__ import annotations

from risktable.journal import ActionMeta, Entry
from risktable.rules import Config, Roll, apply, new_game
from risktable.rules.actions import Action, DrawCard, Place
from risktable.rules.selfplay import selfplay
from risktable.rules.state import State
from risktable.service.undo_notes import PUT_BACK, ROLL_AGAIN, UNDONE, undo_notes

CONFIG = Config(3)
SEATS = (1, 2, 3)


def _states(log: list[Action], upto: int) -> tuple[State, State]:
    """The state before ``log[upto]`` and the state after it."""
    state = new_game(CONFIG)
    for action in log[:upto]:
        state, _ = apply(state, action)
    return state, apply(state, log[upto])[0]


def _entry(action: Action) -> Entry:
    return Entry(0, action, {}, 0, ActionMeta("seat"))


def test_a_withdrawn_card_draw_is_put_back_by_its_drawer_only() -> None:
    log = next(selfplay(CONFIG, 1, 4)).log
    at = next(i for i, a in enumerate(log) if isinstance(a, DrawCard))
    undone_to, drawn = _states(log, at)
    card = log[at].card  # type: ignore[union-attr]
    name = CONFIG.board.territory_names[card] if card < CONFIG.board.size else "a wild card"
    notes = undo_notes(drawn, undone_to, [_entry(log[at])], SEATS, frozenset())
    drawer = SEATS[undone_to.player]
    assert notes.lines[drawer] == [UNDONE, PUT_BACK, name]
    for seat in SEATS:
        if seat != drawer:
            assert notes.lines[seat] == [UNDONE]  # another player's card stays secret
    assert notes.moved == frozenset()  # a draw moves no army
    # With no physical cards the hub takes the card back itself: nobody puts one back.
    notes = undo_notes(drawn, undone_to, [_entry(log[at])], SEATS, frozenset(),
                       hub_cards=True)
    assert all(notes.lines[seat] == [UNDONE] for seat in SEATS)


def test_a_withdrawn_roll_is_rolled_again_and_its_territories_light() -> None:
    log = next(selfplay(CONFIG, 1, 4)).log
    at = next(i for i, a in enumerate(log) if isinstance(a, Roll) and a.defend)
    before, after = _states(log, at)
    notes = undo_notes(after, before, [_entry(log[at])], SEATS, frozenset({2}))
    losers = {before.owners[t] for t in range(CONFIG.board.size)
              if before.armies[t] != after.armies[t]}
    for seat in SEATS:
        # The roll's losses go back on the board by hand: each loser is told where.
        moves = notes.lines[seat][2 if seat == 2 else 1:]
        assert notes.lines[seat][:2 if seat == 2 else 1] == [UNDONE, ROLL_AGAIN][
            :2 if seat == 2 else 1]
        if seat - 1 in losers:
            assert moves[0].startswith("Put ") and moves[0].endswith(" back on:")
            assert moves[1] in CONFIG.board.territory_names
        else:
            assert moves == []
    changed = {CONFIG.board.territory_ids[t] for t in range(CONFIG.board.size)
               if before.armies[t] != after.armies[t]}
    assert notes.moved == changed and 1 <= len(changed) <= 2


def test_a_withdrawn_placement_names_the_territory_to_take_the_army_off() -> None:
    log = next(selfplay(CONFIG, 1, 4)).log
    at = next(i for i, a in enumerate(log) if isinstance(a, Place) and i > 100)
    undone_to, placed = _states(log, at)
    territory = log[at].territory  # type: ignore[union-attr]
    player = undone_to.owners[territory]
    notes = undo_notes(placed, undone_to, [_entry(log[at])], SEATS, frozenset())
    n = placed.armies[territory] - undone_to.armies[territory]
    assert notes.lines[SEATS[player]] == [
        UNDONE, f"Take {n} arm{'y' if n == 1 else 'ies'} off:",
        CONFIG.board.territory_names[territory]]
    assert all(notes.lines[seat] == [UNDONE] for seat in SEATS if seat != SEATS[player])
