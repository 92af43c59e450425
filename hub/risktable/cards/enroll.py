"""Card enrollment as a pure state machine: one card at a time, by seat inputs.

For each card of the deck in turn the table lights its territory and asks
the player to tap that card on the seat's reader; the seat's encoder then
picks what is printed on it (the symbol of a 1993 card, the stars of a 2016
card, starting at the engine's placeholder) and Confirm stores it. Back goes
to the previous card. A UID already enrolled to another card is refused, so
one tag can never stand for two cards.

>>> from risktable.rules import classic_board
>>> e = Enrollment(classic_board(), {})
>>> e.lines()[0]
'Tap the card of'
>>> e.tap("04A1B2C3").accepted
True
>>> e.confirm().accepted
True
>>> e.position
1
>>> stars = Enrollment(classic_board(), {}, deck="2016")
>>> stars.tap("04A1B2C3").accepted and stars.turn(1).accepted
True
>>> stars.lines()[1]
'stars: 1'
"""

from __future__ import annotations

from dataclasses import dataclass

from risktable import i18n
from risktable.cards.deck_file import EnrolledCard
from risktable.i18n import _
from risktable.rules.board import SYMBOLS, WILD, Board
from risktable.rules.decks import PLACEHOLDER_STARS, ceasefire_card, deck_cards
from risktable.table.prompts import fit

TERRITORY_SYMBOLS = tuple(i for i, name in enumerate(SYMBOLS) if i != WILD)
TERRITORY_STARS = (1, 2)


@dataclass(frozen=True)
class Step:
    """What an input did: accepted, or refused with the reason to show."""

    accepted: bool
    detail: str = ""


class Enrollment:
    """Enrolls ``board``'s ``deck`` ("1993" or "2016"), starting from the cards in ``cards``."""

    def __init__(self, board: Board, cards: dict[str, EnrolledCard], deck: str = "1993") -> None:
        self.board = board
        self.deck = deck
        self.cards = deck_cards(board, deck)
        self.enrolled = dict(cards)
        self._tapped: str | None = None
        self._printed = 0
        self.position = self._first_missing(0)

    @property
    def size(self) -> int:
        """How many cards the deck has."""
        return len(self.cards)

    def _first_missing(self, start: int) -> int:
        enrolled = {c.card for c in self.enrolled.values()}
        position = start
        while position < self.size and self.cards[position] in enrolled:
            position += 1
        return position

    @property
    def done(self) -> bool:
        return self.position >= self.size

    @property
    def card(self) -> int | None:
        """The engine index of the card being enrolled, or None when done."""
        return None if self.done else self.cards[self.position]

    @property
    def territory(self) -> str | None:
        """The territory id to light, or None for a wild or ceasefire card or when done."""
        card = self.card
        if card is None or card >= self.board.size:
            return None
        return self.board.territory_ids[card]

    def _name(self, card: int) -> str:
        if card < self.board.size:
            return i18n.territory(self.board.territory_names[card])
        if card == ceasefire_card(self.board):
            return _("the ceasefire card")
        return _("wild card {n}").format(n=card - self.board.size + 1)

    def _placeholder(self, card: int) -> int:
        # What the engine assumes is printed, so a deck that matches needs no turning.
        if self.deck == "1993":
            return self.board.card_symbols[card] if card < self.board.size else WILD
        return PLACEHOLDER_STARS[card] if card < self.board.size else 0

    def _choices(self) -> tuple[int, ...]:
        return TERRITORY_SYMBOLS if self.deck == "1993" else TERRITORY_STARS

    def _printed_text(self) -> str:
        if self.deck == "1993":
            return _("symbol: {symbol}").format(symbol=_symbol(SYMBOLS[self._printed]))
        return _("stars: {n}").format(n=self._printed)

    def lines(self) -> list[str]:
        """The seat's prompt (at most 4 lines of 24 characters)."""
        card = self.card
        if card is None:
            return [_("All cards enrolled"), i18n.ngettext("{n} card", "{n} cards", len(
                self.enrolled)).format(n=len(self.enrolled))]
        progress = _("card {n} of {total}").format(n=self.position + 1, total=self.size)
        if self._tapped is None:
            return [_("Tap the card of"), fit(self._name(card)), progress]
        if card >= self.board.size:
            return [fit(self._name(card)), _("Confirm to store"), progress]
        return [fit(self._name(card)), self._printed_text(), _("turn, then Confirm"), progress]

    def tap(self, uid: str) -> Step:
        uid = uid.upper()
        card = self.card
        if card is None:
            return Step(False, _("Every card is enrolled already"))
        owner = self.enrolled.get(uid)
        if owner is not None and owner.card != card:
            taken = self.cards.index(owner.card) + 1
            return Step(False, _("This tag is already card {card}: tap another").format(
                card=taken))
        self._tapped = uid
        self._printed = self._placeholder(card)
        return Step(True)

    def turn(self, steps: int) -> Step:
        card = self.card
        if self._tapped is None or card is None or card >= self.board.size:
            return Step(False, _("Tap the card first") if self._tapped is None
                        else _("This card has nothing to choose"))
        choices = self._choices()
        i = choices.index(self._printed)
        self._printed = choices[(i + steps) % len(choices)]
        return Step(True)

    def confirm(self) -> Step:
        card = self.card
        if self._tapped is None or card is None:
            return Step(False, _("Tap the card first"))
        # A re-enrolled card drops the tag it had before.
        for uid, old in list(self.enrolled.items()):
            if old.card == card:
                del self.enrolled[uid]
        self.enrolled[self._tapped] = EnrolledCard(card, self._printed)
        self._tapped = None
        self.position = self._first_missing(self.position + 1)
        return Step(True)

    def back(self) -> Step:
        if self._tapped is not None:
            self._tapped = None
            return Step(True)
        if self.position == 0:
            return Step(False, _("This is the first card"))
        self.position -= 1
        return Step(True)


def _symbol(name: str) -> str:
    return i18n.pgettext("symbol", name)
