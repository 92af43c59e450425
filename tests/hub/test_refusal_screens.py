"""Every refusal code of protocol/README.md, earned from the real hub and read on the seat's
screen: a TableService on mosquitto is sent the payload that earns each refusal, and the
error it publishes is laid out as the seat shows it (seat/refusal.py through the seat's
display code, tests/support/oled_text.py). Codes the table session gives for inputs the
protocol cannot carry (a garbled card, a seat outside the game) are earned from the
session directly."""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from riskproto import OUTBOX_CAPACITY, messages, topics
from risktable.broker_address import BrokerAddress
from risktable.rules import state as st
from risktable.service.hub import HubService
from risktable.service.table_service import TableService
from tests.e2e.hub_driver import LedLog, Watcher, start_service
from tests.support.mosquitto import Mosquitto
from tests.support.oled_text import ROWS, drawn, layout, refusal_lines, shown_text
from tests.table.inputs import new_session, session_at
from tests.table.test_screen_catalogue import protocol_codes

TABLE = "refuse"
CONFIRM = {"kind": "button", "button": "confirm", "press": "short"}
RESYNC = {"kind": "resync"}
UNREADABLE = "The hub could not read that input: try again"


class Table:
    """The hub of a 3-seat classic table, and a client that publishes seat 1..3's
    payloads byte for byte and reads what the hub answers."""

    def __init__(self, broker: Mosquitto, data_dir: Path) -> None:
        self.service: TableService = start_service(broker.host, broker.port, TABLE, 3,
                                                   data_dir, LedLog())
        self.watcher = Watcher(broker.host, broker.port, TABLE)
        self.seq = {seat: 0 for seat in range(1, 4)}

    def close(self) -> None:
        self.watcher.close()
        self.service.stop()

    def publish(self, seat: int, payload: bytes) -> dict[str, Any]:
        """Publish ``payload`` on ``seat``'s event topic; the hub's answer."""
        answers = self.watcher.answers
        self.watcher.publish(topics.seat(TABLE, seat, topics.SEAT_EVENT), payload)
        self.watcher.wait_answers(answers + 1, timeout=20)
        answer = [r for r in self.watcher.received
                  if r.topic.rsplit("/", 1)[1] in (topics.SEAT_ACK, topics.SEAT_ERROR)][-1]
        assert answer.doc is not None
        return answer.doc

    def event(self, seat: int, fields: dict[str, Any], seq: int | None = None) -> dict[str, Any]:
        """Send an event numbered next (or ``seq``) from ``seat``; the hub's answer."""
        if seq is None:
            self.seq[seat] += 1
            seq = self.seq[seat]
        msg = messages.message("event", seat=seat, seq=seq, **fields)
        return self.publish(seat, json.dumps(msg).encode())


@pytest.fixture
def table(mosquitto: Mosquitto, tmp_path: Path) -> Iterator[Table]:
    table = Table(mosquitto, tmp_path / "data")
    yield table
    table.close()


def read_on_screen(error: dict[str, Any], code: str, says: str) -> None:
    """``error`` is a refusal ``code`` whose screen at the seat reads ``says`` whole."""
    assert error["t"] == "error" and error["code"] == code, error
    rows = layout(refusal_lines(error))
    assert shown_text(rows) == says, (error, rows)
    assert drawn(refusal_lines(error)) <= ROWS, error


def test_unreadable_payloads_are_refused_in_the_seats_words(table: Table) -> None:
    read_on_screen(table.publish(2, b"{not json"), messages.E_MALFORMED, UNREADABLE)
    read_on_screen(table.publish(2, b'{"pad": "' + b"x" * 1100 + b'"}'), messages.E_TOO_LARGE,
                   UNREADABLE)
    other = messages.message("event", seat=2, seq=1, kind="resync")
    other["v"] = messages.PROTOCOL_VERSION + 1
    error = table.publish(2, json.dumps(other).encode())
    assert "version 2 is not supported" in error["detail"]
    read_on_screen(error, messages.E_VERSION, "This seat's firmware does not match the hub")
    table.seq[2] = 1  # the version refusal answered event 1
    error = table.event(2, {"kind": "dance"})
    assert error["field"] == "kind"
    read_on_screen(error, messages.E_SCHEMA, UNREADABLE)


def test_a_seat_beyond_the_table_is_told_it_is_not_at_this_table(table: Table) -> None:
    msg = messages.message("event", seat=4, seq=1, **RESYNC)
    error = table.publish(4, json.dumps(msg).encode())
    assert error["detail"] == "seat 4 is not playing at this table of 3"
    read_on_screen(error, messages.E_UNKNOWN_SEAT, "This seat is not at this table")


def test_resends_and_numbers_out_of_order_are_refused_in_the_seats_words(
        table: Table) -> None:
    for _ in range(70):
        assert table.event(3, RESYNC)["t"] == "ack"
    read_on_screen(table.event(3, RESYNC, seq=70), messages.E_DUPLICATE,
                   "The hub had this input already")
    read_on_screen(table.event(3, RESYNC, seq=2), messages.E_STALE,
                   "That input came too late for the hub")
    error = table.event(3, RESYNC, seq=71 + OUTBOX_CAPACITY)
    assert error["detail"] == f"event {71 + OUTBOX_CAPACITY} is too far ahead: the hub expects 71"
    read_on_screen(error, messages.E_NOT_ALLOWED, "Inputs got out of order: try again")


def test_the_games_refusals_show_the_hubs_words(table: Table) -> None:
    # The opening roll: every seat rolls its die, nobody chooses.
    read_on_screen(table.event(1, CONFIRM), messages.E_NOT_ALLOWED,
                   "Waiting for the dice: nothing to choose now")
    table.service.set_paused(True)
    read_on_screen(table.event(1, CONFIRM), messages.E_NOT_ALLOWED,
                   "The referee has paused the game")
    table.service.set_paused(False)
    table.service.new_game(rules="two_player_1993")
    read_on_screen(table.event(3, CONFIRM), messages.E_NOT_ALLOWED,
                   "Seat 3 does not play in this game")
    table.service.start_enrollment(2, restart=True)
    read_on_screen(table.event(1, CONFIRM), messages.E_NOT_ALLOWED,
                   "Cards are being enrolled at seat 2")
    read_on_screen(table.event(2, CONFIRM), messages.E_NOT_ALLOWED, "Tap the card first")
    roll = {"kind": "button", "button": "roll", "press": "short"}
    read_on_screen(table.event(2, roll), messages.E_NOT_ALLOWED,
                   "Tap the card, turn to what it shows, press Confirm")


def test_a_hub_without_a_game_says_so(mosquitto: Mosquitto) -> None:
    hub = HubService(BrokerAddress(mosquitto.host, mosquitto.port), TABLE + "-idle", 2)
    hub.start()
    watcher = Watcher(mosquitto.host, mosquitto.port, TABLE + "-idle")
    try:
        msg = messages.message("event", seat=1, seq=1, **CONFIRM)
        watcher.publish(topics.seat(TABLE + "-idle", 1, topics.SEAT_EVENT),
                        json.dumps(msg).encode())
        watcher.wait_answers(1, timeout=20)
        (answer,) = [r.doc for r in watcher.received if r.topic.endswith("/error")]
        assert answer is not None
        read_on_screen(answer, messages.E_NOT_ALLOWED, "No game is running at this table")
    finally:
        watcher.close()
        hub.stop()


def test_a_finished_game_refuses_in_the_sessions_words() -> None:
    over = new_session(3).state._replace(phase=st.GAME_OVER, winner=0)
    out = session_at(over).handle(2, dict(CONFIRM))
    assert out.error is not None
    read_on_screen(messages.error_reply(out.error), messages.E_NOT_ALLOWED, "The game is over")


def test_inputs_the_protocol_cannot_carry_are_refused_by_the_session() -> None:
    # A card event without its uid, a seat the hub does not serve: the gate refuses
    # them before the session could (tests above), so the session's own words for
    # them are earned from the session.
    session = new_session(3)
    out = session.handle(1, {"kind": "card"})
    assert out.error is not None
    read_on_screen(messages.error_reply(out.error), messages.E_SCHEMA,
                   "The card was not read: tap it again")
    out = session.handle(6, dict(RESYNC))
    assert out.error is not None
    read_on_screen(messages.error_reply(out.error), messages.E_UNKNOWN_SEAT,
                   "Seat 6 does not play in this game")


def test_every_refusal_code_of_the_protocol_is_read_on_a_screen_here() -> None:
    # A code added to protocol/README.md needs a test here: each code is named by a
    # read_on_screen call of a test of this module, which fails unless the hub (or the
    # session) earned exactly that code. Read from the source, so the check holds
    # whichever tests of the module a run (or an xdist worker) took, in any order.
    called: set[str] = set()
    for node in ast.walk(ast.parse(Path(__file__).read_text())):
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            for call in ast.walk(node):
                if isinstance(call, ast.Call) and getattr(call.func, "id", "") == \
                        "read_on_screen" and isinstance(call.args[1], ast.Attribute):
                    called.add(getattr(messages, call.args[1].attr))
    assert protocol_codes() - called == set()
