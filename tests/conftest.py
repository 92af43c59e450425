"""Fixtures for real parts: a mosquitto broker per test run and the MicroPython binary."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.mosquitto import Mosquitto
from tests.support.tools import micropython_binary, mosquitto_binary


@pytest.fixture(scope="session")
def mosquitto(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mosquitto]:
    """A mosquitto broker on a free loopback port, shared by the whole run."""
    broker = Mosquitto(mosquitto_binary(), tmp_path_factory.mktemp("mosquitto"))
    with broker:
        yield broker


@pytest.fixture
def fresh_mosquitto(tmp_path: Path) -> Iterator[Mosquitto]:
    """A broker of the test's own, for tests that stop, restart or reconfigure it."""
    broker = Mosquitto(mosquitto_binary(), tmp_path / "mosquitto")
    with broker:
        yield broker


@pytest.fixture(scope="session")
def micropython() -> str:
    """Path of the MicroPython unix-port binary."""
    return micropython_binary()
