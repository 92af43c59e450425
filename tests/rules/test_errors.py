"""Malformed and illegal actions are distinct, descriptive ValueErrors; state is untouched."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from risktable.rules import (
    Attack,
    Claim,
    Config,
    EndTurn,
    IllegalActionError,
    MalformedActionError,
    Roll,
    apply,
    new_game,
)
from tests.rules.scenario import T, position


def test_both_are_value_errors_and_distinct() -> None:
    assert issubclass(MalformedActionError, ValueError)
    assert issubclass(IllegalActionError, ValueError)
    assert not issubclass(MalformedActionError, IllegalActionError)
    assert not issubclass(IllegalActionError, MalformedActionError)


def test_unknown_action_type_is_malformed() -> None:
    @dataclass(frozen=True)
    class Teleport:
        territory: int

    with pytest.raises(MalformedActionError, match="not an action"):
        apply(new_game(Config(3)), Teleport(1))  # type: ignore[arg-type]


def test_right_action_wrong_phase_is_illegal_and_names_the_phase() -> None:
    with pytest.raises(IllegalActionError, match="Claim is not allowed in the opening phase"):
        apply(new_game(Config(3)), Claim(0))
    with pytest.raises(IllegalActionError, match="EndTurn is not allowed in the attack phase"):
        apply(position({}, rest=0), EndTurn())
    with pytest.raises(IllegalActionError, match="Roll is not allowed in the attack phase"):
        apply(position({}, rest=0), Roll((1,), (1,)))


@pytest.mark.parametrize("action", [
    Attack(-1, 0, 1), Attack(0, 42, 1), Attack("alaska", 1, 1),  # type: ignore[arg-type]
    Attack(0, 1, 0), Attack(0, 1, 4),
])
def test_malformed_attacks(action: Attack) -> None:
    s = position({"alaska": (0, 9)}, rest=1)
    with pytest.raises(MalformedActionError):
        apply(s, action)


def test_refused_action_leaves_the_state_as_it_was() -> None:
    s = position({"alaska": (0, 2), "kamchatka": (1, 1)}, rest=1)
    before = s
    with pytest.raises(IllegalActionError):
        apply(s, Attack(T("alaska"), T("kamchatka"), 2))
    assert s == before


def test_actions_equal_only_their_own_type() -> None:
    from risktable.rules import Defend, EndAttack, Occupy

    assert Defend(2) != Occupy(2) and hash(Defend(2)) != hash(Occupy(2))
    assert EndAttack() != EndTurn() and len({EndAttack(), EndTurn(), EndAttack()}) == 2
    assert Attack(0, 29, 3) == Attack(0, 29, 3) and Attack(0, 29, 3) != (0, 29, 3)
    with pytest.raises(MalformedActionError):
        apply(position({}, rest=0), (0, 29, 3))  # type: ignore[arg-type]
