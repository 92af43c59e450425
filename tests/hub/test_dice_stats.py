"""Per-die statistics: the chi-square survival function and the verdicts."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from risktable.dice_stats import DieStats, chi_square_survival

# Published chi-square critical values (upper tail), dof -> {alpha: x}.
CRITICAL = {
    1: {0.05: 3.841, 0.01: 6.635},
    2: {0.05: 5.991, 0.01: 9.210},
    5: {0.05: 11.070, 0.01: 15.086, 0.001: 20.515},
    10: {0.05: 18.307, 0.001: 29.588},
}


@pytest.mark.parametrize(
    ("dof", "alpha", "x"), [(d, a, x) for d, row in CRITICAL.items() for a, x in row.items()]
)
def test_survival_matches_tables(dof: int, alpha: float, x: float) -> None:
    assert chi_square_survival(x, dof) == pytest.approx(alpha, rel=2e-3)


@given(st.floats(0.01, 80), st.floats(0.01, 80), st.integers(1, 12))
def test_survival_decreases(x1: float, x2: float, dof: int) -> None:
    low, high = sorted((x1, x2))
    assert chi_square_survival(low, dof) >= chi_square_survival(high, dof)


def test_fair_die_is_fair_and_loaded_die_is_flagged() -> None:
    rng = random.Random(7)
    fair = DieStats("fair")
    loaded = DieStats("loaded")
    for _ in range(3000):
        fair = fair.add(rng.randint(1, 6))
        # A die that shows 6 a third of the time.
        loaded = loaded.add(6 if rng.random() < 1 / 3 else rng.randint(1, 5))
    assert fair.verdict() == "fair"
    assert loaded.verdict() == "suspicious"
    assert loaded.p_value() < 1e-6


def test_too_few_rolls_has_no_verdict() -> None:
    assert DieStats("new", (5, 0, 0, 0, 0, 0)).verdict() == "too few rolls"


def test_bad_faces_rejected() -> None:
    with pytest.raises(ValueError, match="face 7"):
        DieStats("d").add(7)
    with pytest.raises(ValueError, match="six"):
        DieStats("d", (1, 2, 3))
