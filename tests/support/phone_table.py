"""A table for phone seat tests: the broker configuration of ``risktable broker config``
(accounts, ACL, the seat WebSockets listener) and the hub's configuration on it, with the
hub keeping the hands (a phone has no NFC reader)."""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from risktable.broker_address import BrokerAddress
from risktable.config import BrokerConfig, HubConfig, LedConfig, TableConfig
from risktable.demo.pilot import demo_card_uids
from risktable.game_rules import rules_config
from risktable.provision.broker_config import write_config
from risktable.rules import Config
from risktable.service.table_service import TableService
from risktable.web.server import BoardPageServer, PageConfig
from tests.support.mosquitto import Mosquitto, free_port, wait_for_port
from tests.support.tools import mosquitto_binary


@dataclass(frozen=True)
class PhoneTable:
    folder: Path  # the broker's configuration (mosquitto.conf, credentials.json)
    port: int  # the table broker's TCP port
    ws_port: int  # its seat WebSockets listener
    creds: dict[str, Any]  # credentials.json
    rules: Config
    cards: dict[str, int]  # the demo's made-up enrolled deck
    config: HubConfig


def phone_table(tmp_path: Path, table: str, seats: int, rules: str) -> PhoneTable:
    """Write the broker's configuration under ``tmp_path/broker``; the hub's data goes
    to ``tmp_path/hub``."""
    folder = tmp_path / "broker"
    port, ws_port = free_port(), free_port()
    write_config(folder, table, seats, port=port, guest_port=free_port(),
                 seat_websockets=ws_port)
    creds = json.loads((folder / "credentials.json").read_text())
    chosen = rules_config(rules, seats)
    config = HubConfig(
        broker=BrokerConfig(BrokerAddress("127.0.0.1", port), creds["hub"]["username"],
                            creds["hub"]["password"]),
        table=TableConfig(id=table, seats=seats, rules=rules, cards="hub"),
        leds=LedConfig(enabled=False), panel_enabled=False, data_dir=tmp_path / "hub")
    return PhoneTable(folder, port, ws_port, creds, chosen,
                      demo_card_uids(chosen.board, chosen.options.deck), config)


def serve(stack: contextlib.ExitStack, table: PhoneTable,
          service: TableService) -> tuple[BoardPageServer, str]:
    """On ``stack``: the table's broker, the page server for its seats (the phone's
    pages), and ``service`` (made on ``table.config``) started. The page server and the
    broker's seat WebSockets address."""
    stack.enter_context(Mosquitto(mosquitto_binary(), table.folder, port=table.port,
                                  config_file=table.folder / "mosquitto.conf"))
    wait_for_port("127.0.0.1", table.ws_port)
    ws_url = f"ws://127.0.0.1:{table.ws_port}/"
    page = stack.enter_context(BoardPageServer(PageConfig(
        ws_url, table.config.table.id, players=table.config.table.seats)))
    stack.callback(service.stop)
    service.start()
    return page, ws_url


def page_data(driver: Any, name: str) -> str:
    """The phone seat page's ``document.body.dataset[name]`` (what seat.js reports of
    itself: link, views, outbox, armed, ...), or ""."""
    return str(driver.execute_script(f"return document.body.dataset.{name} || ''"))


def page_lines(driver: Any) -> list[str]:
    """The lines the phone seat page's display shows."""
    return list(driver.execute_script(
        "return [...document.querySelectorAll('#lines li')].map(li => li.textContent)"))
