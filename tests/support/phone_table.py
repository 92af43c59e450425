"""A table for phone seat tests: the broker configuration of ``risktable broker config``
(accounts, ACL, the seat WebSockets listener) and the hub's configuration on it, with the
hub keeping the hands (a phone has no NFC reader)."""

from __future__ import annotations

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
from tests.support.mosquitto import free_port


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
