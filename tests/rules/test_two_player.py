"""Two-player games: the 1993 neutral (deal, placing rounds, defence by the other player,
win by eliminating the opponent) and the old 50-army game without a neutral."""

from __future__ import annotations

import random

import pytest

from risktable.rules import (
    CHANCE,
    Attack,
    Config,
    DealCard,
    Defend,
    IllegalActionError,
    OpeningRoll,
    Place,
    Roll,
    apply,
    chance_outcomes,
    current_actor,
    legal_actions,
    new_game,
)
from risktable.rules.actions import END_ATTACK, END_TURN
from risktable.rules.events import GameWon, PlayerEliminated
from risktable.rules.presets import preset_config
from tests.rules.scenario import T, position

NEUTRAL = 2


def _dealt() -> tuple[Config, object]:
    config = preset_config("two_player_1993", 2)
    s = new_game(config)
    s, _ = apply(s, OpeningRoll((2, 5)))
    rng = random.Random(3)
    while s.phase_name == "deal":
        s, _ = apply(s, chance_outcomes(s).sample(rng))
    return config, s


def test_neutral_1993_deals_three_piles_of_14_without_wilds() -> None:
    config = preset_config("two_player_1993", 2)
    assert config.seats == 3 and config.starting_armies == 40
    s = new_game(config)
    assert s.contenders == (0, 1)  # the neutral does not roll
    s, _ = apply(s, OpeningRoll((2, 5)))
    assert s.phase_name == "deal" and len(chance_outcomes(s)) == 42  # wilds out of the deal
    with pytest.raises(IllegalActionError):
        apply(s, DealCard(42))
    _, s = _dealt()
    assert s.counts == (14, 14, 14)
    assert s.to_place == (26, 26, 26)
    assert len(s.draw_pile) == 44  # the wilds go back into the deck after the deal


def test_players_alternate_two_own_armies_then_one_neutral() -> None:
    _, s = _dealt()
    assert s.phase_name == "setup_place" and s.player == 1  # the opening roll's winner
    order = []
    while s.phase_name == "setup_place":
        seat = legal_actions(s)[0]
        owner = s.owners[seat.territory]  # type: ignore[union-attr]
        order.append((s.player, owner))
        if owner == NEUTRAL and len(order) < 4:
            own = next(t for t, o in enumerate(s.owners) if o == s.player)
            with pytest.raises(IllegalActionError, match="neutral"):
                apply(s, Place(own))
        s, _ = apply(s, seat)
    assert order[:6] == [(1, 1), (1, 1), (1, NEUTRAL), (0, 0), (0, 0), (0, NEUTRAL)]
    assert len(order) == 3 * 26
    assert sum(s.armies[t] for t in range(42) if s.owners[t] == NEUTRAL) == 40
    assert s.phase_name == "reinforce" and s.player == 1
    assert s.turn == 1


def test_neutral_never_takes_a_turn_and_gets_no_reinforcements() -> None:
    config = preset_config("two_player_1993", 2)
    s = position({"alaska": (0, 5), "peru": (1, 1)}, config=config, rest=NEUTRAL)
    assert s.counts == (1, 1, 40)
    armies = sum(s.armies)
    for expected in (1, 0, 1):
        s, _ = apply(s, END_ATTACK)
        s, _ = apply(s, END_TURN)
        assert s.player == expected and s.phase_name == "reinforce"
        assert s.pool == 3
        s, _ = apply(s, Place(T("peru") if expected else T("alaska"), 3))
        armies += 3
    assert sum(s.armies) == armies
    assert sum(a for t, a in enumerate(s.armies) if s.owners[t] == NEUTRAL) == 40


def test_the_other_player_rolls_defence_for_the_neutral() -> None:
    config = preset_config("two_player_1993", 2)
    s = position({"alaska": (0, 6), "kamchatka": (NEUTRAL, 3), "peru": (1, 2)},
                 config=config, rest=NEUTRAL, player=0)
    s, _ = apply(s, Attack(T("alaska"), T("kamchatka"), 3))
    assert s.phase_name == "defend"
    assert current_actor(s) == 1  # not the neutral seat, not the attacker
    assert legal_actions(s) == [Defend(1), Defend(2)]
    s, events = apply(s, Defend(2))
    assert events[0].player == 1
    assert current_actor(s) == CHANCE


def test_win_by_eliminating_the_opponent_while_neutral_armies_remain() -> None:
    config = preset_config("two_player_1993", 2)
    s = position({"alaska": (0, 6), "kamchatka": (1, 1)}, config=config, rest=NEUTRAL)
    s, _ = apply(s, Attack(T("alaska"), T("kamchatka"), 3))
    s, events = apply(s, Roll((6, 6, 6), (1,)))
    assert PlayerEliminated(1, 0, ()) in events and GameWon(0) in events
    assert s.is_terminal and s.winner == 0 and s.counts[NEUTRAL] == 40


def test_taking_the_last_neutral_territory_does_not_end_the_game() -> None:
    config = preset_config("two_player_1993", 2)
    s = position({"alaska": (0, 6), "kamchatka": (NEUTRAL, 1)}, config=config, rest=1)
    s, _ = apply(s, Attack(T("alaska"), T("kamchatka"), 3))
    s, events = apply(s, Roll((6, 6, 6), (1,)))
    assert any(isinstance(e, PlayerEliminated) and e.player == NEUTRAL for e in events)
    assert not s.is_terminal and s.phase_name == "occupy"


def test_plain_50_has_no_neutral_and_50_armies() -> None:
    config = preset_config("two_player_1993_plain_50", 2)
    assert config.seats == 2 and config.starting_armies == 50
    s = new_game(config)
    s, _ = apply(s, OpeningRoll((6, 1)))
    assert s.phase_name == "claim" and s.player == 0
    rng = random.Random(1)
    while s.phase_name in ("claim", "setup_place"):
        s, _ = apply(s, rng.choice(legal_actions(s)))
    assert s.counts == (21, 21)
    assert sum(s.armies) == 100


@pytest.mark.parametrize("players", [1, 3])
def test_two_player_options_need_two_players(players: int) -> None:
    with pytest.raises(ValueError, match="for 2 players"):
        preset_config("two_player_1993", players)
