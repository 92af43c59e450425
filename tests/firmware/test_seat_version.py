"""The seat firmware's version: a content hash in the build, the birth's ``fw``, and the
hub showing a seat whose version differs from the firmware it bundles."""

from __future__ import annotations

import logging
import shutil
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from risktable.broker_address import BrokerAddress
from risktable.hardware.palette import seat_colour
from risktable.provision import fw_version
from risktable.provision.seat_build import REPO, build, compile_one, find_mpy_cross
from risktable.service.hub import HubService
from risktable.service.referee import firmware_note
from tests.firmware.seats import SeatProcess, write_config
from tests.support.mosquitto import Mosquitto

TABLE = "fw-version"
FAST = {"retry_ms": 400, "broker": {"backoff_ms": 200, "backoff_max_ms": 1000}}


def _copy_tree(target: Path) -> Path:
    for part in ("firmware", "protocol"):
        shutil.copytree(REPO / part, target / part,
                        ignore=shutil.ignore_patterns("__pycache__"))
    return target


def test_a_changed_firmware_file_gives_another_version(tmp_path: Path) -> None:
    tree = _copy_tree(tmp_path / "tree")
    before = fw_version.bundled_version(tree)
    assert before == fw_version.bundled_version(REPO)
    assert before.startswith(fw_version.release(REPO) + "+") and len(before) <= 32
    log_py = tree / "firmware" / "log.py"
    log_py.write_text(log_py.read_text() + "\n# changed\n")
    after = fw_version.bundled_version(tree)
    assert after != before and after.partition("+")[0] == before.partition("+")[0]


def test_differs_compares_builds_fully_and_source_trees_by_release() -> None:
    assert not fw_version.differs("0.3.0+aaaa", "0.3.0+aaaa")
    assert fw_version.differs("0.3.0+bbbb", "0.3.0+aaaa")
    assert not fw_version.differs("0.3.0", "0.3.0+aaaa")
    assert fw_version.differs("0.2.9", "0.3.0+aaaa")
    assert fw_version.differs(None, "0.3.0+aaaa")
    # Not this firmware's kind of version (a test harness's seat): nothing to compare.
    assert not fw_version.differs("test-seat", "0.3.0+aaaa")


def test_the_hub_shows_the_seat_whose_firmware_differs(
    micropython: str, fresh_mosquitto: Mosquitto, tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Seat 1 runs the hub's own build; seat 2 a build whose version module names another
    # hash (as a seat built from an older tree would). Both are the real firmware.
    current = build(tmp_path / "build").out
    bundled = fw_version.bundled_version()
    other = tmp_path / "other"
    shutil.copytree(current, other)
    older = "0.2.9+000000000000"
    src = tmp_path / "src"
    src.mkdir()
    (src / "version.py").write_text(fw_version.version_source(older))
    compile_one(find_mpy_cross(), src, Path("version.py"), other, None)

    hub = HubService(BrokerAddress(fresh_mosquitto.host, fresh_mosquitto.port), TABLE, 2)
    assert hub.firmware == bundled
    seats = []
    with caplog.at_level(logging.INFO, logger="risktable.service.hub"):
        hub.start()
        try:
            for n, tree in ((1, current), (2, other)):
                config = write_config(tmp_path, TABLE, n, fresh_mosquitto.port, **FAST)
                seats.append(SeatProcess(micropython, config, build=tree))
            for n, seat in enumerate(seats, 1):
                shown = [list(seat_colour(n).rgb)] * 12
                seat.wait_output(lambda line, shown=shown: line.get("ring") == shown)
            assert hub.wait_for_seats([1, 2], 10)
            deadline = time.monotonic() + 10
            while len(hub.seat_firmware()) < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert hub.seat_firmware() == {1: bundled, 2: older}
            assert hub.firmware_mismatches() == {2: older}
            # What `risktable table status` appends to the game's line.
            service = cast(Any, SimpleNamespace(hub=hub))
            assert firmware_note(service) == (
                f"; seat 2 runs firmware {older}, not the hub's {bundled}")
        finally:
            for seat in seats:
                seat.stop()
            hub.stop()
    assert f"seat 1 online (session 1, firmware {bundled}, last reset power)" in caplog.text
    assert (f"seat 2 runs firmware {older}, the hub bundles {bundled} "
            "(update it with no game running: risktable seat update --seat 2)") in caplog.text
    assert "seat 1 runs firmware" not in caplog.text
