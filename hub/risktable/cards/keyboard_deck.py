"""The cards of a seat without a reader: a PC's keyboard seat (``risktable seat play``).

Such a seat has no physical cards to tap, so it taps made-up tags, one per card of
the deck's order: :func:`keyboard_uid` of position 0 is the first card an enrollment
asks for (Alaska), and so on. Every keyboard seat knows them all, so a table whose
deck was enrolled at a keyboard seat draws and trades at any keyboard seat without
the hub's deck file. The hub cannot tell these tags from a reader's: they are
enrolled like any other (a table with NFC seats enrolls its printed cards there).

While the seat enrolls, ``c`` taps the card its display names: the position is read
from the enrollment's progress line (``card 3 of 44``), written as the hub writes it
in the seat's language (:func:`enrolling_position`). In a game ``c`` taps a card
only while the display asks this seat for one (:func:`asks_for_card`): a person
draws at the card step, not at any other moment.

>>> keyboard_uid(0), keyboard_uid(43)
('4B420000', '4B42002B')
>>> enrolling_position(["Tap the card of", "Alaska", "card 3 of 44"], "en")
2
>>> enrolling_position(["Ana enrolls cards", "3 of 44 cards"], "en") is None
True
>>> asks_for_card(["Draw a card and", "tap it", "on your reader"], "en")
True
>>> asks_for_card(["Seat 1 draws a", "card"], "en")
False
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from risktable import i18n

# The most cards a deck has (the 1993 deck: 42 territories and 2 wilds).
KEYBOARD_DECK_SIZE = 44
_PREFIX = "4B42"  # "KB": no reader's tag starts so (NXP tags start 04)
_NUMBER = re.compile(r"\d+")


def keyboard_uid(position: int) -> str:
    """The tag a keyboard seat taps for the card at ``position`` of the deck's order."""
    return f"{_PREFIX}{position:04X}"


def keyboard_cards(lang: str = i18n.DEFAULT) -> list[tuple[str, str]]:
    """Every keyboard tag with the card's name in ``lang`` (the 1993 deck's order;
    the 2016 deck's first 42 are the same territories, its 43rd the ceasefire card)."""
    from risktable.rules import classic_board

    board = classic_board()
    with i18n.using(lang):
        names = [i18n.territory(name) for name in board.territory_names]
        extra = [i18n._("wild card {n}").format(n=n + 1)
                 for n in range(KEYBOARD_DECK_SIZE - board.size)]
    return [(keyboard_uid(i), name) for i, name in enumerate([*names, *extra])]


def _ascii_digits(text: str) -> str:
    # Digits of any script (Persian ۳) read as ASCII, so a line compares whatever
    # digits the hub wrote it with.
    return "".join(str(unicodedata.decimal(c)) if unicodedata.decimal(c, None) is not None
                   else c for c in text)


def _rows(line: str, lang: str) -> tuple[str, ...]:
    # A line (in lang already) as the seat's display shows it: wrapped into rows, and
    # for a right-to-left language shaped and in visual order (risktable.i18n.seat_view).
    from risktable.i18n.layout import ltr_rows
    from risktable.i18n.seat_view import written

    rows = (written({"lines": [line]}, lang)["lines"] if lang in i18n.RIGHT_TO_LEFT
            else ltr_rows([line]))
    return tuple(_ascii_digits(row) for row in rows)


def _shows(shown: list[str], rows: tuple[str, ...]) -> bool:
    return any(tuple(shown[i:i + len(rows)]) == rows for i in range(len(shown)))


@cache
def _progress_rows(lang: str, n: int, total: int) -> tuple[str, ...]:
    with i18n.using(lang):
        return _rows(i18n._("card {n} of {total}").format(n=n, total=total), lang)


@cache
def _card_step_rows(lang: str) -> tuple[tuple[str, ...], ...]:
    # The lines of the card step's question (risktable.table.prompts) that name no one:
    # a card to draw, a dealt card, a card dealt or set aside for a neutral.
    with i18n.using(lang):
        lines = [i18n._("Draw a card and tap it"), i18n._("Tap your dealt card"),
                 i18n._("tap it on your reader"), i18n._("your reader, face down")]
        return tuple(_rows(line, lang) for line in lines)


def enrolling_position(lines: list[str], lang: str) -> int | None:
    """The position (from 0) of the card an enrollment asks this seat for, read from
    its display ``lines`` in ``lang``; None when the display shows no enrollment."""
    shown = [_ascii_digits(line) for line in lines]
    numbers = sorted({int(n) for line in shown for n in _NUMBER.findall(line)})
    for total in numbers:
        for n in numbers:
            if not 1 <= n <= total:
                continue
            if _shows(shown, _progress_rows(lang, n, total)):
                return n - 1
    return None


def asks_for_card(lines: list[str], lang: str) -> bool:
    """Whether the display ``lines`` (in ``lang``) ask this seat to tap a card from the
    pile: to draw one, or the card dealt to it or to a neutral."""
    shown = [_ascii_digits(line) for line in lines]
    return any(_shows(shown, rows) for rows in _card_step_rows(lang))
