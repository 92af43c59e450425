"""Two devices on one seat's account, with real processes: the seat firmware (MicroPython
unix port) and the phone seat page (headless Chromium) log in as the same seat of a real
mosquitto with the accounts and ACL of ``risktable broker config``, against a real hub,
and are both played for more than 30 s.

The account holds one connection at a time (the broker gives every client its user name
as id, so a new connection takes the old one over): the two devices take turns on it.
Checked (protocol/README.md, "Two devices on one seat's account"): every input either
device makes is applied once, in the order that device made it, numbered without a gap
by that device; neither is ever answered "too far ahead" or a conflict (another event
under one of its numbers); and at the end both have nothing left waiting.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from riskproto.messages import ProtocolError
from risktable.provision.phone_seat import seat_page_url
from risktable.service.table_service import TableService
from tests.firmware.seats import SeatProcess
from tests.firmware.seats import write_config as write_seat_config
from tests.support.phone_table import page_data as _data
from tests.support.phone_table import phone_table, serve
from tests.support.waiting import value_within as _until

TABLE = "den"
RULES = "capital_1993_short"
SEATS = 3
SEED = 11
PLAYED_FOR = 30.0  # seconds both devices are kept on the account and played
FIRMWARE_STEPS = 3  # the firmware turns the knob 3 detents at a time, the page 1



@pytest.mark.slow
def test_a_firmware_and_a_phone_page_share_a_seat_account_and_neither_is_locked_out(
        tmp_path: Path, browser: Any, micropython: str, caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="risktable")
    table = phone_table(tmp_path, TABLE, SEATS, RULES)
    creds = table.creds
    rules, cards, config = table.rules, table.cards, table.config
    answers: list[tuple[int, dict[str, Any], ProtocolError | None]] = []
    answered = threading.Condition()

    def on_input(seat: int, msg: dict[str, Any], error: ProtocolError | None) -> None:
        with answered:
            answers.append((seat, msg, error))
            answered.notify_all()

    with contextlib.ExitStack() as stack:
        service = TableService(config, rules=rules, card_uids=cards, seed=SEED,
                               on_input=on_input)
        page, ws_url = serve(stack, table, service)
        # Both devices play the seat that acts first: its encoder moves its cursor,
        # and every turn of it is applied (the game stays where it is).
        seat = service.inspect(lambda s: s.seats[s.menu.player])
        account = creds["seats"][seat - 1]
        firmware = SeatProcess(micropython, write_seat_config(
            tmp_path, TABLE, seat, table.port,
            broker={"username": account["username"], "password": account["password"]}))
        stack.callback(firmware.stop)
        firmware.wait_output(lambda line: line.get("net") == "up", 20)
        assert service.hub.wait_for_seats([seat], 20)
        browser.get(seat_page_url(page.url, TABLE, seat, account["username"],
                                  account["password"], ws_url, 2))
        _until("the page's first view", lambda: int(_data(browser, "views") or 0) > 0, 30)
        started = time.monotonic()
        made = {"firmware": [], "page": []}  # type: dict[str, list[int]]
        direction = 1
        while time.monotonic() - started < PLAYED_FOR or not made["page"]:
            # The firmware: one turn, typed until the seat numbers it, then answered.
            steps = FIRMWARE_STEPS * direction
            seq = firmware.type_line({"encoder": steps}, timeout=60)
            made["firmware"].append(steps)
            with answered:
                assert answered.wait_for(lambda seq=seq, steps=steps: any(
                    msg["seq"] == seq and msg.get("steps") == steps
                    for _, msg, _ in answers), 60), f"firmware event {seq} never answered"
            # The page: one turn of its knob (numbered once the page's 150 ms for joining
            # taps is over), answered: its outbox empty again.
            after = int(_data(browser, "next")) + 1
            browser.execute_script(
                "document.getElementById(arguments[0]).click()",
                "right" if direction > 0 else "left")
            made["page"].append(direction)
            _until("the page's turn answered", lambda after=after: _data(browser, "next")
                   == str(after) and _data(browser, "outbox") == "0", 60)
            direction = -direction
        played = time.monotonic() - started
        assert firmware.process.poll() is None, "the firmware is still running"
        assert _data(browser, "outbox") == "0"

    # Every input answered by the game (the opening roll refuses a turn of the knob: an
    # answer in its turn all the same), once, in the order each device made it, numbered
    # 1, 2, 3, ... by that device; the hub refused none by its number.
    answered_to = {FIRMWARE_STEPS: [], 1: []}  # type: dict[int, list[tuple[int, int]]]
    for answered_seat, msg, _ in answers:
        assert answered_seat == seat and msg["kind"] == "encoder", msg
        answered_to[abs(msg["steps"])].append((msg["seq"], msg["steps"]))
    assert answered_to[FIRMWARE_STEPS] == [(i + 1, s) for i, s in enumerate(made["firmware"])]
    assert answered_to[1] == [(i + 1, s) for i, s in enumerate(made["page"])]
    said = caplog.text
    assert "too far ahead" not in said and "differs from the event" not in said
    births = said.count(f"seat {seat} online")
    print(f"shared seat account: {len(made['firmware'])} firmware and {len(made['page'])} "
          f"page inputs in {played:.1f} s, {births} births of seat {seat}")
