"""The hub's own board page: hub.toml ``[web]`` and ``risktable hub --web-port``.

The configuration is read and checked like every other section; when enabled the
page's server runs beside the table service and its ``/config.json`` carries the
configured WebSockets URL, the table id and the spectator's account.
"""

from __future__ import annotations

import argparse
import http.client
import json
from pathlib import Path

import pytest

from risktable.cli.errors import CliError
from risktable.cli.hub import _config, register
from risktable.config import ConfigError, WebConfig, parse_config
from risktable.web.hub_page import page_config, start_board_page
from tests.support.mosquitto import free_port

WEB = """
[table]
id = "den"
seats = 4
[web]
enabled = true
bind = "127.0.0.1"
port = {port}
ws_url = "ws://den.local:8083/"
username = "den-spectator"
password_file = "{secret}"
"""


def _toml(tmp_path: Path, port: int = 8080) -> str:
    secret = tmp_path / "spectator"
    secret.write_text("pw-from-file\n")
    return WEB.format(port=port, secret=secret)


def test_web_is_off_by_default_and_read_when_given(tmp_path: Path) -> None:
    assert parse_config("").web == WebConfig()
    assert not WebConfig().enabled
    web = parse_config(_toml(tmp_path)).web
    assert web == WebConfig(True, "127.0.0.1", 8080, "ws://den.local:8083/",
                            "den-spectator", "pw-from-file")


@pytest.mark.parametrize(("body", "problem"), [
    ("enabled = true", "[web] ws_url: must be a ws:// or wss:// URL"),
    ('enabled = true\nws_url = "http://x/"', "[web] ws_url: must be a ws:// or wss:// URL"),
    ("port = 0", "[web] port: must be 1 to 65535"),
    ('port = "80"', "[web] port: must be int"),
    ('password = "a"\npassword_file = "b"', "[web] password_file: give password or"),
    ('password_file = "/nonexistent/x"', "[web] password_file: cannot read"),
    ("colour = 1", "[web] colour: unknown key"),
])
def test_bad_web_sections_are_named(body: str, problem: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(f"[web]\n{body}\n", "hub.toml")
    assert str(info.value).startswith(f"hub.toml: {problem}"), str(info.value)


def test_the_hub_serves_the_configured_page(tmp_path: Path) -> None:
    config = parse_config(_toml(tmp_path, port=free_port()))
    assert start_board_page(parse_config("")) is None
    server = start_board_page(config)
    assert server is not None
    try:
        host, port = server.url.removeprefix("http://").rstrip("/").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=10)
        conn.request("GET", "/config.json")
        doc = json.loads(conn.getresponse().read())
        conn.close()
    finally:
        server.stop()
    assert doc == page_config(config).document()
    assert (doc["ws_url"], doc["table"], doc["username"], doc["password"]) == (
        "ws://den.local:8083/", "den", "den-spectator", "pw-from-file")
    assert doc["players"] == 4


def _args(tmp_path: Path, *argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    return parser.parse_args(["hub", *argv])


def test_web_port_turns_the_page_on_and_needs_a_ws_url(tmp_path: Path) -> None:
    conf = tmp_path / "hub.toml"
    conf.write_text(_toml(tmp_path).replace("enabled = true", "enabled = false"))
    assert not _config(_args(tmp_path, "--config", str(conf))).web.enabled
    web = _config(_args(tmp_path, "--config", str(conf), "--web-port", "9090")).web
    assert (web.enabled, web.port, web.ws_url) == (True, 9090, "ws://den.local:8083/")
    bare = tmp_path / "bare.toml"
    bare.write_text("")
    with pytest.raises(CliError, match=r"--web-port needs \[web\] ws_url"):
        _config(_args(tmp_path, "--config", str(bare), "--web-port", "9090"))
    with pytest.raises(SystemExit):
        _args(tmp_path, "--web-port", "70000")
