"""The seat logs in with its broker credentials; a wrong password is refused and retried."""

from __future__ import annotations

import json
import os
import pwd
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.firmware.seats import SeatProcess, write_config
from tests.support.mosquitto import Mosquitto, free_port
from tests.support.tools import mosquitto_binary, require_tool

TABLE = "fw-cred"


@pytest.fixture
def secured(tmp_path: Path) -> Iterator[Mosquitto]:
    passwd = require_tool("mosquitto_passwd", "the Debian package mosquitto")
    password_file = tmp_path / "passwd"
    subprocess.run(
        [passwd, "-c", "-b", str(password_file), f"{TABLE}-seat1", "right-pw"],
        check=True, capture_output=True,
    )
    port = free_port()
    config = tmp_path / "mosquitto.conf"
    # Run as ourselves: as root, mosquitto would switch to its own user, which cannot
    # read the password file inside pytest's private temporary folder.
    user = pwd.getpwuid(os.geteuid()).pw_name
    config.write_text(
        f"listener {port} 127.0.0.1\nallow_anonymous false\npassword_file {password_file}\n"
        f"persistence false\nuser {user}\n"
    )
    broker = Mosquitto(mosquitto_binary(), tmp_path / "broker", port=port, config_file=config)
    with broker:
        yield broker


def test_right_credentials_connect_and_wrong_ones_are_retried(
    micropython: str, secured: Mosquitto, tmp_path: Path
) -> None:
    good = SeatProcess(
        micropython,
        write_config(tmp_path, TABLE, 1, secured.port,
                     broker={"username": f"{TABLE}-seat1", "password": "right-pw"}),
    )
    (tmp_path / "bad").mkdir()
    bad = SeatProcess(
        micropython,
        write_config(tmp_path / "bad", TABLE, 1, secured.port,
                     broker={"username": f"{TABLE}-seat1", "password": "wrong",
                             "backoff_ms": 100, "backoff_max_ms": 400}),
    )
    try:
        good.wait_output(lambda line: line.get("net") == "up")
        # The refused seat keeps trying, each refusal logged: 3.2.2.3 return code 5, not
        # authorised (mosquitto answers a bad password so).
        deadline = time.monotonic() + 20
        while sum("OSError('refused', 5)" in line for line in bad.stderr_lines) < 3:
            assert time.monotonic() < deadline, bad.stderr_lines
            time.sleep(0.02)
        assert bad.process.poll() is None
        assert not any(line.get("net") == "up" for line in _drain(bad))
        # A refused CONNECT leaves no Will at the broker, so the session (a flash write
        # on a real seat) is not bumped again for each attempt.
        state = json.loads((tmp_path / "bad" / "seat1.json.state").read_text())
        assert state["session"] == 1
    finally:
        good.stop()
        bad.stop()


def _drain(proc: SeatProcess) -> list[dict[str, object]]:
    lines = []
    while not proc.outputs.empty():
        lines.append(proc.outputs.get_nowait())
    return lines
