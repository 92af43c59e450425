"""The hub configuration file: defaults, the documented example, and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from risktable.broker_address import BrokerAddress
from risktable.config import ConfigError, HubConfig, load_config, parse_config
from tests.support.tools import ROOT


def test_empty_file_gives_pi_defaults() -> None:
    config = parse_config("")
    assert config == HubConfig()
    assert config.broker.address == BrokerAddress("127.0.0.1", 1883)
    assert config.data_dir == Path("/var/lib/risktable")


def test_documented_example_is_the_defaults() -> None:
    assert load_config(ROOT / "docs" / "hub.example.toml") == HubConfig()


def test_values_are_read(tmp_path: Path) -> None:
    secret = tmp_path / "pw"
    secret.write_text("s3cret\n")
    config = parse_config(
        f"""
        [broker]
        host = "pi.local"
        port = 8883
        username = "hub"
        password_file = "{secret}"
        [table]
        id = "kitchen"
        seats = 5
        bots = {{ 5 = "heuristic" }}
        [panel]
        undo_hold_seconds = 2
        [data]
        dir = "{tmp_path}"
        """
    )
    assert config.broker.address == BrokerAddress("pi.local", 8883)
    assert (config.broker.username, config.broker.password) == ("hub", "s3cret")
    assert config.table.seats == 5
    assert config.table.bots == {5: "heuristic"}
    assert config.panel.undo_hold_seconds == 2.0
    assert config.data_dir == tmp_path


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[broker]\nprot = 1883", ["[broker]", "prot", "unknown key"]),
        ("[broker]\nport = 70000", ["[broker]", "port", "65535"]),
        ("[broker]\nport = '1883'", ["port", "must be int"]),
        ("[table]\nid = 'a/b'", ["[table]", "id"]),
        ("[table]\nseats = 7", ["seats", "1 to 6"]),
        ("[table]\nseats = 2\nbots = { 3 = 'random' }", ["bots", "'3'"]),
        ("[table]\nbots = { 1 = 'genius' }", ["bots", "heuristic"]),
        ("[panel]\nundo = 17", ["pins", "share"]),
        ("[panel]\nbuzzer = 40", ["pins", "2 to 27"]),
        ("[nonsense]\nx = 1", ["top level", "nonsense"]),
        ("[broker\nport=1", ["not valid TOML"]),
        ("[broker]\npassword = 'a'\npassword_file = '/x'", ["not both"]),
        ("[table]\nrules = 'chess'", ["[table] rules", "unknown rule set 'chess'"]),
        ("[table]\nrules = 'two_player_2016'\nseats = 3", ["rules", "2 players, not 3"]),
        ("[table]\nhouse = { defence_dice = 4 }", ["[table] house", "defence_dice", "2, 3"]),
        ("[table]\nhouse = { dice = 3 }", ["house", "unknown house rule 'dice'"]),
        ("[table]\nhouse = { reroll = true }", ["house", "reroll", "off, on"]),
        ("[table]\nrules = 'classic_2016'\nhouse = { second_set = 'forced' }",
         ["rules", "second_set", "deck = 1993"]),
        ("[table]\ncards = 'none'", ["[table] cards", "physical or hub", "'none'"]),
        ("[table]\ncards = true", ["[table] cards", "must be str"]),
        ("[broker]\nca = '/no/such/ca.crt'", ["[broker] ca", "/no/such/ca.crt", "--tls"]),
        ("[web]\ncert = '/etc/hostname'", ["[web] cert", "both cert and key"]),
        ("[web]\ncert = '/no/such.crt'\nkey = '/no/such.key'", ["[web] cert", "no file"]),
        ("[web]\nenabled = true\nws_url = 'ws://h:1/'\ncert = '/etc/hostname'\n"
         "key = '/etc/hostname'", ["[web] ws_url", "HTTPS", "wss://"]),
        ("[web]\nenabled = true\nws_url = 'wss://h:1/'", ["[web] cert", "TLS", "HTTPS"]),
    ],
)
def test_errors_name_file_section_and_key(text: str, words: list[str]) -> None:
    with pytest.raises(ConfigError) as exc:
        parse_config(text, "hub.toml")
    message = str(exc.value)
    assert message.startswith("hub.toml: ")
    assert "\n" not in message
    for word in words:
        assert word in message


def test_two_player_rule_sets_imply_two_seats() -> None:
    for rules in ("two_player_1993", "two_player_1993_plain_50", "two_player_2016"):
        assert parse_config(f"[table]\nrules = '{rules}'").table.seats == 2
    assert parse_config("[table]\nrules = 'capital_1993'").table.seats == 4


def test_the_cards_setting_is_read_and_physical_by_default() -> None:
    assert parse_config("").table.cards == "physical"
    assert parse_config("[table]\ncards = 'hub'").table.cards == "hub"


def test_house_rules_are_read_as_option_values() -> None:
    table = parse_config("[table]\nhouse = { defence_dice = 3, second_set = 'forced' }").table
    assert table.house == {"defence_dice": "3", "second_set": "forced"}


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read configuration"):
        load_config(tmp_path / "nope.toml")
