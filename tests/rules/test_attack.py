"""Attacking: dice limits, resolution, conquest, occupation, elimination, victory."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest

from risktable.rules import (
    Attack,
    Defend,
    EndAttack,
    IllegalActionError,
    MalformedActionError,
    Occupy,
    Options,
    Place,
    Roll,
    apply,
    chance_outcomes,
    current_actor,
    legal_actions,
)
from risktable.rules.chance import FACES
from risktable.rules.combat import loss_table, take_losses
from risktable.rules.odds import single_roll
from risktable.rules.state import ATTACK, FORTIFY, GAME_OVER, OCCUPY, REINFORCE, ROLL
from tests.rules.scenario import T, position

A, K = T("alaska"), T("kamchatka")


def battle(attackers: int, defenders: int, **kw: object) -> object:
    return position({"alaska": (0, attackers), "kamchatka": (1, defenders)}, rest=2, **kw)


def test_attack_needs_dice_plus_one_armies() -> None:
    s = battle(3, 2)
    assert {a.dice for a in legal_actions(s) if isinstance(a, Attack) and a.target == K} == {1, 2}
    with pytest.raises(IllegalActionError, match="at least 4 armies"):
        apply(s, Attack(A, K, 3))
    with pytest.raises(MalformedActionError, match=r"1\.\.3"):
        apply(s, Attack(A, K, 4))
    one = battle(1, 2)
    with pytest.raises(IllegalActionError):
        apply(one, Attack(A, K, 1))


def test_attack_only_adjacent_enemy_from_own() -> None:
    s = position({"alaska": (0, 5), "alberta": (0, 1), "kamchatka": (1, 1)}, rest=2)
    with pytest.raises(IllegalActionError, match="own territory"):
        apply(s, Attack(A, T("alberta"), 1))
    with pytest.raises(IllegalActionError, match="does not border"):
        apply(s, Attack(A, T("peru"), 1))
    with pytest.raises(IllegalActionError, match="does not own"):
        apply(s, Attack(K, A, 1))


def test_defender_chooses_up_to_two_dice_if_armies_allow() -> None:
    # One defending army leaves nothing to choose: the roll follows at once with one die.
    s, events = apply(battle(4, 1), Attack(A, K, 3))
    assert s.phase == ROLL and s.defend_dice == 1
    assert [type(e).__name__ for e in events] == ["AttackDeclared", "DefenceDeclared"]
    s2, _ = apply(battle(4, 5), Attack(A, K, 3))
    assert current_actor(s2) == 1
    assert legal_actions(s2) == [Defend(1), Defend(2)]
    with pytest.raises(MalformedActionError):
        apply(s2, Defend(3))
    s2, _ = apply(s2, Defend(2))
    assert s2.phase == ROLL and len(chance_outcomes(s2)) == 6 ** 5
    assert chance_outcomes(s2).probability(Roll((1, 2, 3), (4, 5))) == Fraction(1, 7776)


def _rolled(att: tuple[int, ...], dfn: tuple[int, ...], attackers: int = 4,
            defenders: int = 5) -> object:
    s, _ = apply(battle(attackers, defenders), Attack(A, K, len(att)))
    s, _ = apply(s, Defend(len(dfn)))
    s, _events = apply(s, Roll(att, dfn))
    return s


def test_ties_go_to_the_defender_and_pairs_compare_high_to_low() -> None:
    s = _rolled((6, 1, 5), (5, 6))  # 6 v 6 tie -> attacker loses; 5 v 5 tie -> attacker loses
    assert (s.armies[A], s.armies[K]) == (2, 5)
    s = _rolled((2, 6, 1), (1, 5))  # 6 v 5 and 2 v 1 -> defender loses 2
    assert (s.armies[A], s.armies[K]) == (4, 3)
    s = _rolled((3,), (2, 6))  # one pair only: 3 v 6
    assert (s.armies[A], s.armies[K]) == (3, 5)
    assert s.phase == ATTACK


def test_wrong_number_of_dice_is_illegal_bad_faces_malformed() -> None:
    s, _ = apply(battle(4, 5), Attack(A, K, 2))
    s, _ = apply(s, Defend(2))
    with pytest.raises(IllegalActionError, match="2 attack and 2 defence"):
        apply(s, Roll((1, 2, 3), (4, 5)))
    with pytest.raises(MalformedActionError):
        apply(s, Roll((0, 2), (4, 5)))
    with pytest.raises(MalformedActionError):
        apply(s, Roll((1, 7), (4, 5)))


def test_engine_resolution_matches_the_exact_odds_table() -> None:
    for a_dice in (1, 2, 3):
        for d_dice in (1, 2):
            s, _ = apply(battle(4, 5), Attack(A, K, a_dice))
            s, _ = apply(s, Defend(d_dice))
            tally: Counter[tuple[int, int]] = Counter()
            node = chance_outcomes(s)
            for roll, p in node:
                after, _ = apply(s, roll)
                tally[(4 - after.armies[A], 5 - after.armies[K])] += 1
                assert p == Fraction(1, len(node))
            expected = {(o.attacker_losses, o.defender_losses): o.probability
                        for o in single_roll(a_dice, d_dice)}
            got = {k: Fraction(v, len(node)) for k, v in tally.items()}
            assert got == expected


@pytest.mark.parametrize(("defenders", "options"), [
    (5, Options()), (2, Options()), (1, Options()), (3, Options(defence_dice="3")),
], ids=["battle_goes_on", "two_can_fall", "one_defender", "three_defence_dice"])
def test_take_losses_is_the_state_apply_gives_for_every_roll(defenders: int,
                                                             options: Options) -> None:
    # Self-play's fast path looks the losses up instead of applying a Roll: the same state.
    for a_dice in (1, 2, 3):
        for d_dice in range(1, min(defenders, 3 if options.defence_dice == "3" else 2) + 1):
            s, _ = apply(battle(4, defenders, options=options), Attack(A, K, a_dice))
            if s.phase != ROLL:
                s, _ = apply(s, Defend(d_dice))
            table = loss_table(a_dice, d_dice)
            att, dfn = FACES[a_dice], FACES[d_dice]
            assert len(table) == len(att) * len(dfn)
            for i, a in enumerate(att):
                for j, d in enumerate(dfn):
                    assert take_losses(s, *table[i * len(dfn) + j]) == apply(s, Roll(a, d))[0]


def test_conquest_moves_the_dice_count_in_then_occupy_range() -> None:
    s, _ = apply(battle(6, 1), Attack(A, K, 3))
    s, _events = apply(s, Roll((6, 2, 2), (5,)))
    assert s.owners[K] == 0 and s.armies[K] == 3 and s.armies[A] == 3
    assert s.phase == OCCUPY and s.conquered
    assert legal_actions(s) == [Occupy(3), Occupy(4), Occupy(5)]
    with pytest.raises(IllegalActionError, match="between 3 and 5"):
        apply(s, Occupy(6))
    with pytest.raises(IllegalActionError):
        apply(s, Occupy(2))
    s, _ = apply(s, Occupy(5))
    assert (s.armies[A], s.armies[K]) == (1, 5) and s.phase == ATTACK


def test_occupation_with_one_choice_is_automatic() -> None:
    s, _ = apply(battle(2, 1), Attack(A, K, 1))
    s, _ = apply(s, Roll((6,), (1,)))
    assert (s.armies[A], s.armies[K]) == (1, 1) and s.phase == ATTACK


def test_occupy_min_survivors_option() -> None:
    s, _ = apply(battle(6, 1, options=Options(occupy_min="survivors")), Attack(A, K, 2))
    s, _ = apply(s, Roll((6, 1), (5,)))
    # Both attacking armies survived the roll, so both must move in.
    assert s.occupy_min == 2 and s.armies[K] == 2


def test_elimination_hands_over_cards() -> None:
    s = position({"alaska": (0, 5), "kamchatka": (1, 1)}, rest=2,
                 hands={0: ("peru",), 1: ("brazil", "wild1")})
    s, _ = apply(s, Attack(A, K, 3))
    s, events = apply(s, Roll((6, 6, 6), (1,)))
    assert s.counts[1] == 0 and s.hands[1] == () and len(s.hands[0]) == 3
    assert any(type(e).__name__ == "PlayerEliminated" for e in events)


def test_elimination_to_six_cards_forces_trading_down_to_four_then_attack_again() -> None:
    mine = ("peru", "brazil", "argentina")  # cavalry, artillery, infantry: one set
    theirs = ("alaska", "alberta", "western_united_states")  # three infantry
    s = position({"alaska": (2, 9), "kamchatka": (1, 1), "madagascar": (0, 1)}, rest=2,
                 player=2, hands={2: mine, 1: theirs})
    s, _ = apply(s, Attack(A, K, 3))
    s, _ = apply(s, Roll((6, 6, 6), (1,)))
    s, _ = apply(s, Occupy(3))
    assert s.phase == REINFORCE and len(s.hands[2]) == 6 and s.pool == 0
    assert all(type(a).__name__ == "Trade" for a in legal_actions(s))
    with pytest.raises(IllegalActionError, match="must trade"):
        apply(s, Place(A, 1))
    s, _ = apply(s, legal_actions(s)[0])
    assert len(s.hands[2]) == 3 and s.pool >= 4
    # Down to 4 or fewer: no further (optional) trade after a conquest, place, attack on.
    assert not any(type(a).__name__ == "Trade" for a in legal_actions(s))
    s, _ = apply(s, Place(A, s.pool))
    assert s.phase == ATTACK


def test_taking_the_last_territory_wins() -> None:
    s = position({"alaska": (0, 4)}, rest=0)
    s = s._replace(owners=tuple(1 if t == K else o for t, o in enumerate(s.owners)),
                   counts=(41, 1, 0))
    s, _ = apply(s, Attack(A, K, 3))
    s, _events = apply(s, Roll((6, 5, 4), (3,)))
    assert s.phase == GAME_OVER and s.winner == 0 and legal_actions(s) == []
    assert current_actor(s) == -2


def test_end_attack_goes_to_fortify() -> None:
    s, _ = apply(battle(3, 3), EndAttack())
    assert s.phase == FORTIFY
