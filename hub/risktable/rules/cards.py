"""Card sets and their values (1993 deck: territory cards with a symbol, plus wilds).

Cards are integers indexing the board's deck table (``Board.card_symbols``):
card ``t`` pictures territory ``t`` for ``t < board.size``; the rest are wilds.
"""

from __future__ import annotations

from itertools import combinations

from risktable.rules.board import WILD

# The standard schedule: 4, 6, 8, 10, 12, 15, then +5 for each further set.
_STANDARD = (4, 6, 8, 10, 12, 15)


# card_values = fixed (a house rule other engines offer): by the set's make-up.
FIXED_VALUES = {"infantry": 4, "cavalry": 6, "artillery": 8, "mixed": 10, "wild": 12}


def fixed_value(symbols: tuple[int, int, int]) -> int:
    """``card_values = fixed``: three infantry 4, cavalry 6, artillery 8, one of each 10,
    any set with a wild 12.

    >>> [fixed_value(s) for s in ((0, 0, 0), (2, 2, 2), (0, 1, 2), (0, 0, 3))]
    [4, 8, 10, 12]
    """
    if WILD in symbols:
        return FIXED_VALUES["wild"]
    a, b, c = symbols
    if a == b == c:
        return FIXED_VALUES[("infantry", "cavalry", "artillery")[a]]
    return FIXED_VALUES["mixed"]


def set_value(sets_traded_before: int, schedule: str) -> int:
    """Armies for the next set, given how many sets the whole table has traded so far.

    >>> [set_value(n, "standard") for n in range(8)]
    [4, 6, 8, 10, 12, 15, 20, 25]
    >>> [set_value(n, "slow") for n in range(4)]
    [4, 5, 6, 7]
    """
    if schedule == "slow":
        return 4 + sets_traded_before
    if sets_traded_before < len(_STANDARD):
        return _STANDARD[sets_traded_before]
    return _STANDARD[-1] + 5 * (sets_traded_before - len(_STANDARD) + 1)


def is_set(symbols: tuple[int, int, int]) -> bool:
    """Three of a kind, one of each, or any two plus at least one wild."""
    a, b, c = symbols
    if WILD in symbols:
        return True
    return (a == b == c) or (a != b and b != c and a != c)


def sets_in_hand(
    hand: tuple[int, ...], card_symbols: tuple[int, ...]
) -> list[tuple[int, int, int]]:
    """Every tradeable set (sorted card triples) in ``hand``."""
    out: list[tuple[int, int, int]] = []
    for trio in combinations(hand, 3):
        if is_set((card_symbols[trio[0]], card_symbols[trio[1]], card_symbols[trio[2]])):
            out.append(trio)
    return out


def has_set(hand: tuple[int, ...], card_symbols: tuple[int, ...]) -> bool:
    """True when ``hand`` holds at least one set (always true from 5 cards)."""
    if len(hand) >= 5:
        return True
    return len(hand) >= 3 and bool(sets_in_hand(hand, card_symbols))
