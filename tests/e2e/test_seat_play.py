"""A person's seat on a PC (`risktable seat play --seat N`), walked in a pseudo-terminal:
the table's own broker (accounts from `risktable broker config`), a hub with bots at the
other seats, and the seat's configuration from `risktable seat config` with its broker
account. The keys reach the seat firmware and the hub; the terminal shows the seat."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from risktable.broker_address import BrokerAddress
from risktable.cards.deck_file import EnrolledCard, deck_path, load_deck, save_deck
from risktable.cards.keyboard_deck import keyboard_uid
from risktable.cli import main
from risktable.config import BrokerConfig, HubConfig, LedConfig, TableConfig
from risktable.rules import classic_board
from risktable.service.table_service import TableService
from tests.e2e.test_demo_keyboard import ROLL_ASKED, Terminal
from tests.support.mosquitto import Mosquitto, free_port
from tests.support.tools import mosquitto_binary
from tests.table.inputs import CARDS

TABLE = "den"


def leave(term: Terminal) -> None:
    """The person leaves the seat with q; seat play ends with status 0."""
    term.type(b"q")
    term.wait_for(rb"You left the seat\.")
    assert term.close() == 0


def broker_and_seat(tmp_path: Path, seat: int, capsys: pytest.CaptureFixture[str],
                    ) -> tuple[int, Path, dict[str, Any], Path]:
    """The table's broker accounts (`risktable broker config`, 3 seats) and ``seat``'s
    configuration with its account (`risktable seat config`): the broker's port and
    folder, its credentials, the seat's configuration file."""
    port = free_port()
    broker_dir = tmp_path / "broker"
    assert main(["broker", "config", "--seats", "3", "--table", TABLE, "--port", str(port),
                 "--guest-port", str(free_port()), "--out", str(broker_dir)]) == 0
    creds = json.loads((broker_dir / "credentials.json").read_text())
    account = creds["seats"][seat - 1]
    secret = tmp_path / f"seat{seat}.password"
    secret.write_text(account["password"] + "\n")
    config = tmp_path / f"seat{seat}.json"
    assert main(["seat", "config", "--seat", str(seat), "--table", TABLE, "--broker-host",
                 "127.0.0.1", "--broker-port", str(port), "--username", account["username"],
                 "--password-file", str(secret), "--out", str(config)]) == 0
    capsys.readouterr()
    return port, broker_dir, creds, config


@pytest.mark.slow
def test_a_person_plays_seat_2_from_the_keyboard(
        micropython: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    port, broker_dir, creds, config = broker_and_seat(tmp_path, 2, capsys)
    with Mosquitto(mosquitto_binary(), broker_dir / "run", port=port,
                   config_file=broker_dir / "mosquitto.conf"):
        hub = TableService(HubConfig(
            broker=BrokerConfig(BrokerAddress("127.0.0.1", port), creds["hub"]["username"],
                                creds["hub"]["password"], keepalive=5),
            table=TableConfig(TABLE, 3, "classic", {1: "heuristic", 3: "heuristic"}),
            leds=LedConfig(enabled=False), panel_enabled=False, data_dir=tmp_path / "hub"),
            card_uids=CARDS)
        hub.start()
        term = Terminal([sys.executable, "-m", "risktable", "seat", "play", "--seat", "2",
                         "--config", str(config), "--no-colour", "--micropython", micropython])
        try:
            at = term.wait_for(rb"Seat 2 \| broker up \| hub up")
            # c outside the card step taps nothing, and the panel says why (the roll
            # below is looked for from before the note: the note may come after it).
            term.type(b"c")
            term.wait_for(rb"\n  c: no card to tap now\r?\n", after=at)
            # The opening roll: the seat's own dice, rolled with r (again after a tie),
            # until the claims reach this seat and Enter claims under the cursor.
            while True:
                seen, at = term.wait_for_any([ROLL_ASKED, rb"\| Claim a territory"], after=at)
                if seen == ROLL_ASKED:
                    # Rolled once the panel no longer asks (a tie asks again).
                    at = term.roll(at)
                    continue
                break
            claimed = hub.inspect(lambda s: s.state.counts[1])
            term.type(b"\r")
            term.wait_for(rb"\| Claim a territory", after=at)
            assert hub.inspect(lambda s: s.state.counts[1]) == claimed + 1
            leave(term)
        finally:
            if term.process.poll() is None:
                term.process.kill()
            hub.stop()
    # The seat kept its state beside its configuration, as on a seat's flash.
    assert (tmp_path / "seat2.json.state").exists()


def test_a_file_of_another_seat_or_board_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "seat3.json"
    assert main(["seat", "config", "--seat", "3", "--broker-host", "h", "--out",
                 str(config)]) == 0
    esp = tmp_path / "esp.json"
    assert main(["seat", "config", "--seat", "2", "--broker-host", "h", "--board", "esp32",
                 "--wifi-ssid", "w", "--out", str(esp)]) == 0
    capsys.readouterr()
    for path, words in ((config, "configuration of seat 3, not seat 2"),
                        (esp, "--board emulated"), (tmp_path / "none.json", "no such file")):
        assert main(["seat", "play", "--seat", "2", "--config", str(path)]) == 1
        err = capsys.readouterr().err
        assert words in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_a_person_enrolls_the_deck_at_seat_play_and_the_game_starts(
        micropython: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # No deck file and no card reader: c taps the card the display names (the keyboard
    # deck), Enter stores it; the hub's deck file then holds the keyboard deck's tags.
    port, broker_dir, creds, config = broker_and_seat(tmp_path, 1, capsys)
    board = classic_board()
    # An enrollment stopped after 40 cards: the seat carries on at Egypt, card 41 of 44,
    # through both wilds (every card is enrolled the same way; 44 would take a minute).
    done = 40
    save_deck(deck_path(tmp_path / "hub", "1993"), board, {
        keyboard_uid(card): EnrolledCard(card, board.card_symbols[card])
        for card in range(done)})
    with Mosquitto(mosquitto_binary(), broker_dir / "run", port=port,
                   config_file=broker_dir / "mosquitto.conf"):
        hub = TableService(HubConfig(
            broker=BrokerConfig(BrokerAddress("127.0.0.1", port), creds["hub"]["username"],
                                creds["hub"]["password"], keepalive=5),
            table=TableConfig(TABLE, 3, "classic", {2: "heuristic", 3: "heuristic"}),
            leds=LedConfig(enabled=False), panel_enabled=False, data_dir=tmp_path / "hub"))
        hub.start()
        hub.start_enrollment(1)
        term = Terminal([sys.executable, "-m", "risktable", "seat", "play", "--seat", "1",
                         "--config", str(config), "--no-colour", "--micropython", micropython])
        try:
            at = term.wait_for(rb"c tap the card asked for")
            for card in range(done, board.deck_size):
                at = term.wait_for(rb"\| Tap the card of\r?\n  \| [^\r\n]+\r?\n  \| card "
                                   + str(card + 1).encode() + rb" of 44", after=at)
                term.type(b"c")
                at = term.wait_for(rb"\| (turn, then|Confirm to store)", after=at)
                if card == done:
                    # Back untaps; c taps the same card again.
                    term.type(b"\x7f")
                    at = term.wait_for(rb"\| Tap the card of", after=at)
                    term.type(b"c")
                    at = term.wait_for(rb"\| turn, then", after=at)
                term.type(b"\r")
            # The deck is whole: the game starts, and the seat rolls for the start.
            term.wait_for(rb"di(?:e|ce) to roll \(press r\)", after=at)
            assert hub.enrolling is None and hub.deck_problem() is None
            leave(term)
        finally:
            if term.process.poll() is None:
                term.process.kill()
            hub.stop()
    deck = load_deck(tmp_path / "hub" / "cards.json", board)
    assert {uid: card.card for uid, card in deck.items()} == {
        keyboard_uid(card): card for card in range(board.deck_size)}
