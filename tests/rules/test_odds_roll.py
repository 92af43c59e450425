"""Single-roll odds against RULES.md section 8 and against closed forms."""

from __future__ import annotations

from fractions import Fraction

import pytest

from risktable.rules.odds import single_roll

# RULES.md section 8 (seed 004's table), in percent, keyed by
# (attack dice, defence dice) -> {(attacker losses, defender losses): percent}.
PUBLISHED = {
    (1, 1): {(0, 1): 41.67, (1, 0): 58.33},
    (2, 1): {(0, 1): 57.87, (1, 0): 42.13},
    (3, 1): {(0, 1): 65.97, (1, 0): 34.03},
    (1, 2): {(0, 1): 25.46, (1, 0): 74.54},
    (2, 2): {(0, 2): 22.76, (1, 1): 32.41, (2, 0): 44.83},
    (3, 2): {(0, 2): 37.17, (1, 1): 33.58, (2, 0): 29.26},
}
ALL_PAIRS = [(a, d) for a in range(1, 4) for d in range(1, 4)]


def table(attack_dice: int, defend_dice: int) -> dict[tuple[int, int], Fraction]:
    return {
        (o.attacker_losses, o.defender_losses): o.probability
        for o in single_roll(attack_dice, defend_dice)
    }


@pytest.mark.parametrize(("dice", "published"), sorted(PUBLISHED.items()))
def test_matches_the_published_table(
    dice: tuple[int, int], published: dict[tuple[int, int], float]
) -> None:
    computed = table(*dice)
    assert set(computed) == set(published)
    for outcome, percent in published.items():
        assert round(float(computed[outcome]) * 100, 2) == percent


def test_three_against_two_is_exact() -> None:
    assert table(3, 2) == {
        (0, 2): Fraction(2890, 7776),
        (1, 1): Fraction(2611, 7776),
        (2, 0): Fraction(2275, 7776),
    }


def test_three_against_two_expected_losses_match_the_rule_book() -> None:
    outcomes = single_roll(3, 2)
    attacker = sum(o.probability * o.attacker_losses for o in outcomes)
    defender = sum(o.probability * o.defender_losses for o in outcomes)
    assert round(float(attacker), 2) == 0.92
    assert round(float(defender), 2) == 1.08
    assert attacker + defender == 2


@pytest.mark.parametrize("dice", ALL_PAIRS)
def test_each_table_is_a_distribution_over_the_compared_pairs(dice: tuple[int, int]) -> None:
    outcomes = single_roll(*dice)
    assert sum(o.probability for o in outcomes) == 1
    assert all(o.probability > 0 for o in outcomes)
    assert all(o.attacker_losses + o.defender_losses == min(dice) for o in outcomes)
    # Best for the attacker first: the order the table and the seats show.
    assert [o.attacker_losses for o in outcomes] == sorted(o.attacker_losses for o in outcomes)


@pytest.mark.parametrize("defend_dice", [1, 2, 3])
def test_one_attack_die_wins_only_above_every_defence_die(defend_dice: int) -> None:
    # The single attack die must beat the highest defence die: for face f,
    # every defence die shows less than f.
    expected = sum(Fraction(1, 6) * Fraction(f - 1, 6) ** defend_dice for f in range(1, 7))
    assert table(1, defend_dice)[(0, 1)] == expected


@pytest.mark.parametrize("attack_dice", [1, 2, 3])
def test_against_one_defence_die_the_highest_attack_die_decides(attack_dice: int) -> None:
    # For defence face f the attacker wins unless every attack die shows f or less.
    expected = sum(Fraction(1, 6) * (1 - Fraction(f, 6) ** attack_dice) for f in range(1, 7))
    assert table(attack_dice, 1)[(0, 1)] == expected


def test_two_against_two_by_counting_sorted_pairs_by_hand() -> None:
    # 1296 rolls; the defender wins both pairs in 581 of them (tie rule included),
    # a figure derived independently by summing over the defender's sorted pair.
    wins_both = 0
    for d_high in range(1, 7):
        for d_low in range(1, d_high + 1):
            defend_ways = 1 if d_high == d_low else 2
            attack_ways = 0
            for a1 in range(1, 7):
                for a2 in range(1, 7):
                    high, low = max(a1, a2), min(a1, a2)
                    attack_ways += high <= d_high and low <= d_low
            wins_both += defend_ways * attack_ways
    assert wins_both == 581
    assert table(2, 2)[(2, 0)] == Fraction(581, 1296)


@pytest.mark.parametrize(("attack_dice", "defend_dice"), [(0, 1), (4, 1), (1, 0), (2, 4), (-1, 2)])
def test_impossible_dice_are_refused(attack_dice: int, defend_dice: int) -> None:
    with pytest.raises(ValueError, match="dice must be 1 to 3"):
        single_roll(attack_dice, defend_dice)
