"""Whole-battle distributions: exact sums, a brute-force recursion, Monte Carlo."""

from __future__ import annotations

import math
import random
from fractions import Fraction
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from risktable.rules.odds import battle, single_roll, win_probability

# Terminal states: ("won", attackers left) or ("lost", defenders left).
Ending = tuple[str, int]


@cache
def brute_force(attackers: int, defenders: int, limit: int) -> dict[Ending, Fraction]:
    """Every ending and its probability, by recursing over each roll's outcomes."""
    if defenders == 0:
        return {("won", attackers): Fraction(1)}
    if attackers == 1:
        return {("lost", defenders): Fraction(1)}
    endings: dict[Ending, Fraction] = {}
    for o in single_roll(min(3, attackers - 1), min(limit, defenders)):
        after = brute_force(attackers - o.attacker_losses, defenders - o.defender_losses, limit)
        for ending, p in after.items():
            endings[ending] = endings.get(ending, Fraction(0)) + o.probability * p
    return endings


SMALL = [(a, d) for a in range(1, 9) for d in range(1, 9)]


@pytest.mark.parametrize("limit", [2, 3])
def test_exact_battle_agrees_with_brute_force(limit: int) -> None:
    for attackers, defenders in SMALL:
        result = battle(attackers, defenders, exact=True, defend_limit=limit)
        expected = brute_force(attackers, defenders, limit)
        got = {("won", a): p for a, p in result.attacker_left.items()}
        got |= {("lost", d): p for d, p in result.defender_left.items()}
        assert got == expected, (attackers, defenders)
        assert result.attacker_wins == sum(p for (kind, _), p in expected.items() if kind == "won")
        expected_attacker_losses = sum(
            p * (attackers - n if kind == "won" else attackers - 1)
            for (kind, n), p in expected.items()
        )
        expected_defender_losses = sum(
            p * (defenders if kind == "won" else defenders - n) for (kind, n), p in expected.items()
        )
        assert result.expected_attacker_losses == expected_attacker_losses
        assert result.expected_defender_losses == expected_defender_losses


@pytest.mark.parametrize(("attackers", "defenders"), [(2, 1), (7, 9), (60, 45), (200, 200)])
def test_exact_distribution_sums_to_exactly_one(attackers: int, defenders: int) -> None:
    result = battle(attackers, defenders, exact=True)
    assert result.attacker_wins + result.defender_wins == 1
    assert all(isinstance(p, Fraction) and p > 0 for p in result.attacker_left.values())
    assert all(isinstance(p, Fraction) and p > 0 for p in result.defender_left.values())
    # A conquest always ends on a roll the attacker loses nothing in.
    assert min(result.attacker_left) >= 2
    assert max(result.attacker_left) <= attackers
    assert max(result.defender_left) <= defenders


@pytest.mark.parametrize(("attackers", "defenders"), [(3, 2), (25, 30), (200, 200)])
def test_float_battle_tracks_the_exact_one(attackers: int, defenders: int) -> None:
    exact = battle(attackers, defenders, exact=True)
    fast = battle(attackers, defenders)
    assert isinstance(fast.attacker_wins, float)
    assert fast.attacker_wins == pytest.approx(float(exact.attacker_wins), abs=1e-12)
    assert fast.expected_attacker_losses == pytest.approx(
        float(exact.expected_attacker_losses), rel=1e-12
    )
    assert fast.expected_defender_losses == pytest.approx(
        float(exact.expected_defender_losses), rel=1e-12
    )
    assert set(fast.attacker_left) == set(exact.attacker_left)
    for armies, p in exact.defender_left.items():
        assert fast.defender_left[armies] == pytest.approx(float(p), abs=1e-12)


def test_an_attacker_with_one_army_cannot_win() -> None:
    result = battle(1, 4, exact=True)
    assert result.attacker_wins == 0
    assert dict(result.defender_left) == {4: 1}
    assert result.expected_attacker_losses == 0
    assert win_probability(1, 4) == 0.0


@pytest.mark.parametrize(("attackers", "defenders"), [(0, 3), (3, 0), (-2, 1)])
def test_empty_sides_are_refused(attackers: int, defenders: int) -> None:
    with pytest.raises(ValueError, match="must be at least 1"):
        battle(attackers, defenders)
    with pytest.raises(ValueError, match="must be at least 1"):
        win_probability(attackers, defenders)


def test_win_probability_is_the_battle_probability() -> None:
    for attackers in range(1, 40):
        for defenders in range(1, 40, 3):
            assert win_probability(attackers, defenders) == pytest.approx(
                battle(attackers, defenders).attacker_wins, abs=1e-12
            )


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 120), st.integers(1, 120))
def test_more_attackers_help_and_more_defenders_hurt(attackers: int, defenders: int) -> None:
    p = win_probability(attackers, defenders)
    assert 0.0 <= p <= 1.0
    assert win_probability(attackers + 1, defenders) >= p
    assert win_probability(attackers, defenders + 1) <= p


def simulate(attackers: int, defenders: int, rng: random.Random) -> tuple[bool, int]:
    """One battle with real (pseudo-random) dice: (attacker won, armies left)."""
    while defenders and attackers > 1:
        attack = sorted((rng.randint(1, 6) for _ in range(min(3, attackers - 1))), reverse=True)
        defend = sorted((rng.randint(1, 6) for _ in range(min(2, defenders))), reverse=True)
        for a, d in zip(attack, defend, strict=False):
            if a > d:
                defenders -= 1
            else:
                attackers -= 1
    return (True, attackers) if not defenders else (False, defenders)


@pytest.mark.parametrize(("attackers", "defenders", "seed"), [(10, 7, 20261129), (6, 4, 42)])
def test_monte_carlo_agrees_within_sampling_error(
    attackers: int, defenders: int, seed: int
) -> None:
    rng = random.Random(seed)
    trials = 20_000
    outcomes = [simulate(attackers, defenders, rng) for _ in range(trials)]
    exact = battle(attackers, defenders, exact=True)
    # Five standard errors: a correct distribution fails this about once in
    # two million runs per check, while an error of a few percent fails it always.
    p = float(exact.attacker_wins)
    wins = sum(won for won, _ in outcomes)
    assert abs(wins / trials - p) <= 5 * math.sqrt(p * (1 - p) / trials)
    for armies, q in exact.attacker_left.items():
        seen = sum(1 for won, left in outcomes if won and left == armies)
        assert abs(seen / trials - float(q)) <= 5 * math.sqrt(float(q) * (1 - float(q)) / trials)


def test_an_exact_battle_reports_its_progress_rising_to_one() -> None:
    seen: list[float] = []
    assert battle(30, 20, exact=True, progress=seen.append) == battle(30, 20, exact=True)
    assert len(seen) == 29  # one per attacker row that can still attack
    assert seen == sorted(seen) and seen[-1] == 1.0 and seen[0] > 0
