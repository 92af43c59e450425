"""A phone seat enrolls the deck at a table with no card reader: the page (``seat.html``
in a real headless Chromium, in Portuguese) shows "Tap the card asked for" while the hub's
enrollment asks it for a card (the view's ``enroll``), and the button taps the keyboard
deck's tag of that card, as a PC's ``seat play`` does with ``c``. Real mosquitto with the
accounts, ACL and seat WebSockets listener of ``risktable broker config``, a real hub."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from pathlib import Path
from typing import Any

from risktable.cards.deck_file import EnrolledCard, deck_path, load_deck, save_deck
from risktable.cards.keyboard_deck import keyboard_uid
from risktable.config import TableConfig
from risktable.provision.phone_seat import seat_page_url
from risktable.rules import classic_board
from risktable.rules.board import SYMBOLS
from risktable.service.table_service import TableService
from tests.support.phone_table import page_data as _data
from tests.support.phone_table import page_lines as _lines
from tests.support.phone_table import phone_table, serve
from tests.support.waiting import value_within as _until

TABLE = "den"
SEATS = 3
PHONE = 2




def _click(driver: Any, button: str) -> None:
    driver.execute_script("document.getElementById(arguments[0]).click()", button)


def _shown(driver: Any, button: str) -> bool:
    return not driver.execute_script("return document.getElementById(arguments[0]).hidden",
                                     button)


def test_a_phone_seat_taps_the_card_the_enrollment_asks_for(tmp_path: Path,
                                                            browser: Any) -> None:
    # The hub keeps physical cards here: the deck is enrolled before a game starts.
    table = phone_table(tmp_path, TABLE, SEATS, "classic")
    creds = table.creds
    board = classic_board()
    data_dir = tmp_path / "hub"
    # An enrollment stopped after 40 cards (every card is enrolled the same way): the
    # phone carries on at card 41 of 44, a territory, then the two wilds.
    done = 40
    save_deck(deck_path(data_dir, "1993"), board, {
        keyboard_uid(card): EnrolledCard(card, board.card_symbols[card])
        for card in range(done)})
    table = replace(table, config=replace(table.config, table=TableConfig(
        id=TABLE, seats=SEATS, bots={1: "heuristic", 3: "heuristic"})))
    with contextlib.ExitStack() as stack:
        service = TableService(table.config)
        page, ws_url = serve(stack, table, service)
        account = creds["seats"][PHONE - 1]
        driver = browser
        driver.get(seat_page_url(page.url, TABLE, PHONE, account["username"],
                                 account["password"], ws_url, lang="pt"))
        _until("the page's link", lambda: _data(driver, "link") == "up")
        assert service.hub.wait_for_seats([PHONE], 20)
        # No enrollment yet: the game waits for its deck, and the page offers no card.
        _until("the waiting game's view", lambda: int(_data(driver, "views") or 0) > 0)
        assert not _shown(driver, "tap-card")

        service.start_enrollment(PHONE)
        for card in range(done, board.deck_size):
            _until(f"card {card + 1} asked for", lambda n=card: _data(driver, "enroll") == str(n)
                   and f"carta {n + 1} de 44" in _lines(driver))
            assert _shown(driver, "tap-card")
            assert driver.find_element("id", "tap-card").text == "Encoste a carta pedida"
            _click(driver, "tap-card")
            if card < board.size:
                # A territory card: the knob turns to the symbol printed on it.
                _until("the symbol asked for", lambda: any(
                    line.startswith("símbolo") for line in _lines(driver)))
                _click(driver, "right")
                turned = SYMBOLS[(board.card_symbols[card] + 1) % 3][:3]  # art, cav, inf
                _until("the symbol turned", lambda turned=turned: any(
                    turned in line.lower() for line in _lines(driver)
                    if line.startswith("símbolo")) and _data(driver, "outbox") == "0")
            else:
                _until("the wild tapped", lambda: "Confirme para salvar" in _lines(driver))
            _click(driver, "confirm")
        # The deck is whole: the game starts, the page asks for no card, and the phone
        # rolls for the start.
        _until("the opening roll armed", lambda: _data(driver, "armed") != "", 30)
        assert not _shown(driver, "tap-card") and _data(driver, "enroll") == ""
        assert service.enrolling is None and service.deck_problem() is None
    deck = load_deck(data_dir / "cards.json", board)
    assert {uid: card.card for uid, card in deck.items()} == {
        keyboard_uid(card): card for card in range(board.deck_size)}
    assert deck[keyboard_uid(done)].printed == (board.card_symbols[done] + 1) % 3
