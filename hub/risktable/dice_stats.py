"""Per-die face statistics and a chi-square check for implausible dice.

Every physical die reports faces under an id of its own (protocol/README.md,
the dice event): a smart die under its own id wherever it is rolled, a seat's
own electronic dice as ``e1``..``e3`` and dice typed in at a seat as
``m1``..``m3``, ids that only the seat makes unique (:func:`die_identity`).
A plain die the dice tray's camera read, and the player accepted as read, is
counted under its colour, ``cam-red``, one die per colour for the table: the
tray cannot tell two red dice apart.
A fair die's face counts follow a multinomial with p = 1/6; Pearson's
chi-square statistic over the six faces then has, for enough rolls, a
chi-square distribution with 5 degrees of freedom. A die whose p-value falls
below ``alpha`` is flagged for the referee to look at.

>>> stats = DieStats("godice-1f2a", (10, 10, 10, 10, 10, 10))
>>> stats.chi_square()
0.0
>>> stats.verdict()
'fair'
"""

from __future__ import annotations

import math
from dataclasses import dataclass

FACES = 6
# Pearson's approximation wants at least 5 expected per face.
MIN_ROLLS = 5 * FACES
DEFAULT_ALPHA = 0.001

# Where a die's faces came from (:func:`die_kind`).
SEAT_DICE = "seat"  # the seat's own electronic dice: the seat drew the faces
MANUAL = "manual"   # plain dice whose faces a player typed in at the seat
SMART = "smart"     # a smart die that reads its own face
NAMED = "named"     # a die named with a journalled roll (ActionMeta.dice), not by a seat
CAMERA = "camera"   # a plain die the tray's camera read (risktable.service.tray_desk)
KINDS = (SEAT_DICE, MANUAL, SMART, NAMED, CAMERA)
_SEAT_PREFIXES = {"e": SEAT_DICE, "m": MANUAL}
CAMERA_PREFIX = "cam-"


def camera_die(colour: str) -> str:
    """The id a camera-read die of ``colour`` is counted under.

    >>> camera_die("red"), die_kind(camera_die("red"))
    ('cam-red', 'camera')
    """
    return CAMERA_PREFIX + colour


def die_kind(die_id: str) -> str:
    """The kind of die a seat's dice event names ``die_id``.

    >>> die_kind("e2"), die_kind("m1"), die_kind("gd-a1b2c3d4e5f6")
    ('seat', 'manual', 'smart')
    """
    if die_id.startswith(CAMERA_PREFIX):
        return CAMERA
    kind = _SEAT_PREFIXES.get(die_id[:1])
    return kind if kind is not None and die_id[1:].isdigit() else SMART


def die_identity(seat: int, die_id: str) -> str:
    """The name one physical die goes by in the statistics: seat 1's ``e1`` and seat
    2's ``e1`` are different dice, a smart die is itself at any seat.

    >>> die_identity(2, "e1"), die_identity(2, "px-0000002a")
    ('seat 2 e1', 'px-0000002a')
    """
    return die_id if die_kind(die_id) in (SMART, CAMERA) else f"seat {seat} {die_id}"


def chi_square_survival(statistic: float, dof: int) -> float:
    """P(X >= statistic) for X chi-square with ``dof`` degrees of freedom.

    Exact closed forms of the regularized upper incomplete gamma function
    Q(dof/2, statistic/2) for whole and half-whole shape parameters, built up
    by the recurrence Q(a+1, y) = Q(a, y) + y^a e^-y / Gamma(a+1).

    >>> round(chi_square_survival(11.0705, 5), 4)
    0.05
    """
    if dof < 1:
        raise ValueError(f"degrees of freedom must be at least 1, got {dof}")
    if statistic <= 0:
        return 1.0
    y = statistic / 2.0
    if dof % 2 == 0:
        a, q = 1.0, math.exp(-y)
    else:
        a, q = 0.5, math.erfc(math.sqrt(y))
    while a < dof / 2.0:
        q += math.exp(a * math.log(y) - y - math.lgamma(a + 1.0))
        a += 1.0
    return min(1.0, max(0.0, q))


@dataclass(frozen=True)
class DieStats:
    """Face counts of one physical die; ``counts[i]`` is how often face i+1 came up.

    ``kind`` tells where the faces came from (:data:`KINDS`).
    """

    die: str
    counts: tuple[int, ...] = (0,) * FACES
    kind: str = NAMED

    def __post_init__(self) -> None:
        if len(self.counts) != FACES or any(c < 0 for c in self.counts):
            raise ValueError(f"die {self.die}: need six non-negative face counts")
        if self.kind not in KINDS:
            raise ValueError(f"die {self.die}: kind must be one of {', '.join(KINDS)}")

    @property
    def rolls(self) -> int:
        return sum(self.counts)

    def add(self, face: int) -> DieStats:
        """The statistics after one more roll showing ``face``."""
        if not 1 <= face <= FACES:
            raise ValueError(f"die {self.die}: face {face} is not 1 to 6")
        counts = list(self.counts)
        counts[face - 1] += 1
        return DieStats(self.die, tuple(counts), self.kind)

    def chi_square(self) -> float:
        """Pearson's statistic against a fair die (0 for no rolls)."""
        if self.rolls == 0:
            return 0.0
        expected = self.rolls / FACES
        return sum((c - expected) ** 2 / expected for c in self.counts)

    def p_value(self) -> float:
        """Probability that a fair die looks at least this uneven."""
        return chi_square_survival(self.chi_square(), FACES - 1)

    def verdict(self, alpha: float = DEFAULT_ALPHA) -> str:
        """``"too few rolls"``, ``"fair"`` or ``"suspicious"``."""
        if self.rolls < MIN_ROLLS:
            return "too few rolls"
        return "suspicious" if self.p_value() < alpha else "fair"
