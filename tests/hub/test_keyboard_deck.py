"""The keyboard deck of a seat without a reader: ``c`` at `risktable seat play` taps
the card the enrollment names, read from the display in every language."""

from __future__ import annotations

import pytest

from riskproto import messages
from risktable import i18n
from risktable.cards.enroll import Enrollment
from risktable.cards.keyboard_deck import (
    KEYBOARD_DECK_SIZE,
    asks_for_card,
    enrolling_position,
    keyboard_cards,
    keyboard_uid,
)
from risktable.demo.pilot import demo_card_uids
from risktable.i18n.layout import ltr_rows
from risktable.i18n.seat_view import written
from risktable.rules import Config, classic_board, new_game
from risktable.rules.state import DRAW
from risktable.table.session import TableSession


def shown(lines: list[str], lang: str) -> list[str]:
    """The rows a seat's display shows for the hub's ``lines`` (the seat wraps a
    left-to-right view itself; a right-to-left one comes in display rows)."""
    rows = written({"lines": lines}, lang)["lines"]
    return rows if lang in i18n.RIGHT_TO_LEFT else ltr_rows(rows)


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_the_card_asked_for_is_read_from_the_display(lang: str) -> None:
    enrollment = Enrollment(classic_board(), {})
    for card in range(7):
        assert enrollment.tap(keyboard_uid(card)).accepted and enrollment.confirm().accepted
    with i18n.using(lang):
        asking = enrollment.lines()
        assert enrollment.tap(keyboard_uid(7)).accepted
        turning = enrollment.lines()
        others = [i18n._("{who} enrolls cards").format(who="Ana"),
                  i18n._("{n} of {total} cards").format(n=7, total=44)]
    assert enrolling_position(shown(asking, lang), lang) == 7
    assert enrolling_position(shown(turning, lang), lang) == 7
    # The other seats' progress is not a card to tap, nor is a game's screen.
    assert enrolling_position(shown(others, lang), lang) is None
    assert enrolling_position(["Ana to play", "3 armies left"], lang) is None


def test_every_keyboard_tag_is_a_valid_card_tap_and_unique() -> None:
    cards = keyboard_cards()
    assert len(cards) == KEYBOARD_DECK_SIZE == classic_board().deck_size
    assert len({uid for uid, _ in cards}) == len(cards)
    assert cards[0][1] == "Alaska"
    for uid, _ in cards:
        messages.validate(messages.message("event", seat=1, seq=1, kind="card", uid=uid))


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_the_card_step_is_read_from_the_display(lang: str) -> None:
    # Seat 1 at the card step of its turn, as the hub writes its screen in lang.
    config = Config(3)
    start = new_game(config)._replace(draw_pile=(1, 2, 3), phase=DRAW, player=0)
    session = TableSession(config, [1, 2, 3], demo_card_uids(config.board, "1993"),
                           start=start)
    for seat in (1, 2):
        session.set_language(seat, lang)
    assert asks_for_card(shown(session.view(1)["lines"], lang), lang)
    # Another seat's card step, a game before it, an enrollment: no card asked of it.
    assert not asks_for_card(shown(session.view(2)["lines"], lang), lang)
    before = TableSession(config, [1, 2, 3], demo_card_uids(config.board, "1993"))
    before.set_language(1, lang)
    assert not asks_for_card(shown(before.view(1)["lines"], lang), lang)
    with i18n.using(lang):
        enrolling = Enrollment(classic_board(), {}).lines()
    assert not asks_for_card(shown(enrolling, lang), lang)
