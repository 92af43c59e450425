"""Card enrollment end to end: mosquitto, `risktable cards enroll`, a seat tapping cards."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from riskproto import messages, topics
from risktable.cards.deck_file import load_deck
from risktable.cards.enroll import Enrollment
from risktable.rules import classic_board
from risktable.rules.board import SYMBOLS, WILD
from tests.support.mosquitto import Mosquitto
from tests.support.mqtt_client import Recorder
from tests.support.tools import subprocess_env

TABLE = "enroll"


class Seat:
    """Seat 2's inputs, each waited for until the hub answers it."""

    def __init__(self, broker: Mosquitto, seat: int = 2) -> None:
        self.seat = seat
        self.seq = 0
        self.client = Recorder(broker.host, broker.port, f"seat{seat}")
        self.client.subscribe(f"risk/{TABLE}/seat/{seat}/+")

    def send(self, kind: str, **fields: object) -> dict[str, object]:
        self.seq += 1
        seq = self.seq
        msg = messages.message("event", seat=self.seat, seq=seq, kind=kind, **fields)
        self.client.publish(topics.seat(TABLE, self.seat, "event"), messages.encode(msg))
        _, answer, _ = self.client.wait_for(
            lambda t, m, r: m is not None and m.get("seq") == seq
            and (t.endswith("/ack") or t.endswith("/error")))
        assert answer is not None
        return answer


def enroll(broker: Mosquitto, data_dir: Path, *extra: str) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "risktable", "cards", "enroll", "--broker",
         f"{broker.host}:{broker.port}", "--table", TABLE, "--seats", "3", "--seat", "2",
         "--data-dir", str(data_dir), *extra],
        env=subprocess_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None
    first = process.stdout.readline()  # the hub is online once it says what it enrolls
    assert "enrolling at seat 2" in first, first + (process.stderr.read() if process.stderr else "")
    return process


def uid(card: int) -> str:
    return f"04{card:02X}A1B2C3D4E5"


def test_whole_deck_with_refusals_and_a_restart(fresh_mosquitto: Mosquitto, tmp_path: Path) -> None:
    board = classic_board()
    process = enroll(fresh_mosquitto, tmp_path)
    seat = Seat(fresh_mosquitto)
    # Five cards, the second one with its symbol turned one step on.
    for card in range(5):
        assert seat.send("card", uid=uid(card))["t"] == "ack"
        if card == 1:
            assert seat.send("encoder", steps=1)["t"] == "ack"
        assert seat.send("button", button="confirm", press="short")["t"] == "ack"
    # A tag already on card 0 cannot become card 5; another seat may not take part.
    refused = seat.send("card", uid=uid(0))
    assert refused["code"] == "not_allowed" and "already" in str(refused["detail"])
    other = Seat(fresh_mosquitto, seat=3)
    assert other.send("card", uid=uid(9))["code"] == "not_allowed"
    process.terminate()
    assert process.wait(timeout=10) == 1  # interrupted before the end
    seat.client.close()
    other.client.close()

    # Progress survived: the next run starts at card 6 and finishes the deck.
    process = enroll(fresh_mosquitto, tmp_path)
    seat = Seat(fresh_mosquitto)
    for card in range(5, board.deck_size):
        assert seat.send("card", uid=uid(card))["t"] == "ack", card
        assert seat.send("button", button="confirm", press="short")["t"] == "ack"
    assert process.wait(timeout=10) == 0
    seat.client.close()

    deck = load_deck(tmp_path / "cards.json", board)
    assert len(deck) == board.deck_size
    assert {c.card for c in deck.values()} == set(range(board.deck_size))
    placeholder = board.card_symbols
    turned = (placeholder[1] + 1) % 3
    assert deck[uid(1)].symbol == turned
    assert all(deck[uid(c)].symbol == placeholder[c] for c in range(board.deck_size) if c != 1)
    assert all(deck[uid(c)].symbol == WILD for c in range(board.size, board.deck_size))
    doc = json.loads((tmp_path / "cards.json").read_text())
    assert doc["cards"][uid(1)] == {"card": "northwest_territory", "symbol": SYMBOLS[turned]}


def test_back_and_retap_replace_a_card() -> None:
    board = classic_board()
    enrollment = Enrollment(board, {})
    assert enrollment.tap("AA00AA00").accepted and enrollment.confirm().accepted
    assert enrollment.back().accepted and enrollment.position == 0
    assert enrollment.tap("BB00BB00").accepted and enrollment.confirm().accepted
    assert set(enrollment.deck) == {"BB00BB00"}
    assert not enrollment.turn(1).accepted  # nothing tapped yet for card 2
