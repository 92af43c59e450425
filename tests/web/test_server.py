"""The board page's HTTP server over a real loopback socket.

It serves exactly the page's files (the bytes shipped in the package, each with
its type) and ``/config.json``; any other path, including one climbing out of
the static folder, is a 404. The served credentials are the spectator's: with
``risktable broker config`` output they log in to the guest broker over
WebSockets, as the page does.
"""

from __future__ import annotations

import http.client
import json
from importlib import resources
from pathlib import Path
from typing import Any

from riskproto import topics
from riskproto.territories import TERRITORIES
from risktable.cli import main
from risktable.web.server import BoardPageServer, PageConfig
from tests.protocol.mqtt_peer import Peer
from tests.support.mosquitto import Mosquitto, free_port, wait_for_port
from tests.support.tools import mosquitto_binary

PAGE_FILES = {
    "index.html": "text/html",
    "board.js": "text/javascript",
    "style.css": "text/css",
    "mqtt.min.js": "text/javascript",
    "board-map.json": "application/json",
    "seat.html": "text/html",
    "seat.js": "text/javascript",
    "seat.css": "text/css",
    "venue.html": "text/html",
    "venue.js": "text/javascript",
    "venue.css": "text/css",
    "i18n.js": "text/javascript",
}


def _get(server: BoardPageServer, path: str) -> tuple[int, dict[str, str], bytes]:
    host, port = server.url.removeprefix("http://").rstrip("/").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


def test_it_serves_the_shipped_files_and_nothing_else() -> None:
    static = resources.files("risktable.web").joinpath("static")
    with BoardPageServer(PageConfig("ws://127.0.0.1:9", "den")) as server:
        for name, kind in PAGE_FILES.items():
            status, headers, body = _get(server, f"/{name}")
            assert status == 200, name
            # Browsers' older name for JavaScript is as good as the new one.
            assert headers["content-type"].replace("application/javascript",
                                                   "text/javascript") == kind, name
            assert body == static.joinpath(name).read_bytes(), name
            assert headers["content-length"] == str(len(body))
        status, _, body = _get(server, "/")
        assert (status, body) == (200, static.joinpath("index.html").read_bytes())
        assert _get(server, "/index.html?seat=1")[0] == 200
        for path in ("/nope.js", "/static/index.html", "/../geometry.py", "/%2e%2e/server.py",
                     "/..%2fserver.py", "/__init__.py", "/mqtt-bundle.json", "//etc/passwd"):
            assert _get(server, path)[0] == 404, path


def test_config_json_gives_the_page_what_it_needs() -> None:
    config = PageConfig("ws://127.0.0.1:8083/", "den", "den-spectator", "pw")
    with BoardPageServer(config) as server:
        status, headers, body = _get(server, "/config.json")
    assert status == 200
    assert headers["content-type"] == "application/json"
    # Credentials inside: no cache may keep them.
    assert headers["cache-control"] == "no-store"
    doc: dict[str, Any] = json.loads(body)
    assert doc == config.document()
    assert (doc["ws_url"], doc["table"], doc["username"], doc["password"]) == (
        "ws://127.0.0.1:8083/", "den", "den-spectator", "pw")
    assert doc["territories"] == list(TERRITORIES)
    assert doc["client_id_prefix"] == "den-guest-"


def test_the_served_credentials_log_in_to_the_guest_broker(tmp_path: Path) -> None:
    out = tmp_path / "broker"
    port, guest_port, ws_port = free_port(), free_port(), free_port()
    assert main(["broker", "config", "--seats", "2", "--out", str(out), "--table", "den",
                 "--port", str(port), "--guest-port", str(guest_port),
                 "--websockets", str(ws_port)]) == 0
    creds = json.loads((out / "credentials.json").read_text())
    config = PageConfig(f"ws://127.0.0.1:{ws_port}/", "den", creds["spectator"]["username"],
                        creds["spectator"]["password"])
    table = Mosquitto(mosquitto_binary(), out, port=port, config_file=out / "mosquitto.conf")
    guests = Mosquitto(mosquitto_binary(), out, port=guest_port, config_file=out / "guests.conf")
    with table, guests, BoardPageServer(config) as server:
        wait_for_port("127.0.0.1", ws_port)
        doc = json.loads(_get(server, "/config.json")[2])
        ws_port_served = int(doc["ws_url"].rsplit(":", 1)[1].rstrip("/"))
        page = Peer(ws_port_served, doc["username"], doc["password"],
                    doc["client_id_prefix"] + "page", websockets=True)
        assert not page.connect().is_failure
        assert not page.subscribe(topics.board("den")).is_failure
        page.close()
        # A wrong password is refused: the login above really checked the account.
        wrong = Peer(ws_port_served, doc["username"], "guess", doc["client_id_prefix"] + "x",
                     websockets=True)
        assert wrong.connect().is_failure
        wrong.close()


def test_port_zero_picks_a_free_port_and_reports_it() -> None:
    with BoardPageServer(PageConfig("ws://127.0.0.1:9", "den"), port=0) as server:
        assert server.url.startswith("http://127.0.0.1:")
        assert int(server.url.rstrip("/").rsplit(":", 1)[1]) > 0
