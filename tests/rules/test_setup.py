"""Setup: the opening roll, claiming, dealing, placing starting armies, options."""

from __future__ import annotations

import pytest

from risktable.rules import (
    CHANCE,
    Claim,
    Config,
    DealCard,
    IllegalActionError,
    MalformedActionError,
    OpeningRoll,
    Options,
    Place,
    State,
    apply,
    chance_outcomes,
    current_actor,
    legal_actions,
    new_game,
)
from tests.rules.scenario import BOARD, T


def test_options_defaults_and_names() -> None:
    o = Options()
    assert o.as_dict() == {"setup": "claim", "fortify": "adjacent", "card_values": "standard",
                           "occupy_min": "dice"}
    with pytest.raises(ValueError, match="fortify"):
        Options(fortify="anywhere")  # type: ignore[arg-type]


@pytest.mark.parametrize("players", [2, 7])
def test_classic_game_is_for_3_to_6(players: int) -> None:
    with pytest.raises(ValueError, match="3 to 6"):
        Config(players)


def test_opening_roll_highest_goes_first_ties_roll_again() -> None:
    s = new_game(Config(4))
    assert current_actor(s) == CHANCE
    assert len(chance_outcomes(s)) == 6 ** 4
    s, _ = apply(s, OpeningRoll((5, 6, 6, 2)))
    assert s.contenders == (1, 2) and s.phase_name == "opening"
    assert len(chance_outcomes(s)) == 36
    with pytest.raises(IllegalActionError, match="2 dice"):
        apply(s, OpeningRoll((1, 2, 3)))
    with pytest.raises(MalformedActionError):
        apply(s, OpeningRoll((0, 7)))
    s, _events = apply(s, OpeningRoll((3, 4)))
    assert s.phase_name == "claim" and s.player == 2 and s.first_player == 2


def _claimed(players: int, first_faces: tuple[int, ...]) -> State:
    s, _ = apply(new_game(Config(players)), OpeningRoll(first_faces))
    while s.phase_name == "claim":
        s, _ = apply(s, legal_actions(s)[0])
    return s


def test_claim_in_seat_order_from_the_first_player() -> None:
    s, _ = apply(new_game(Config(3)), OpeningRoll((1, 6, 2)))
    order = []
    for _ in range(6):
        order.append(s.player)
        s, _ = apply(s, legal_actions(s)[0])
    assert order == [1, 2, 0, 1, 2, 0]
    taken = next(t for t, o in enumerate(s.owners) if o >= 0)
    with pytest.raises(IllegalActionError, match="already claimed"):
        apply(s, Claim(taken))
    with pytest.raises(MalformedActionError):
        apply(s, Claim(42))


@pytest.mark.parametrize("players,armies", [(3, 35), (4, 30), (5, 25), (6, 20)])
def test_starting_armies_and_placing_then_first_turn(players: int, armies: int) -> None:
    faces = tuple([6] + [1] * (players - 1))
    s = _claimed(players, faces)
    assert s.phase_name == "setup_place"
    assert sum(s.counts) == 42 and all(o >= 0 for o in s.owners)
    # Claiming continues the rotation: the seat after the 42nd claim places first.
    assert s.player == 42 % players
    assert [s.counts[p] + s.to_place[p] for p in range(players)] == [armies] * players
    while s.phase_name == "setup_place":
        p = s.player
        own = [t for t, o in enumerate(s.owners) if o == p]
        with pytest.raises(IllegalActionError, match="one at a time"):
            apply(s, Place(own[0], 2))
        enemy = next(t for t, o in enumerate(s.owners) if o != p)
        with pytest.raises(IllegalActionError, match="does not own"):
            apply(s, Place(enemy))
        s, _ = apply(s, Place(own[0]))
    assert sum(s.armies) == armies * players
    # The player who placed the first army takes the first turn.
    assert s.phase_name == "reinforce" and s.player == 0 and s.turn == 1


def test_deal_setup_deals_every_territory_card_in_rotation() -> None:
    s, _ = apply(new_game(Config(4, Options(setup="deal"))), OpeningRoll((2, 2, 5, 1)))
    assert s.phase_name == "deal" and s.player == 2
    outcomes = chance_outcomes(s)
    assert len(outcomes) == 42 and BOARD.size not in outcomes.cards  # wilds are out of the deal
    receivers = []
    for card in range(42):
        receivers.append(s.player)
        assert current_actor(s) == CHANCE
        s, _ = apply(s, DealCard(card))
    assert receivers[:5] == [2, 3, 0, 1, 2]
    assert s.owners[0] == 2 and s.owners[1] == 3
    # 42 cards among 4: the first two receivers get 11.
    assert sorted(s.counts) == [10, 10, 11, 11] and s.counts[2] == 11
    assert len(s.draw_pile) == 44 and s.discard == ()
    assert s.phase_name == "setup_place" and s.player == 2
    with pytest.raises(IllegalActionError):
        apply(s, DealCard(0))


def test_dealing_a_card_twice_is_illegal() -> None:
    s, _ = apply(new_game(Config(3, Options(setup="deal"))), OpeningRoll((6, 1, 1)))
    s, _ = apply(s, DealCard(T("peru")))
    with pytest.raises(IllegalActionError, match="still to deal"):
        apply(s, DealCard(T("peru")))
    with pytest.raises(MalformedActionError):
        apply(s, DealCard(99))
