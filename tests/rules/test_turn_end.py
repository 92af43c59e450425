"""Fortifying, the card earned by a conquest, reshuffling, and the next turn."""

from __future__ import annotations

import pytest

from risktable.rules import (
    CHANCE,
    Attack,
    DrawCard,
    EndAttack,
    EndTurn,
    Fortify,
    IllegalActionError,
    MalformedActionError,
    Occupy,
    Options,
    Roll,
    apply,
    chance_outcomes,
    current_actor,
    legal_actions,
)
from risktable.rules.state import DRAW, FORTIFY, REINFORCE
from tests.rules.scenario import T, position

A = T("alaska")


def test_fortify_adjacent_leaves_one_and_ends_the_turn() -> None:
    s = position({"alaska": (0, 5), "alberta": (0, 1), "ontario": (0, 1)}, rest=1, phase=FORTIFY)
    with pytest.raises(IllegalActionError, match="at most 4"):
        apply(s, Fortify(A, T("alberta"), 5))
    with pytest.raises(IllegalActionError, match="does not border"):
        apply(s, Fortify(A, T("ontario"), 1))
    with pytest.raises(IllegalActionError, match="must own both"):
        apply(s, Fortify(A, T("kamchatka"), 1))
    with pytest.raises(MalformedActionError):
        apply(s, Fortify(A, T("alberta"), 0))
    after, _ = apply(s, Fortify(A, T("alberta"), 4))
    assert after.armies[A] == 1 and after.armies[T("alberta")] == 5
    assert after.player == 1 and after.phase == REINFORCE
    # alaska borders alberta (own) but not ontario: 4 choices of how many.
    assert sum(1 for a in legal_actions(s) if isinstance(a, Fortify)) == 4


def test_fortify_connected_follows_own_paths_only() -> None:
    layout = {"alaska": (0, 5), "alberta": (0, 1), "ontario": (0, 1), "quebec": (0, 1)}
    s = position(layout, rest=1, phase=FORTIFY, options=Options(fortify="connected"))
    after, _ = apply(s, Fortify(A, T("quebec"), 2))
    assert after.armies[T("quebec")] == 3
    s = position({"alaska": (0, 5), "ontario": (0, 1)}, rest=1, phase=FORTIFY,
                 options=Options(fortify="connected"))
    with pytest.raises(IllegalActionError, match="connect through own territories"):
        apply(s, Fortify(A, T("ontario"), 1))


def _conquer_once(s: object) -> object:
    s, _ = apply(s, Attack(A, T("kamchatka"), 1))
    s, _ = apply(s, Roll((6,), (1,)))
    if s.phase_name == "occupy":
        s, _ = apply(s, Occupy(s.occupy_min))
    return s


def test_one_card_per_turn_however_many_conquests() -> None:
    s = position({"alaska": (0, 9), "kamchatka": (1, 1), "yakutsk": (1, 1)}, rest=1)
    s, _ = apply(s, Attack(A, T("kamchatka"), 1))
    s, _ = apply(s, Roll((6,), (1,)))
    s, _ = apply(s, Occupy(5))
    s, _ = apply(s, Attack(T("kamchatka"), T("yakutsk"), 1))
    s, _ = apply(s, Roll((6,), (1,)))
    s, _ = apply(s, Occupy(1))
    s, _ = apply(s, EndAttack())
    s, _ = apply(s, EndTurn())
    assert s.phase == DRAW and current_actor(s) == CHANCE
    assert len(chance_outcomes(s)) == 44
    with pytest.raises(IllegalActionError, match="not in the draw pile"):
        apply(s._replace(draw_pile=(1, 2)), DrawCard(3))
    s, _events = apply(s, DrawCard(7))
    assert s.hands[0] == (7,) and s.player == 1 and s.phase == REINFORCE
    assert len(s.draw_pile) == 43


def test_no_card_without_a_conquest() -> None:
    s = position({"alaska": (0, 3)}, rest=1)
    s, _ = apply(s, EndAttack())
    s, _ = apply(s, EndTurn())
    assert s.phase == REINFORCE and s.player == 1 and s.hands[0] == ()


def test_empty_draw_pile_reshuffles_the_traded_cards() -> None:
    s = position({"alaska": (0, 9), "kamchatka": (1, 1)}, rest=1)
    s = s._replace(draw_pile=(), discard=tuple(range(44)))
    s = _conquer_once(s)
    s, _ = apply(s, EndAttack())
    s, events = apply(s, EndTurn())
    assert s.phase == DRAW and len(s.draw_pile) == 44 and s.discard == ()
    assert any(type(e).__name__ == "DeckReshuffled" for e in events)


def test_no_card_at_all_left_means_no_draw() -> None:
    hands = {1: tuple(f"wild{i}" for i in (1, 2))}
    s = position({"alaska": (0, 9), "kamchatka": (1, 1), "peru": (1, 1)}, rest=2, hands=hands)
    s = s._replace(draw_pile=(), discard=())
    s = _conquer_once(s)
    s, _ = apply(s, EndAttack())
    s, _ = apply(s, EndTurn())
    assert s.phase == REINFORCE and s.player == 1


def test_next_turn_skips_eliminated_players() -> None:
    s = position({"alaska": (0, 3)}, rest=2)
    assert s.counts[1] == 0
    s, _ = apply(s, EndAttack())
    s, _ = apply(s, EndTurn())
    assert s.player == 2
