"""Card enrollment as a pure state machine: one card at a time, by seat inputs.

For each card of the deck in turn the table lights its territory and asks
the player to tap that card on the seat's reader; the seat's encoder then
picks the symbol printed on it (starting at the engine's placeholder) and
Confirm stores it. Back goes to the previous card. A UID already enrolled
to another card is refused, so one tag can never stand for two cards.

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
"""

from __future__ import annotations

from dataclasses import dataclass

from risktable.cards.deck_file import EnrolledCard
from risktable.rules.board import SYMBOLS, WILD, Board

TERRITORY_SYMBOLS = tuple(i for i, name in enumerate(SYMBOLS) if i != WILD)


@dataclass(frozen=True)
class Step:
    """What an input did: accepted, or refused with the reason to show."""

    accepted: bool
    detail: str = ""


class Enrollment:
    """Enrolls ``board``'s deck, starting from the cards already in ``deck``."""

    def __init__(self, board: Board, deck: dict[str, EnrolledCard]) -> None:
        self.board = board
        self.deck = dict(deck)
        self._tapped: str | None = None
        self._symbol = 0
        self.position = self._first_missing(0)

    def _first_missing(self, start: int) -> int:
        enrolled = {c.card for c in self.deck.values()}
        position = start
        while position < self.board.deck_size and position in enrolled:
            position += 1
        return position

    @property
    def done(self) -> bool:
        return self.position >= self.board.deck_size

    @property
    def territory(self) -> str | None:
        """The territory id to light, or None for a wild card or when done."""
        if self.done or self.position >= self.board.size:
            return None
        return self.board.territory_ids[self.position]

    def _name(self) -> str:
        if self.position < self.board.size:
            return self.board.territory_names[self.position]
        return f"wild card {self.position - self.board.size + 1}"

    def lines(self) -> list[str]:
        """The seat's prompt (at most 4 lines of 24 characters)."""
        if self.done:
            return ["All cards enrolled", f"{len(self.deck)} cards"]
        progress = f"card {self.position + 1} of {self.board.deck_size}"
        if self._tapped is None:
            return ["Tap the card of", self._name()[:24], progress]
        if self.position >= self.board.size:
            return [self._name()[:24], "Confirm to store", progress]
        return [self._name()[:24], f"symbol: {SYMBOLS[self._symbol]}", "turn, then Confirm",
                progress]

    def tap(self, uid: str) -> Step:
        uid = uid.upper()
        if self.done:
            return Step(False, "every card is enrolled already")
        owner = self.deck.get(uid)
        if owner is not None and owner.card != self.position:
            return Step(False, f"this tag is already card {owner.card + 1}: tap another")
        self._tapped = uid
        self._symbol = (self.board.card_symbols[self.position]
                        if self.position < self.board.size else WILD)
        return Step(True)

    def turn(self, steps: int) -> Step:
        if self._tapped is None or self.position >= self.board.size:
            return Step(False, "tap the card first" if self._tapped is None
                        else "a wild card has no symbol to choose")
        i = TERRITORY_SYMBOLS.index(self._symbol)
        self._symbol = TERRITORY_SYMBOLS[(i + steps) % len(TERRITORY_SYMBOLS)]
        return Step(True)

    def confirm(self) -> Step:
        if self._tapped is None:
            return Step(False, "tap the card first")
        # A re-enrolled card drops the tag it had before.
        for uid, card in list(self.deck.items()):
            if card.card == self.position:
                del self.deck[uid]
        self.deck[self._tapped] = EnrolledCard(self.position, self._symbol)
        self._tapped = None
        self.position = self._first_missing(self.position + 1)
        return Step(True)

    def back(self) -> Step:
        if self._tapped is not None:
            self._tapped = None
            return Step(True)
        if self.position == 0:
            return Step(False, "this is the first card")
        self.position -= 1
        return Step(True)
