"""Fixtures for real parts (a mosquitto broker and a Chromium per pytest process, the
MicroPython binary) and how the suite is spread over pytest-xdist's workers.

tests/README.md tells the whole of it: the workers, the groups, the ``slow`` marker
and the time limit per test.
"""

from __future__ import annotations

import os
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from tests.support.browser import Chromium
from tests.support.mosquitto import Mosquitto
from tests.support.preset_games import PresetGames
from tests.support.tools import micropython_binary, mosquitto_binary

# Hypothesis fails an example that takes over 200 ms by default: a timed assertion, which
# a busy machine breaks. Speed is for the benchmarks (tests/README.md).
settings.register_profile("risktable", deadline=None)
settings.load_profile("risktable")

# Workers per core for ``-n auto`` (the default, pyproject.toml's addopts). Most tests
# wait on a broker, a MicroPython seat or a browser rather than compute, so more
# workers than cores pay; tests/README.md has the measurements behind the number.
WORKERS_PER_CORE = 2

# Every test that takes the browser runs on one worker, so a run starts one Chromium;
# they are also the tests that write docs/screenshots/.
BROWSER_GROUP = "browser"
# The tests that replay the recorded preset games (so each is recorded once) and the
# tests that write or read docs/screens.md and docs/screens/.
SCREENS_GROUP = "screens"


# Temporary files (tmp_path, the brokers', journals' and demos' folders) go to a RAM file
# system when there is a roomy one: a journal commits every input with fsync, about 5 ms
# on this kind of disk and 0.01 ms there, and nothing a test proves depends on the disk
# (a SIGKILLed hub keeps what it committed either way). An explicit TMPDIR wins.
RAM_TMP = Path("/dev/shm")
RAM_TMP_FREE = 4 << 30  # bytes free it needs


def pytest_configure(config: pytest.Config) -> None:
    # A shell starts a background job with SIGINT ignored, and a child inherits that:
    # the demo the tests stop with Ctrl-C (SIGINT) would then never stop.
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if "TMPDIR" in os.environ or not os.access(RAM_TMP, os.W_OK):
        return
    stat = os.statvfs(RAM_TMP)
    if stat.f_bavail * stat.f_frsize >= RAM_TMP_FREE:
        os.environ["TMPDIR"] = str(RAM_TMP)  # child processes and xdist's workers
        tempfile.tempdir = str(RAM_TMP)  # this process (pytest's tmp_path among them)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """How many workers ``-n auto`` starts: none when the command line names single
    tests (``pytest path::test`` runs in this process, so ``-s`` and breakpoints work
    as without xdist), else ``WORKERS_PER_CORE`` per core this process may use.
    PYTEST_XDIST_AUTO_NUM_WORKERS overrides both."""
    wanted = os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS")
    if wanted:
        return int(wanted)
    if config.args and all("::" in arg for arg in config.args):
        return 0
    return WORKERS_PER_CORE * len(os.sched_getaffinity(0))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Slow tests first, so the last minute of a parallel run is not one long test;
    the browser tests into one xdist group, the tests of the recorded preset games into
    another. Runs before xdist's own hook reads the groups."""
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if BROWSER_GROUP in fixtures:
            item.add_marker(pytest.mark.xdist_group(BROWSER_GROUP))
        if "preset_games" in fixtures:
            item.add_marker(pytest.mark.xdist_group(SCREENS_GROUP))
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """In an xdist worker of a loadgroup run, before the worker hands its tests over: a
    test of a group must carry its group in its node id (how xdist tells the scheduler),
    or the groups would be dropped without a word, as with pytest 9.2 (pytest-xdist
    issue 1386)."""
    if os.environ.get("PYTEST_XDIST_WORKER") and getattr(session.config.option, "loadgroup",
                                                         False):
        lost = [item.nodeid for item in session.items
                if item.get_closest_marker("xdist_group") and "@" not in item.nodeid]
        if lost:
            raise RuntimeError(f"pytest-xdist dropped the xdist_group of {lost[0]} "
                               f"and {len(lost) - 1} more: see pyproject.toml's pytest")


@pytest.fixture(scope="session")
def mosquitto(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mosquitto]:
    """A mosquitto broker on a free loopback port, shared by the tests of one pytest
    process (one per xdist worker)."""
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


@pytest.fixture(scope="session")
def chromium_browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chromium]:
    """The headless Chromium of this pytest process, started by the first browser test."""
    with Chromium(tmp_path_factory.mktemp("chromium")) as browser:
        yield browser


@pytest.fixture
def browser(chromium_browser: Chromium) -> Iterator[Any]:
    """A selenium driver on a fresh page of its own: a new tab in a new user context
    (no cookie, storage, cache or emulated device of another test), closed after."""
    with chromium_browser.page() as driver:
        yield driver


@pytest.fixture(scope="session")
def preset_games() -> PresetGames:
    """The autopiloted game of each rule set, recorded once per pytest process
    (tests/support/preset_games.py): ``preset_games(rules, hub_cards)``."""
    return PresetGames()
