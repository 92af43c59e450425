"""A phone seat asks for a hint: the page's Hint button (in headless Chromium, in
Portuguese) sends what a seat controller sends for it, Confirm held down, and the hub
answers on that seat's display alone with what the hard bot would do (docs/bots.md, "The
coach"). Real mosquitto with the accounts, ACL and seat WebSockets listener of
``risktable broker config``, a real hub."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from pathlib import Path
from typing import Any

from risktable.config import TableConfig
from risktable.provision.phone_seat import seat_page_url
from risktable.rules.state import CLAIM
from risktable.service.table_service import TableService
from tests.support.phone_table import page_data as _data
from tests.support.phone_table import page_lines as _lines
from tests.support.phone_table import phone_table, serve
from tests.support.waiting import value_within as _until

TABLE = "den"
SEATS = 3
PHONE = 2




def test_the_phone_seat_asks_for_a_hint_and_reads_it_on_its_display(tmp_path: Path,
                                                                   browser: Any) -> None:
    table = phone_table(tmp_path, TABLE, SEATS, "classic")
    # Bots at the other seats: the game comes to the phone's claim by itself.
    table = replace(table, config=replace(table.config, table=TableConfig(
        id=TABLE, seats=SEATS, cards="hub", bots={1: "heuristic", 3: "heuristic"})))
    with contextlib.ExitStack() as stack:
        service = TableService(table.config)
        page, ws_url = serve(stack, table, service)
        account = table.creds["seats"][PHONE - 1]
        driver = browser
        driver.get(seat_page_url(page.url, TABLE, PHONE, account["username"],
                                 account["password"], ws_url, lang="pt"))
        _until("the page's first view", lambda: int(_data(driver, "views") or 0) > 0)
        assert driver.execute_script(
            "const b = document.getElementById('ask-hint');"
            " return [b.textContent, b.offsetWidth > 0 && b.offsetHeight > 0]") == ["Dica", True]
        # The opening roll, rolled on the phone (again after a tie, when the page asks
        # again); then the bots claim until it is the phone's turn to claim.
        rolled: set[str] = set()

        def claiming() -> bool:
            armed = _data(driver, "armed")
            if armed and armed not in rolled:
                rolled.add(armed)
                driver.execute_script("document.getElementById('dice-roll').click()")
            return bool(service.inspect(
                lambda s: s.menu.player >= 0 and s.seats[s.menu.player] == PHONE
                and s.state.phase == CLAIM))

        _until("the phone's claim", claiming, 30)
        _until("nothing left waiting", lambda: _data(driver, "outbox") == "0")
        before = _lines(driver)
        actions = len(service.journal.actions(service.game_id))
        driver.execute_script("document.getElementById('ask-hint').click()")
        # The hint replaces the prompt on this seat's display, in the page's language.
        shown = _until("the hint on the display", lambda: [
            line for line in _lines(driver) if line.startswith("Dica")], 30)
        assert shown and _lines(driver) != before, (before, _lines(driver))
        _until("the hint answered", lambda: _data(driver, "outbox") == "0")
        # The game did not move: the phone still claims, nothing more is journalled.
        assert service.inspect(lambda s: s.seats[s.menu.player]) == PHONE
        assert len(service.journal.actions(service.game_id)) == actions
