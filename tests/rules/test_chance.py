"""Chance nodes: exact, complete, lazily enumerated, sampled within their support."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

from risktable.rules import DealCard, DrawCard, OpeningRoll, Roll
from risktable.rules.chance import FACES, ChanceOutcomes, sample_roll


def test_every_node_sums_to_one() -> None:
    nodes = [ChanceOutcomes("roll", dice=(1, 1)), ChanceOutcomes("roll", dice=(3, 2)),
             ChanceOutcomes("opening", dice=(3,)), ChanceOutcomes("deal", cards=(0, 5, 9)),
             ChanceOutcomes("draw", cards=tuple(range(44)))]
    for node in nodes:
        outcomes = list(node)
        assert len(outcomes) == len(node) == len({a for a, _ in outcomes})
        assert sum(p for _, p in outcomes) == 1
        assert all(node.probability(a) == p for a, p in outcomes)


def test_membership_without_enumerating() -> None:
    node = ChanceOutcomes("roll", dice=(3, 2))
    assert len(node) == 7776
    assert node.probability(Roll((6, 6, 6), (1, 1))) == Fraction(1, 7776)
    assert node.probability(Roll((6, 6), (1, 1))) == 0
    assert node.probability(Roll((6, 6, 7), (1, 1))) == 0
    assert node.probability(DrawCard(3)) == 0
    assert ChanceOutcomes("opening", dice=(6,)).probability(OpeningRoll((1,) * 6)) == Fraction(
        1, 46656)
    assert ChanceOutcomes("deal", cards=(1, 2)).probability(DealCard(3)) == 0


def test_samples_stay_in_the_support_and_cover_it() -> None:
    rng = random.Random(4)
    for node in (ChanceOutcomes("roll", dice=(2, 1)), ChanceOutcomes("opening", dice=(2,)),
                 ChanceOutcomes("deal", cards=(3, 8)), ChanceOutcomes("draw", cards=(42, 43))):
        seen = Counter(node.sample(rng) for _ in range(4000))
        assert all(node.probability(a) > 0 for a in seen)
        assert len(seen) == len(node)


def test_roll_sampler_faces_are_uniform() -> None:
    rng = random.Random(1)
    faces = Counter(f for _ in range(12000) for f in sample_roll(rng, 3, 2).attack)
    assert set(faces) == set(range(1, 7))
    chi2 = sum((faces[f] - 6000) ** 2 / 6000 for f in range(1, 7))
    assert chi2 < 30  # 5 degrees of freedom: far beyond chance
    assert len(FACES[3]) == 216 and len(set(FACES[3])) == 216
