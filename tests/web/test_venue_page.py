"""The venue page (`risktable broker venue-page`): every table of a venue on one screen.

Real mosquittos on loopback, written by `risktable broker venue` (the venue broker the
tables' bridges log in to, and the spectators' guest broker with its WebSockets
listener); boards of two tables published as their bridges publish them; the page in a
real headless Chromium. It must list both tables with exactly the territories and
armies per seat of their boards, follow a new board live, and show which hubs are
online. Writes ``docs/screenshots/venue-1920x1080.png`` and ``venue-390x844.png``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from riskproto import topics
from riskproto.messages import encode, message
from risktable.cli import main
from risktable.cli.broker import venue_page_config
from risktable.cli.errors import CliError
from risktable.provision import venue_config
from risktable.rules import Config
from risktable.rules.selfplay import selfplay
from risktable.table.public import board_message
from risktable.web.server import BoardPageServer
from tests.protocol.mqtt_peer import Peer
from tests.support.browser import save_screenshot, set_viewport
from tests.support.mosquitto import Mosquitto, free_port
from tests.support.tools import ROOT, mosquitto_binary

SCREENSHOTS = ROOT / "docs" / "screenshots"
TABLES = ("den", "attic")

_READ = """
const out = {};
for (const card of document.querySelectorAll('.table')) {
  const seats = {};
  for (const s of card.querySelectorAll('.seat')) {
    seats[s.dataset.seat] = [Number(s.dataset.territories), Number(s.dataset.armies)];
  }
  const owners = Array.from(card.querySelectorAll('.mini path'))
    .map((p) => Number(p.dataset.owner || 0));
  out[card.dataset.table] = {online: card.dataset.online, phase: card.dataset.phase || null,
                             turn: card.querySelector('.turn').textContent, seats, owners};
}
out.order = Array.from(document.querySelectorAll('.table')).map((c) => c.dataset.table);
out.summary = document.getElementById('summary').textContent;
out.messages = Number(document.body.dataset.messages || 0);
return out;
"""


def _board(players: int, seed: int, turns: int) -> dict[str, Any]:
    game = next(selfplay(Config(players), 1, seed, "heuristic", max_turns=turns, record=False))
    return board_message(game.final)


def _per_seat(board: dict[str, Any]) -> dict[str, list[int]]:
    seats: dict[str, list[int]] = {}
    for owner, armies in zip(board["owners"], board["armies"], strict=True):
        if owner:
            got = seats.setdefault(str(owner), [0, 0])
            got[0] += 1
            got[1] += armies
    return seats


def _write_venue(folder: Path, websockets: int | None = None) -> dict[str, int]:
    ports = {"port": free_port(), "guest": free_port()}
    argv = ["broker", "venue", "--tables", *TABLES, "--out", str(folder),
            "--port", str(ports["port"]), "--guest-port", str(ports["guest"])]
    if websockets is not None:
        argv += ["--websockets", str(websockets)]
    assert main(argv) == 0
    return ports


def test_the_page_configuration_comes_from_the_venues_credentials(tmp_path: Path) -> None:
    ws = free_port()
    _write_venue(tmp_path / "ws", ws)
    config = venue_page_config(tmp_path / "ws" / venue_config.VENUE_CREDENTIALS_FILE, None)
    assert config.ws_url == f"ws://127.0.0.1:{ws}/" and config.tables == TABLES
    doc = config.document()
    assert doc["client_id_prefix"] == venue_config.VENUE_GUEST_PREFIX
    assert doc["username"] == venue_config.SPECTATOR_USER and len(doc["territories"]) == 42
    with pytest.raises(CliError, match="no WebSockets listener"):
        _write_venue(tmp_path / "plain")
        venue_page_config(tmp_path / "plain" / venue_config.VENUE_CREDENTIALS_FILE, None)
    with pytest.raises(CliError, match="cannot read"):
        venue_page_config(tmp_path / "nothing.json", None)
    (tmp_path / "bad.json").write_text('{"tables": []}')
    with pytest.raises(CliError, match="is not a venue's"):
        venue_page_config(tmp_path / "bad.json", None)
    with pytest.raises(CliError, match="--ws-url"):
        venue_page_config(tmp_path / "ws" / venue_config.VENUE_CREDENTIALS_FILE, "http://x/")
    doc = json.loads((tmp_path / "ws" / venue_config.VENUE_CREDENTIALS_FILE).read_text())
    doc["guests"]["host"] = "0.0.0.0"
    (tmp_path / "any.json").write_text(json.dumps(doc))
    with pytest.raises(CliError, match="give --ws-url"):
        venue_page_config(tmp_path / "any.json", None)
    assert venue_page_config(tmp_path / "any.json", "ws://10.0.0.9:9001/").ws_url \
        == "ws://10.0.0.9:9001/"
    assert main(["broker", "venue-page", "--credentials", str(tmp_path / "any.json"),
                 "--bind", "venue.local"]) == 2


def test_the_venue_page_lists_every_table_live(tmp_path: Path, browser: Any) -> None:
    binary = mosquitto_binary()
    folder = tmp_path / "venue"
    ws = free_port()
    ports = _write_venue(folder, ws)
    credentials = folder / venue_config.VENUE_CREDENTIALS_FILE
    passwords = {t: (folder / venue_config.bridge_password_file(t)).read_text().strip()
                 for t in TABLES}
    boards = {"den": _board(4, 3, 6), "attic": _board(3, 5, 4)}
    with Mosquitto(binary, folder, port=ports["port"],
                   config_file=folder / venue_config.VENUE_CONF_FILE), \
            Mosquitto(binary, folder, port=ports["guest"],
                      config_file=folder / venue_config.VENUE_GUEST_CONF_FILE), \
            BoardPageServer(venue_page_config(credentials, None)) as server:
        driver = browser
        # Each table's broker bridge logs in as <table>-venue and writes its public topics.
        bridges = {t: Peer(ports["port"], venue_config.bridge_username(t), passwords[t],
                           venue_config.bridge_username(t)) for t in TABLES}
        try:
            for table, peer in bridges.items():
                assert not peer.connect().is_failure
                peer.publish(topics.board(table), encode(boards[table]), retain=True)
            bridges["den"].publish(topics.hub_status("den"), encode(message(
                "hub_status", online=True, session=1)), retain=True)
            from selenium.webdriver.support.ui import WebDriverWait

            def read(d: Any) -> dict[str, Any]:
                got: dict[str, Any] = d.execute_script(_READ)
                return got

            set_viewport(driver, 1920, 1080)
            driver.get(server.url)
            def both_boards(d: Any) -> bool:
                page = read(d)  # no cards until the page has read its configuration
                return all(t in page and page[t]["seats"] for t in TABLES) \
                    and page["den"]["online"] == "true"

            WebDriverWait(driver, 30).until(both_boards, "the page showed both boards")
            page = read(driver)
            assert page["order"] == sorted(TABLES)
            for table in TABLES:
                assert page[table]["seats"] == _per_seat(boards[table]), table
                # The small map's shapes follow the board's territory order.
                assert page[table]["owners"] == boards[table]["owners"], table
                turn = boards[table]["turn"]
                assert page[table]["phase"] == turn["phase"]
                assert f"seat {turn['seat']}" in page[table]["turn"]
            assert page["attic"]["online"] == "unknown"  # its hub was never heard
            assert page["summary"] == "2 tables, 1 online, 2 playing"
            save_screenshot(driver, SCREENSHOTS / "venue-1920x1080.png")
            # A later board replaces the earlier one live; the hub going offline shows.
            later = _board(4, 3, 12)
            assert _per_seat(later) != _per_seat(boards["den"])
            seen = page["messages"]
            bridges["den"].publish(topics.board("den"), encode(later), retain=True)
            bridges["den"].publish(topics.hub_status("den"), encode(message(
                "hub_status", online=False, session=1)), retain=True)
            WebDriverWait(driver, 15).until(
                lambda d: read(d)["messages"] >= seen + 2, "the page followed the new board")
            page = read(driver)
            assert page["den"]["seats"] == _per_seat(later)
            assert page["den"]["online"] == "false"
            set_viewport(driver, 390, 844)
            save_screenshot(driver, SCREENSHOTS / "venue-390x844.png")
            width = driver.execute_script(
                "return document.documentElement.scrollWidth")
            assert width <= 390, "the venue page scrolls sideways on a phone"
        finally:
            for peer in bridges.values():
                peer.close()
