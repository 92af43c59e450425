"""The decks as data: 2016 star cards, the ceasefire card and the 1993 secret missions.

Cards are integers. For both decks card ``t < board.size`` pictures territory
``t``; the 1993 wilds follow (``board.size``, ``board.size + 1``) and the 2016
ceasefire card is :func:`ceasefire_card` (just past the wilds, so a card index
means the same card whichever deck is in play). Mission cards are not part of
that numbering: they are indices into :data:`MISSIONS`.

Which 2016 territory cards carry two stars is printed on the physical deck and
no public source lists it (docs/variants.md, 2016), so the table learns it when
the deck is enrolled. :data:`PLACEHOLDER_STARS` is **not** that assignment: it
is a made-up spread with the reported totals (30 one-star, 12 two-star cards),
for self-play and tests only.
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

from risktable.rules.board import SYMBOLS, WILD, Board, classic_board

# Armies for the total stars traded (2..10 stars): the board's card table, docs/variants.md.
STAR_VALUES: dict[int, int] = {2: 2, 3: 4, 4: 7, 5: 10, 6: 13, 7: 17, 8: 21, 9: 25, 10: 30}
MIN_STARS = 2
MAX_STARS = 10


def _placeholder_stars(board: Board) -> tuple[int, ...]:
    # Twelve territories spread evenly through the file order: obviously artificial,
    # with the 30/12 split one implementation reports.
    stars = [1] * board.size
    for i in range(12):
        stars[i * board.size // 12] = 2
    return tuple(stars)


PLACEHOLDER_STARS: tuple[int, ...] = _placeholder_stars(classic_board())
"""A PLACEHOLDER assignment of stars (not the printed deck): 30 one-star, 12 two-star cards."""


def with_symbols(board: Board, symbols: dict[str, str]) -> Board:
    """``board`` with the 1993 deck's symbols as enrolled: territory id -> ``infantry``,
    ``cavalry`` or ``artillery`` for every territory card (the wilds stay wild).

    The classic map file's symbols are a labelled placeholder; a physical deck's
    come from card enrollment and are passed here. ``ValueError`` when a territory
    is missing or unknown, or a symbol is not one of the three.
    """
    ids = board.territory_ids
    if set(symbols) != set(ids):
        missing = sorted(set(ids) - set(symbols))[:3]
        unknown = sorted(set(symbols) - set(ids))[:3]
        raise ValueError(f"enrolled symbols must name every territory card once "
                         f"(missing {missing}, unknown {unknown})")
    names = SYMBOLS[:WILD]
    bad = sorted(t for t, v in symbols.items() if v not in names)
    if bad:
        raise ValueError(f"symbols are {', '.join(names)}; not so for {bad[:3]}")
    cards = tuple(names.index(symbols[t]) for t in ids) + board.card_symbols[board.size:]
    return replace(board, card_symbols=cards)


def ceasefire_card(board: Board) -> int:
    """The ceasefire card's index: after the territory cards and the two 1993 wilds."""
    return board.deck_size


def deck_cards(board: Board, deck: str) -> tuple[int, ...]:
    """The card indices of ``deck`` ("1993" or "2016"): the territory cards, then the
    1993 deck's wilds or the 2016 deck's ceasefire card."""
    if deck == "1993":
        return tuple(range(board.deck_size))
    if deck == "2016":
        return (*range(board.size), ceasefire_card(board))
    raise ValueError(f"unknown deck {deck!r}; the decks are 1993 and 2016")


class Mission(NamedTuple):
    """One secret mission card.

    ``kind`` is ``continents`` (own every territory of ``continents``, plus
    ``extra_continents`` more of the player's choice), ``territories`` (own at
    least ``holding`` territories with at least ``armies`` armies each) or
    ``destroy`` (eliminate seat ``target``).
    """

    id: str
    kind: str
    continents: tuple[str, ...] = ()
    extra_continents: int = 0
    holding: int = 0
    armies: int = 1
    target: int = -1


MISSIONS: tuple[Mission, ...] = (
    Mission("north_america_africa", "continents", ("north_america", "africa")),
    Mission("north_america_australia", "continents", ("north_america", "australia")),
    Mission("asia_south_america", "continents", ("asia", "south_america")),
    Mission("asia_africa", "continents", ("asia", "africa")),
    Mission("territories_18_two_armies", "territories", holding=18, armies=2),
    Mission("territories_24", "territories", holding=24),
    *(Mission(f"destroy_{seat}", "destroy", target=seat) for seat in range(6)),
    # Some European decks (option european_missions):
    Mission("europe_south_america_third", "continents", ("europe", "south_america"), 1),
    Mission("europe_australia_third", "continents", ("europe", "australia"), 1),
)
"""The 12 missions of the 1993 US deck, then the two European ones. Destroy missions
name a seat ("colour" = the seat's colour)."""

OCCUPY_24 = MISSIONS.index(Mission("territories_24", "territories", holding=24))
EUROPEAN = (12, 13)


def mission_deck(players: int, european: bool, rules: int) -> tuple[int, ...]:
    """Mission indices dealt from: all 12 cards (14 with ``european``) since rules
    version 2; version 1 left out the destroy cards of seats not in the game.

    >>> len(mission_deck(3, False, 2)), len(mission_deck(3, False, 1))
    (12, 9)
    """
    return tuple(i for i, m in enumerate(MISSIONS)
                 if (m.kind != "destroy" or m.target < players or rules >= 2)
                 and (european or i not in EUROPEAN))


def mission_index(name: str) -> int:
    """A mission's index from its id; ``KeyError`` if unknown."""
    for i, m in enumerate(MISSIONS):
        if m.id == name:
            return i
    raise KeyError(name)
