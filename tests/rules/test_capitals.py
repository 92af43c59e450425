"""Capital Risk: secret capitals revealed together, captured and recaptured, the full and
the short goal, and a player without their capital stays in."""

from __future__ import annotations

import pytest

from risktable.rules import (
    Attack,
    Defend,
    IllegalActionError,
    Occupy,
    Roll,
    State,
    apply,
    new_game,
)
from risktable.rules.actions import ChooseCapital
from risktable.rules.engine import chance_outcomes
from risktable.rules.events import (
    CapitalCaptured,
    CapitalCardLaid,
    CapitalCardPassed,
    CapitalChosen,
    CapitalsRevealed,
    Event,
    GameWon,
)
from risktable.rules.goals import how_won
from risktable.rules.options import Config
from risktable.rules.presets import preset_config
from risktable.rules.render import summary
from risktable.rules.selfplay import selfplay
from risktable.rules.state import CAPITAL, DRAW
from risktable.rules.views import PUBLIC, view
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
    # Each capital's card leaves the pile and lies face down before its owner.
    assert [e for e in events if isinstance(e, CapitalCardLaid)] == [
        CapitalCardLaid(0, T("alaska")), CapitalCardLaid(1, T("peru")),
        CapitalCardLaid(2, T("egypt"))]
    assert s.laid == (T("alaska"), T("peru"), T("egypt"))
    assert not set(s.laid) & set(s.draw_pile) and len(s.draw_pile) == 44 - 3


def test_rules_version_1_left_the_capital_cards_in_the_pile() -> None:
    config = preset_config("capital_1993", 3)
    config = Config(3, config.options, rules=1)
    s = position({"alaska": (0, 2), "peru": (1, 2), "egypt": (2, 2)}, config=config,
                 phase=CAPITAL, player=0, capitals=(-1, -1, 2), turn=0)
    s, _ = apply(s, ChooseCapital(T("alaska")))
    s, events = apply(s, ChooseCapital(T("peru")))
    assert not any(isinstance(e, CapitalCardLaid) for e in events)
    assert s.laid == () and T("alaska") in s.draw_pile


@pytest.mark.parametrize("seed", [0, 12])
def test_a_capital_card_is_never_a_draw_outcome(seed: int) -> None:
    # Whole self-play games (two that conquer capitals): at every draw, no laid card.
    config = preset_config("capital_1993", 3)
    (game,) = selfplay(config, 1, seed, "heuristic", max_turns=40)
    s = new_game(config)
    draws = 0
    for a in game.log:
        if s.phase == DRAW:
            draws += 1
            assert not {c for c in s.laid if c >= 0} & set(chance_outcomes(s).cards)
        s, _ = apply(s, a)
    assert draws > 0


def test_a_captured_capital_hands_its_card_to_the_captor_once() -> None:
    config = preset_config("capital_1993", 3)
    caps = (T("alaska"), T("kamchatka"), T("egypt"))
    s = position({"alaska": (0, 8), "kamchatka": (1, 1), "yakutsk": (1, 9),
                  "egypt": (2, 3)}, config=config, capitals=caps, laid=caps, rest=2,
                 hands={0: ("peru",)})
    assert view(s, 1)["capital_card"] == "kamchatka" and view(s, 0)["capital_card"] == "alaska"
    assert "capital_card" not in view(s, PUBLIC)
    assert view(s, PUBLIC)["capital_cards_laid"] == [True, True, True]
    s, events = _conquer(s, "alaska", "kamchatka")
    assert CapitalCardPassed(1, 0, T("kamchatka")) in events
    assert s.hands[0] == (T("peru"), T("kamchatka")) and s.laid == (T("alaska"), -1, T("egypt"))
    # Private to its new holder, like any card in hand.
    assert view(s, 0)["hand"] == ["peru", "kamchatka"] and view(s, 1)["capital_card"] is None
    assert view(s, 2)["cards_held"] == [2, 0, 0] and "hand" not in view(s, PUBLIC)
    # The referee tools' summary (rules replay, games resume) says where capital cards lie.
    assert summary(s)["capital_cards"] == ["alaska", None, "egypt"] and summary(s)["rules"] == 2
    s, _ = apply(s, Occupy(3))
    s = s._replace(phase=5, player=1)
    s, events = _conquer(s, "yakutsk", "kamchatka")
    assert not any(isinstance(e, CapitalCardPassed) for e in events)  # the card moved once
    assert s.hands[0] == (T("peru"), T("kamchatka"))


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
