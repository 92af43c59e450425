"""Capital Risk: secret capitals revealed together, captured and recaptured, the full and
the short goal, and a player without their capital stays in."""

from __future__ import annotations

import pytest

from risktable.rules import Attack, Defend, IllegalActionError, Occupy, Roll, State, apply
from risktable.rules.actions import ChooseCapital
from risktable.rules.events import (
    CapitalCaptured,
    CapitalChosen,
    CapitalsRevealed,
    Event,
    GameWon,
)
from risktable.rules.goals import how_won
from risktable.rules.presets import preset_config
from risktable.rules.state import CAPITAL
from tests.rules.scenario import T, position


def _conquer(s: State, src: str, dst: str) -> tuple[State, list[Event]]:
    """Attack with three dice, winning every roll, until ``dst`` falls."""
    owner = s.owners[T(dst)]
    while True:
        s, _ = apply(s, Attack(T(src), T(dst), 3))
        dice = min(2, s.armies[T(dst)])
        if dice == 2:
            s, _ = apply(s, Defend(2))
        s, events = apply(s, Roll((6, 6, 6), (1,) * dice))
        if s.owners[T(dst)] != owner:
            return s, events


def test_capitals_are_chosen_in_turn_and_revealed_together() -> None:
    config = preset_config("capital_1993", 3)
    s = position({"alaska": (0, 2), "peru": (1, 2), "egypt": (2, 2)}, config=config,
                 phase=CAPITAL, player=0, capitals=(-1, -1, -1), turn=0)
    with pytest.raises(IllegalActionError, match="capital must be one of"):
        apply(s, ChooseCapital(T("peru")))
    s, events = apply(s, ChooseCapital(T("alaska")))
    assert events == [CapitalChosen(0)] and s.player == 1
    s, _ = apply(s, ChooseCapital(T("peru")))
    s, events = apply(s, ChooseCapital(T("egypt")))
    assert CapitalsRevealed((T("alaska"), T("peru"), T("egypt"))) in events
    assert s.phase_name == "reinforce" and s.turn == 1


def test_a_capital_captured_and_recaptured_and_its_owner_stays_in() -> None:
    config = preset_config("capital_1993", 3)
    caps = (T("alaska"), T("kamchatka"), T("egypt"))
    s = position({"alaska": (0, 8), "kamchatka": (1, 1), "yakutsk": (1, 9),
                  "egypt": (2, 3)}, config=config, capitals=caps, rest=2)
    s, events = _conquer(s, "alaska", "kamchatka")
    assert CapitalCaptured(0, 1, T("kamchatka")) in events
    assert not s.is_terminal and s.counts[1] == 1  # lost the capital, still in
    s, _ = apply(s, Occupy(3))
    s = s._replace(phase=5, player=1)
    s, events = _conquer(s, "yakutsk", "kamchatka")
    assert CapitalCaptured(1, 1, T("kamchatka")) in events  # back home, card and all
    assert s.owners[T("kamchatka")] == 1 and not s.is_terminal


def test_all_enemy_capitals_while_holding_your_own_wins() -> None:
    config = preset_config("capital_1993", 3)
    caps = (T("alaska"), T("kamchatka"), T("egypt"))
    layout = {"alaska": (0, 8), "kamchatka": (1, 1), "egypt": (0, 1), "siberia": (1, 5)}
    s = position(layout, config=config, capitals=caps, rest=2)
    s, events = _conquer(s, "alaska", "kamchatka")
    assert GameWon(0) in events and s.winner == 0 and how_won(s) == "capitals"
    assert s.counts[1] > 0 and s.counts[2] > 0  # nobody had to be eliminated


def test_without_your_own_capital_the_others_do_not_win() -> None:
    config = preset_config("capital_1993", 3)
    caps = (T("alaska"), T("kamchatka"), T("egypt"))
    layout = {"alaska": (2, 3), "kamchatka": (1, 1), "egypt": (0, 1), "yakutsk": (0, 8)}
    s = position(layout, config=config, capitals=caps, rest=2)
    s, events = _conquer(s, "yakutsk", "kamchatka")
    assert CapitalCaptured(0, 1, T("kamchatka")) in events and not s.is_terminal


@pytest.mark.parametrize(("preset", "wins"), [("capital_1993_short", True),
                                              ("capital_1993", False)])
def test_short_goal_two_of_four_enemy_capitals(preset: str, wins: bool) -> None:
    config = preset_config(preset, 4)
    caps = (T("alaska"), T("kamchatka"), T("egypt"), T("peru"))
    layout = {"alaska": (0, 8), "kamchatka": (1, 1), "egypt": (0, 1), "peru": (3, 4),
              "siberia": (1, 3)}
    s = position(layout, players=4, config=config, capitals=caps, rest=2)
    s, _ = _conquer(s, "alaska", "kamchatka")
    assert s.is_terminal == wins
