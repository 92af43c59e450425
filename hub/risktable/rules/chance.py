"""Chance nodes: exact outcome probabilities and fast samplers.

Every random event is a chance node whose outcome is what the physical table
observes: dice faces as rolled, the card drawn. Each node's outcomes are
equally likely, so :meth:`ChanceOutcomes.probability` is one exact
``Fraction`` and nothing is materialised unless someone iterates (a 3-against-2
roll has 7776 ordered outcomes; the sampler never builds them).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from itertools import product

from risktable.rules.actions import (
    Action,
    DealCard,
    DealMission,
    DrawCard,
    OpeningRoll,
    RerollDie,
    Roll,
)

# FACES[n] = every ordered tuple of n dice faces; n <= 3, so at most 216 entries.
FACES: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(product(range(1, 7), repeat=n)) for n in range(4)
)


@dataclass(frozen=True, slots=True)
class ChanceOutcomes:
    """The outcomes of one chance node, all equally likely.

    ``kind`` is ``"roll"`` (``dice`` = (attack, defence)), ``"opening"``
    (``dice`` = one die per contender), ``"reroll"`` (one die), ``"deal"`` or
    ``"draw"`` (``cards`` = the pile the card comes from; a card set aside for a
    neutral is a deal too) or ``"mission"`` (``cards`` = the mission cards left).
    """

    kind: str
    dice: tuple[int, ...] = ()
    cards: tuple[int, ...] = ()

    def __len__(self) -> int:
        if self.kind in ("deal", "draw", "mission"):
            return len(self.cards)
        if self.kind == "reroll":
            return 6
        return int(6 ** sum(self.dice))

    def probability(self, action: Action) -> Fraction:
        """Exact probability of ``action`` at this node (0 if it is not an outcome)."""
        return Fraction(1, len(self)) if self.contains(action) else Fraction(0)

    def contains(self, action: Action) -> bool:
        """True when ``action`` is one of this node's outcomes."""
        if self.kind == "roll":
            return (isinstance(action, Roll) and len(action.attack) == self.dice[0]
                    and len(action.defend) == self.dice[1]
                    and all(1 <= f <= 6 for f in action.attack + action.defend))
        if self.kind == "opening":
            return (isinstance(action, OpeningRoll) and len(action.faces) == self.dice[0]
                    and all(1 <= f <= 6 for f in action.faces))
        if self.kind == "reroll":
            return isinstance(action, RerollDie) and action.face in range(1, 7)
        if self.kind == "mission":
            return isinstance(action, DealMission) and action.mission in self.cards
        wanted = DealCard if self.kind == "deal" else DrawCard
        return isinstance(action, wanted) and action.card in self.cards

    def __iter__(self) -> Iterator[tuple[Action, Fraction]]:
        """Every outcome with its probability (materialises them: not for the hot path)."""
        p = Fraction(1, len(self))
        if self.kind == "roll":
            for a in product(range(1, 7), repeat=self.dice[0]):
                for d in product(range(1, 7), repeat=self.dice[1]):
                    yield Roll(a, d), p
        elif self.kind == "opening":
            for faces in product(range(1, 7), repeat=self.dice[0]):
                yield OpeningRoll(faces), p
        elif self.kind == "reroll":
            for f in range(1, 7):
                yield RerollDie(f), p
        elif self.kind == "mission":
            for c in self.cards:
                yield DealMission(c), p
        elif self.kind == "deal":
            for c in self.cards:
                yield DealCard(c), p
        else:
            for c in self.cards:
                yield DrawCard(c), p

    def sample(self, rng: random.Random) -> Action:
        """One outcome drawn with its exact probability, using ``rng``."""
        if self.kind == "roll":
            return sample_roll(rng, self.dice[0], self.dice[1])
        if self.kind == "opening":
            n = self.dice[0]
            return OpeningRoll(tuple(rng.randint(1, 6) for _ in range(n)))
        if self.kind == "reroll":
            return RerollDie(rng.randint(1, 6))
        card = self.cards[int(rng.random() * len(self.cards))]
        if self.kind == "mission":
            return DealMission(card)
        return DealCard(card) if self.kind == "deal" else DrawCard(card)


def sample_roll(rng: random.Random, attack_dice: int, defend_dice: int) -> Roll:
    """A uniformly random ordered roll of ``attack_dice`` and ``defend_dice`` dice."""
    attack = FACES[attack_dice]
    defend = FACES[defend_dice]
    r = rng.random
    return Roll(attack[int(r() * len(attack))], defend[int(r() * len(defend))])
