"""docs/setup.md's TLS section, as written: its commands run (in a scratch folder for
/etc/risktable/broker) and do what it says, and its hub.toml is a valid configuration."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from risktable.cli import main
from risktable.config import parse_config
from risktable.provision import table_ca
from tests.support.tools import ROOT

SETUP = ROOT / "docs" / "setup.md"
ETC = "/etc/risktable/broker"


def _tls_section() -> tuple[list[str], str]:
    text = SETUP.read_text()
    section = text.split("## TLS: a table on a network you share", 1)[1].split("\n## ", 1)[0]
    shell = re.search(r"```sh\n(.*?)```", section, re.S)
    toml = re.search(r"```toml\n(.*?)```", section, re.S)
    assert shell is not None and toml is not None
    lines = [line for line in shell.group(1).splitlines()
             if line.strip() and not line.startswith("#")]
    return lines, toml.group(1)


def test_the_tls_steps_run_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "broker"
    lines, toml = _tls_section()
    assert [shlex.split(line)[1:3] for line in lines] == [
        ["broker", "config"], ["seat", "config"], ["seat", "qr"]]
    for line in lines:
        argv = shlex.split(line.replace(ETC, str(folder)))[1:]
        if argv[:2] == ["seat", "config"]:
            creds = json.loads((folder / "credentials.json").read_text())
            (tmp_path / "seat1.password").write_text(creds["seats"][0]["password"] + "\n")
            (tmp_path / "wifi.password").write_text("wifi secret\n")
        assert main(argv) == 0, line
    said = capsys.readouterr().out
    # broker config: the CA, its fingerprint and the names in the broker's certificate.
    assert table_ca.fingerprint(folder / "ca.crt") in said
    assert "valid for: 192.168.1.20, den.local, 127.0.0.1" in said
    conf = (folder / "mosquitto.conf").read_text()
    assert "listener 8883 0.0.0.0" in conf and f"certfile {folder / 'broker.crt'}" in conf
    # seat config: the seat carries the CA and dials the TLS port.
    seat = json.loads((tmp_path / "seat1.json").read_text())
    assert seat["broker"]["port"] == 8883 and len(seat["broker"]["ca"]) > 400
    # seat qr: an https:// page with a wss:// broker.
    assert "https://192.168.1.20:8080/seat.html#" in said
    assert "ws=wss%3A%2F%2F192.168.1.20%3A9002%2F" in said
    # hub.toml: valid as written, once its files exist.
    config = parse_config(toml.replace(ETC, str(folder)))
    assert config.broker.ca == folder / "ca.crt" and config.broker.address.port == 8883
    assert config.web.cert == folder / "broker.crt" and config.web.ws_url.startswith("wss://")
