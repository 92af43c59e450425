"""Exact dice odds: one roll, and a whole battle fought to the end.

A roll is resolved the way RULES.md section 2 says: each side's dice sorted high
to low, compared pair by pair for as many pairs as the smaller side rolled, ties
to the defender. :func:`single_roll` enumerates every face of every die, so its
probabilities are exact :class:`~fractions.Fraction` values; RULES.md section 8
lists the numbers they must reproduce.

:func:`battle` chains rolls: the attacker keeps attacking with the most dice
allowed until the defender is wiped out or the attacker is down to one army,
and the result is the whole distribution of how that ends.

>>> [(o.attacker_losses, o.defender_losses, str(o.probability)) for o in single_roll(3, 2)]
[(0, 2, '1445/3888'), (1, 1, '2611/7776'), (2, 0, '2275/7776')]
>>> str(battle(3, 1, exact=True).attacker_wins)
'1955/2592'
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from types import MappingProxyType
from typing import Generic, Literal, TypeVar, overload

__all__ = [
    "MAX_ATTACK_DICE",
    "MAX_DEFEND_DICE",
    "STANDARD_DEFEND_DICE",
    "Battle",
    "RollOutcome",
    "battle",
    "single_roll",
    "win_probability",
]

MAX_ATTACK_DICE = 3
# Two in every printed rule book; three is a house rule some tables play.
MAX_DEFEND_DICE = 3
STANDARD_DEFEND_DICE = 2

P = TypeVar("P", Fraction, float)
# Told the share of an exact battle's work done so far, 0 to 1, now and then.
Progress = Callable[[float], None]


@dataclass(frozen=True)
class RollOutcome:
    """One way a single roll can end, and how likely it is.

    ``attacker_losses + defender_losses`` always equals the number of dice
    pairs compared, ``min(attack_dice, defend_dice)``.
    """

    attacker_losses: int
    defender_losses: int
    probability: Fraction


@dataclass(frozen=True)
class Battle(Generic[P]):
    """How a battle fought to the end comes out.

    The attacker starts with ``attackers`` armies in the attacking territory
    and the defender with ``defenders``. ``attacker_left`` maps the armies left
    in the attacking territory after a conquest (before any move in) to their
    probability; ``defender_left`` maps the defender's surviving armies, when
    the attacker is stopped at one army, to theirs. Only outcomes that can
    happen appear. ``P`` is :class:`~fractions.Fraction` for an exact battle
    and ``float`` otherwise.
    """

    attackers: int
    defenders: int
    attacker_wins: P
    expected_attacker_losses: P
    expected_defender_losses: P
    attacker_left: Mapping[int, P]
    defender_left: Mapping[int, P]

    @property
    def defender_wins(self) -> P:
        """Probability that the attack stalls with the defender still holding."""
        # Starting from attacker_wins * 0 keeps the type: Fraction(0) or 0.0.
        return sum(self.defender_left.values(), start=self.attacker_wins * 0)


def _check_dice(attack_dice: int, defend_dice: int) -> None:
    if not 1 <= attack_dice <= MAX_ATTACK_DICE:
        raise ValueError(f"attack dice must be 1 to {MAX_ATTACK_DICE}, not {attack_dice}")
    if not 1 <= defend_dice <= MAX_DEFEND_DICE:
        raise ValueError(f"defence dice must be 1 to {MAX_DEFEND_DICE}, not {defend_dice}")


@cache
def _loss_counts(attack_dice: int, defend_dice: int) -> tuple[tuple[int, int, int], ...]:
    """``(attacker_losses, defender_losses, ways)`` over all ``6 ** dice`` rolls."""
    ways: dict[int, int] = {}
    faces = range(1, 7)
    for roll in itertools.product(faces, repeat=attack_dice + defend_dice):
        attack = sorted(roll[:attack_dice], reverse=True)
        defend = sorted(roll[attack_dice:], reverse=True)
        attacker_losses = sum(a <= d for a, d in zip(attack, defend, strict=False))
        ways[attacker_losses] = ways.get(attacker_losses, 0) + 1
    pairs = min(attack_dice, defend_dice)
    return tuple((lost, pairs - lost, ways[lost]) for lost in sorted(ways))


def single_roll(attack_dice: int, defend_dice: int) -> tuple[RollOutcome, ...]:
    """Every outcome of one roll, best for the attacker first, with exact odds.

    ``attack_dice`` is 1 to 3 and ``defend_dice`` 1 to 3 (three only under a
    house rule). Outcomes that cannot happen are left out; the probabilities
    sum to exactly 1.

    >>> [str(o.probability) for o in single_roll(1, 1)]
    ['5/12', '7/12']
    """
    _check_dice(attack_dice, defend_dice)
    total = 6 ** (attack_dice + defend_dice)
    return tuple(
        RollOutcome(a_lost, d_lost, Fraction(ways, total))
        for a_lost, d_lost, ways in _loss_counts(attack_dice, defend_dice)
    )


def _dice(attackers: int, defenders: int, defend_limit: int) -> tuple[int, int]:
    """Dice each side rolls when both roll the most they may."""
    return min(MAX_ATTACK_DICE, attackers - 1), min(defend_limit, defenders)


def _check_armies(attackers: int, defenders: int, defend_limit: int) -> None:
    if attackers < 1:
        raise ValueError(f"attackers must be at least 1, not {attackers}")
    if defenders < 1:
        raise ValueError(f"defenders must be at least 1, not {defenders}")
    if not 1 <= defend_limit <= MAX_DEFEND_DICE:
        raise ValueError(f"defence dice limit must be 1 to {MAX_DEFEND_DICE}, not {defend_limit}")


# No roll spends more dice per army it removes than 3 attack dice against 1
# defence die (or 1 against 3): 4 dice for one army. A battle removes at most
# attackers - 1 + defenders armies, so 6 ** (4 * that) is a multiple of the
# denominator of every path's probability, at every step of the path.
_MOST_DICE_PER_ARMY = 4


def _flow_exact(
    attackers: int, defenders: int, defend_limit: int, progress: Progress | None = None
) -> tuple[dict[int, int], dict[int, int], int]:
    """Pour probability mass through the battle, as integers over ``6 ** power``.

    Fractions would spend most of the time on gcds of ever larger
    denominators. Every probability here is a whole number over a power of
    6, so whole numbers over one large enough power of 6 stay exact and every
    division below is even. A roll costs the attacker at most as many armies
    as the defender rolls dice, so only that many rows of states and one more
    are alive at a time: memory grows with the defenders, not with the whole
    table of states.
    """
    power = _MOST_DICE_PER_ARMY * (attackers - 1 + defenders)
    steps = {
        (a, d): tuple((a_lost, d_lost, ways) for a_lost, d_lost, ways in _loss_counts(a, d))
        for a in range(1, MAX_ATTACK_DICE + 1)
        for d in range(1, defend_limit + 1)
    }
    # rows[k] is row a - k, for the attacker army counts a roll can reach from a.
    rows = [[0] * (defenders + 1) for _ in range(min(MAX_ATTACK_DICE, defend_limit) + 1)]
    rows[0][defenders] = 6**power
    won: dict[int, int] = {}
    # A roll never adds armies, so rows high to low and, within a row,
    # defenders high to low visits a state only after everything that feeds it.
    for a in range(attackers, 1, -1):
        attack_dice = min(MAX_ATTACK_DICE, a - 1)
        for d in range(defenders, 0, -1):
            here = rows[0][d]
            if not here:
                continue
            # Even: ``here`` holds the 6 ** dice of every roll still to come, this one's too.
            share = here // 6 ** (attack_dice + min(defend_limit, d))
            for a_lost, d_lost, ways in steps[attack_dice, min(defend_limit, d)]:
                rows[a_lost][d - d_lost] += share * ways
        if rows[0][0]:
            won[a] = rows[0][0]
        rows = [*rows[1:], [0] * (defenders + 1)]
        if progress is not None:
            progress((attackers - a + 1) / (attackers - 1))
    lost = {d: rows[0][d] for d in range(1, defenders + 1) if rows[0][d]}
    return dict(sorted(won.items())), lost, power  # fewest armies left first, as ever


@cache
def _float_steps(defend_limit: int) -> dict[tuple[int, int], tuple[tuple[int, int, float], ...]]:
    """Each dice pairing's ``(attacker_losses, defender_losses, probability)`` as floats."""
    return {
        (a, d): tuple(
            (o.attacker_losses, o.defender_losses, float(o.probability)) for o in single_roll(a, d)
        )
        for a in range(1, MAX_ATTACK_DICE + 1)
        for d in range(1, defend_limit + 1)
    }


def _flow_float(
    attackers: int, defenders: int, defend_limit: int
) -> tuple[dict[int, float], dict[int, float]]:
    """The same pour as :func:`_flow_exact` in floats, for speed."""
    steps = _float_steps(defend_limit)
    mass = [[0.0] * (defenders + 1) for _ in range(attackers + 1)]
    mass[attackers][defenders] = 1.0
    for a in range(attackers, 1, -1):
        row = mass[a]
        attack_dice = min(MAX_ATTACK_DICE, a - 1)
        for d in range(defenders, 0, -1):
            here = row[d]
            if not here:
                continue
            for a_lost, d_lost, p in steps[attack_dice, min(defend_limit, d)]:
                mass[a - a_lost][d - d_lost] += here * p
    won = {a: mass[a][0] for a in range(2, attackers + 1) if mass[a][0]}
    lost = {d: mass[1][d] for d in range(1, defenders + 1) if mass[1][d]}
    return won, lost


@overload
def battle(
    attackers: int, defenders: int, exact: Literal[True], *, defend_limit: int = ...,
    progress: Progress | None = ...,
) -> Battle[Fraction]: ...
@overload
def battle(
    attackers: int, defenders: int, exact: Literal[False] = ..., *, defend_limit: int = ...,
    progress: Progress | None = ...,
) -> Battle[float]: ...
@overload
def battle(
    attackers: int, defenders: int, exact: bool, *, defend_limit: int = ...,
    progress: Progress | None = ...,
) -> Battle[Fraction] | Battle[float]: ...
def battle(
    attackers: int,
    defenders: int,
    exact: bool = False,
    *,
    defend_limit: int = STANDARD_DEFEND_DICE,
    progress: Progress | None = None,
) -> Battle[Fraction] | Battle[float]:
    """The distribution of a battle fought until conquest or until the attacker is stopped.

    ``attackers`` armies sit in the attacking territory and ``defenders`` in
    the defending one. Each roll the attacker throws ``min(3, attackers - 1)``
    dice and the defender ``min(defend_limit, defenders)``; the battle ends
    when the defender has no armies left or the attacker has one. An attacker
    with a single army cannot attack and so never wins. ``exact=True`` gives
    :class:`~fractions.Fraction` values, otherwise floats (much faster);
    an exact battle calls ``progress(done)`` after each attacker row, ``done``
    rising to 1 (its time grows about 8 times per doubling of both armies).

    >>> b = battle(3, 1, exact=True)
    >>> str(b.attacker_wins), {k: str(v) for k, v in b.attacker_left.items()}
    ('1955/2592', {2: '455/2592', 3: '125/216'})
    """
    _check_armies(attackers, defenders, defend_limit)
    if exact:
        won, lost, power = _flow_exact(attackers, defenders, defend_limit, progress)
        whole = 6**power
        return _summarise(
            attackers,
            defenders,
            {a: Fraction(n, whole) for a, n in won.items()},
            {d: Fraction(n, whole) for d, n in lost.items()},
            Fraction(0),
        )
    won_f, lost_f = _flow_float(attackers, defenders, defend_limit)
    return _summarise(attackers, defenders, won_f, lost_f, 0.0)


def _summarise(
    attackers: int, defenders: int, won: dict[int, P], lost: dict[int, P], zero: P
) -> Battle[P]:
    wins = sum(won.values(), start=zero)
    attacker_losses = sum((p * (attackers - left) for left, p in won.items()), start=zero) + sum(
        lost.values(), start=zero
    ) * (attackers - 1)
    defender_losses = wins * defenders + sum(
        (p * (defenders - left) for left, p in lost.items()), start=zero
    )
    return Battle(
        attackers=attackers,
        defenders=defenders,
        attacker_wins=wins,
        expected_attacker_losses=attacker_losses,
        expected_defender_losses=defender_losses,
        attacker_left=MappingProxyType(won),
        defender_left=MappingProxyType(lost),
    )


class _WinTable:
    """Win probabilities for every smaller battle, grown when a bigger one is asked for.

    Bots and the odds display ask about many nearby pairs; one table answers
    them all, where caching each battle separately would redo the same work.
    """

    def __init__(self) -> None:
        self._rows: list[list[float]] = [[0.0], [0.0]]

    def get(self, attackers: int, defenders: int) -> float:
        rows = self._rows
        if attackers >= len(rows) or defenders >= len(rows[0]):
            rows = self._build(max(attackers + 1, len(rows)), max(defenders + 1, len(rows[0])))
            # One rebinding: a reader on another thread sees the old table or the new one.
            self._rows = rows
        return rows[attackers][defenders]

    @staticmethod
    def _build(n_attackers: int, n_defenders: int) -> list[list[float]]:
        steps = _float_steps(STANDARD_DEFEND_DICE)
        # Rows 0 and 1 cannot attack, so they never win; column 0 is a conquest.
        rows = [[0.0] * n_defenders for _ in range(2)]
        for a in range(2, n_attackers):
            row = [1.0] + [0.0] * (n_defenders - 1)
            for d in range(1, n_defenders):
                win = 0.0
                for a_lost, d_lost, p in steps[_dice(a, d, STANDARD_DEFEND_DICE)]:
                    source = row if a_lost == 0 else rows[a - a_lost]
                    win += p * source[d - d_lost]
                row[d] = win
            rows.append(row)
        return rows


_WIN_TABLE = _WinTable()


def win_probability(attackers: int, defenders: int) -> float:
    """Probability, as a float, that ``attackers`` conquer ``defenders`` fighting to the end.

    Same battle as :func:`battle` with the standard two defence dice. Answers
    come from a table kept between calls, so asking often is cheap.

    >>> win_probability(2, 1) == float(battle(2, 1, exact=True).attacker_wins)
    True
    """
    _check_armies(attackers, defenders, STANDARD_DEFEND_DICE)
    return _WIN_TABLE.get(attackers, defenders)
