"""A person's seat on a PC (`risktable seat play --seat N`), walked in a pseudo-terminal:
the table's own broker (accounts from `risktable broker config`), a hub with bots at the
other seats, and the seat's configuration from `risktable seat config` with its broker
account. The keys reach the seat firmware and the hub; the terminal shows the seat."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from risktable.broker_address import BrokerAddress
from risktable.cli import main
from risktable.config import BrokerConfig, HubConfig, LedConfig, TableConfig
from risktable.service.table_service import TableService
from tests.e2e.test_demo_keyboard import Terminal
from tests.support.mosquitto import Mosquitto, free_port
from tests.support.tools import mosquitto_binary
from tests.table.inputs import CARDS

TABLE = "den"


@pytest.mark.slow
def test_a_person_plays_seat_2_from_the_keyboard(
        micropython: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    port, guests = free_port(), free_port()
    broker_dir = tmp_path / "broker"
    assert main(["broker", "config", "--seats", "3", "--table", TABLE, "--port", str(port),
                 "--guest-port", str(guests), "--out", str(broker_dir)]) == 0
    creds = json.loads((broker_dir / "credentials.json").read_text())
    seat2 = creds["seats"][1]
    secret = tmp_path / "seat2.password"
    secret.write_text(seat2["password"] + "\n")
    config = tmp_path / "seat2.json"
    assert main(["seat", "config", "--seat", "2", "--table", TABLE, "--broker-host",
                 "127.0.0.1", "--broker-port", str(port), "--username", seat2["username"],
                 "--password-file", str(secret), "--out", str(config)]) == 0
    capsys.readouterr()
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
            # The opening roll: the seat's own dice, rolled with r (again after a tie),
            # until the claims reach this seat and Enter claims under the cursor.
            rolled: set[bytes] = set()
            while True:
                seen, at = term.wait_for_any([rb"roll \d+ armed", rb"\| Claim a territory"],
                                             after=at)
                if seen.startswith(b"roll"):
                    armed = re.compile(rb"roll (\d+) armed").findall(term.output, 0, at)[-1]
                    if armed not in rolled:
                        rolled.add(armed)
                        term.type(b"r")
                    continue
                break
            claimed = hub.inspect(lambda s: s.state.counts[1])
            term.type(b"\r")
            term.wait_for(rb"\| Claim a territory", after=at)
            assert hub.inspect(lambda s: s.state.counts[1]) == claimed + 1
            term.type(b"q")
            term.wait_for(rb"You left the seat\.")
            assert term.close() == 0
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
