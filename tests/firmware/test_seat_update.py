"""Seat updates over the network: the hub's server and manifest (risktable.provision.
seat_update), the seat's download, check, staging, switch and rollback (firmware
seat/ota.py, otaboot.py, board/switch.py), with compiled seats under the MicroPython
unix port and a real mosquitto. Each seat runs from a folder laid out as a board's
flash (main.py, otaboot.mpy, the compiled modules, its config and the update key
`seat flash` writes); a small supervisor starts it again whenever it ends, as a chip
starts after a reset or a power cut. The hub signs each manifest with the seat's key
from a keys folder of its own (risktable.provision.seat_keys)."""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from riskproto import topics
from risktable.broker_address import BrokerAddress
from risktable.processes import end_process
from risktable.provision import fw_version, seat_keys
from risktable.provision.seat_build import REPO, build
from risktable.provision.seat_update import (
    FAILED,
    ROLLED_BACK,
    UPDATED,
    SeatResult,
    UpdateError,
    Updater,
    bundle_files,
)
from risktable.service.hub import HubService
from tests.firmware.seats import Watcher, write_config
from tests.support.mosquitto import Mosquitto

FAST = {"retry_ms": 400, "broker": {"backoff_ms": 200, "backoff_max_ms": 1000}}
# A version that comes online confirms itself at once, so its probation is only a
# bound; one that never comes online is rolled back when its probation ends.
PROBATION_S = 60
OFFLINE_PROBATION_S = 5  # the shortest the protocol allows


def _tree(target: Path, release: str, patch: tuple[str, str, str] | None = None) -> Path:
    for part in ("firmware", "protocol"):
        shutil.copytree(REPO / part, target / part, ignore=shutil.ignore_patterns("__pycache__"))
    version = target / "firmware" / "version.py"
    version.write_text(version.read_text().replace(
        f'VERSION = "{fw_version.release(REPO)}"', f'VERSION = "{release}"'))
    if patch is not None:
        path = target / "firmware" / patch[0]
        text = path.read_text()
        assert patch[1] in text
        path.write_text(text.replace(patch[1], patch[2], 1))
    return target


class Builds:
    def __init__(self, base: Path) -> None:
        self.old = build(base / "old").out
        self.old_version = fw_version.bundled_version(REPO)
        self.new_tree = _tree(base / "new-tree", "9.0.0")
        self.new = build(base / "new", repo=self.new_tree).out
        self.new_version = fw_version.bundled_version(self.new_tree)
        # A version whose seat loop fails at import: it crashes at every start.
        crash_tree = _tree(base / "crash-tree", "9.0.1", (
            "seat/app.py", "_COUNTER_MASK = const(0x3FFFFFFF)",
            "raise RuntimeError('broken build')\n_COUNTER_MASK = const(0x3FFFFFFF)"))
        self.crash = build(base / "crash", repo=crash_tree).out
        self.crash_version = fw_version.bundled_version(crash_tree)
        # A version that runs but never reaches the broker (it dials port 1).
        offline_tree = _tree(base / "offline-tree", "9.0.2", (
            "net/mqtt.py", "ai = socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM)[0]",
            "ai = socket.getaddrinfo(host, 1, 0, socket.SOCK_STREAM)[0]"))
        self.offline = build(base / "offline", repo=offline_tree).out
        self.offline_version = fw_version.bundled_version(offline_tree)


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> Builds:
    return Builds(tmp_path_factory.mktemp("builds"))


class Device:
    """A seat's flash folder run by ``micropython``, started again whenever it ends."""

    def __init__(self, micropython: str, root: Path, config: Path, keys: Path,
                 hold: str = "") -> None:
        self.keys = keys  # the hub's folder holding this seat's update key
        self.argv = [micropython, str(root / "main.py"), str(config)]
        self.env = {"MICROPYPATH": f"{root}:.frozen", "PATH": "/usr/bin:/bin"}
        if hold:
            self.env["RISKTABLE_OTA_HOLD"] = hold
        self.root = root
        self.starts = 0
        self.stderr: list[str] = []
        self._stop = False
        self.process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._supervise, daemon=True)
        self._thread.start()

    def _supervise(self) -> None:
        while not self._stop:
            with self._lock:
                self.process = subprocess.Popen(
                    self.argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE, env=self.env)
                self.starts += 1
            assert self.process.stderr is not None
            for raw in self.process.stderr:
                self.stderr.append(raw.decode(errors="replace").rstrip())
            self.process.wait()
            time.sleep(0.2)

    def power_cut(self) -> None:
        """SIGKILL, as a power cut; the supervisor starts it again (without a hold)."""
        self.env.pop("RISKTABLE_OTA_HOLD", None)
        with self._lock:
            assert self.process is not None
            self.process.kill()

    def close(self) -> None:
        self._stop = True
        with self._lock:
            if self.process is not None:
                end_process(self.process)
        self._thread.join(10)


def _device(micropython: str, builds: Builds, tmp: Path, port: int, table: str,
            hold: str = "") -> Device:
    root = tmp / "flash"
    shutil.copytree(builds.old, root)
    config = write_config(root, table, 1, port, **FAST)
    # What seat flash does: a key made on the hub's side, the same written to the flash.
    keys = tmp / "keys"
    key, _ = seat_keys.ensure(keys, table, 1)
    seat_keys.write_key(root / seat_keys.DEVICE_FILE, key)
    return Device(micropython, root, config, keys, hold)


@pytest.fixture
def device(micropython: str, mosquitto: Mosquitto, builds: Builds, tmp_path: Path,
           watch: Watcher, request: pytest.FixtureRequest) -> Iterator[Device]:
    """Seat 1 of the test's table, online on the old version."""
    device = _device(micropython, builds, tmp_path, mosquitto.port, _table(request))
    try:
        _online(watch, builds.old_version)
        yield device
    finally:
        device.close()


@pytest.fixture
def watch(mosquitto: Mosquitto, request: pytest.FixtureRequest) -> Iterator[Watcher]:
    table = _table(request)
    watcher = Watcher(mosquitto.host, mosquitto.port, [topics.seat(table, 1, "status")])
    yield watcher
    watcher.close()


def _table(request: pytest.FixtureRequest) -> str:
    return "ota-" + request.node.name.split("_", 2)[-1][:20].replace("_", "-")


def _online(watch: Watcher, fw: str, timeout: float = 20.0) -> dict[str, object]:
    return watch.wait(lambda _t, m, _r: m.get("online") is True and m.get("fw") == fw,
                      timeout)[1]


def _updater(mosquitto: Mosquitto, table: str, build_dir: Path, version: str,
             lines: list[str], keys: Path, probation_s: int = PROBATION_S,
             **kw: float) -> Updater:
    return Updater(mosquitto.host, mosquitto.port, table, build_dir, version, keys,
                   bind="127.0.0.1", probation_s=probation_s, say=lines.append,
                   **kw)  # type: ignore[arg-type]


def _run(updater: Updater, timeout: float = 60.0) -> SeatResult:
    results = updater.run([1], timeout_s=timeout)
    assert len(results) == 1
    return results[0]


@pytest.mark.slow
def test_a_good_update_switches_and_survives_a_reboot(
    device: Device, mosquitto: Mosquitto, builds: Builds, tmp_path: Path, watch: Watcher,
    request: pytest.FixtureRequest,
) -> None:
    table = _table(request)
    lines: list[str] = []
    result = _run(_updater(mosquitto, table, builds.new, builds.new_version, lines,
                               device.keys))
    assert (result.result, result.fw) == (UPDATED, builds.new_version), (lines,
                                                                          device.stderr)
    files = len(bundle_files(builds.new))
    # Progress births may be dropped while eight await their PUBACK; staged may not.
    assert f"seat 1: staged {files}/{files} files" in lines
    marker = json.loads((device.root / "ota.json").read_text())
    assert marker["trial"] == 0 and marker["state"] == "updated"
    assert not (device.root / "slots" / "new").exists()
    # The new version stays after a power cut: probation is over.
    device.power_cut()
    birth = _online(watch, builds.new_version)
    assert birth["ota"] == {"id": marker["id"], "state": "updated"}


@pytest.mark.slow
def test_a_corrupted_file_is_refused_and_the_old_version_kept(
    device: Device, mosquitto: Mosquitto, builds: Builds, tmp_path: Path, watch: Watcher,
    request: pytest.FixtureRequest,
) -> None:
    table = _table(request)
    served = tmp_path / "served"
    shutil.copytree(builds.new, served)
    lines: list[str] = []
    updater = _updater(mosquitto, table, served, builds.new_version, lines, device.keys)
    # After the manifest's hashes are taken, a file changes on the hub's side.
    target = served / "seat" / "dice.mpy"
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0xFF
    target.write_bytes(bytes(data))
    result = _run(updater)
    assert result.result == FAILED and result.why == "hash mismatch: seat/dice.mpy", lines
    assert result.fw == builds.old_version
    assert not (device.root / "slots" / "new").exists()
    assert not (device.root / "ota.json").exists()
    device.power_cut()
    _online(watch, builds.old_version)


def _nothing_changed(device: Device, updater: Updater) -> None:
    # A refused manifest: no file fetched, nothing staged, no marker.
    assert updater.server.sent == {}
    assert not (device.root / "slots" / "new").exists()
    assert not (device.root / "ota.json").exists()


@pytest.mark.slow
def test_a_manifest_not_signed_with_the_seats_key_is_refused(
    device: Device, mosquitto: Mosquitto, builds: Builds, tmp_path: Path, watch: Watcher,
    request: pytest.FixtureRequest,
) -> None:
    table = _table(request)
    # A hub holding no key for seat 1 does not start.
    lines: list[str] = []
    with pytest.raises(UpdateError, match="seat 1 has no update key in .*risktable seat "
                                          "flash"):
        _updater(mosquitto, table, builds.new, builds.new_version, lines,
                 tmp_path / "no-keys").run([1])
    assert not lines  # nothing was sent
    # A hub holding another key for seat 1 (a stranger's, or one from before the
    # seat was flashed with --new-secret).
    other = tmp_path / "other-keys"
    seat_keys.ensure(other, table, 1)
    updater = _updater(mosquitto, table, builds.new, builds.new_version, lines, other)
    result = _run(updater)
    assert (result.result, result.why, result.fw) == (
        FAILED, "bad signature", builds.old_version), (lines, device.stderr)
    _nothing_changed(device, updater)
    assert any("update refused: bad signature" in line for line in device.stderr)
    # A manifest with no signature at all, as anyone who may publish on the seat's
    # cmd topic could send it (the hub's own codec would not encode it).
    unsigned = {"v": 1, "t": "cmd", "cmd": "update", "id": 77, "version": "9.9.9",
                "port": 1, "probation": 60, "page": 0, "pages": 1,
                "files": [{"p": "main.py", "n": 1, "h": "0" * 64}]}
    watch.publish(topics.seat(table, 1, topics.SEAT_CMD), unsigned)
    birth = watch.wait(lambda _t, m, _r: m.get("ota", {}).get("id") == 77, 20)[1]
    assert birth["ota"] == {"id": 77, "state": "failed", "done": 0, "of": 0,
                            "why": "unsigned manifest"}
    assert birth["fw"] == builds.old_version
    _nothing_changed(device, updater)


@pytest.mark.slow
def test_an_older_or_the_same_version_is_refused(
    device: Device, mosquitto: Mosquitto, builds: Builds, tmp_path: Path, watch: Watcher,
    request: pytest.FixtureRequest,
) -> None:
    table = _table(request)
    old = builds.old_version
    release = old.partition("+")[0]
    older = "0.0.1" if release != "0.0.1" else "0.0.0"
    # Signed with the seat's own key, and so refused for its version alone: a
    # manifest of an older release, and one of the running release (another build).
    for version in (older, release + "+000000000000"):
        lines: list[str] = []
        updater = _updater(mosquitto, table, builds.new, version, lines, device.keys)
        result = _run(updater)
        assert (result.result, result.why, result.fw) == (
            FAILED, f"not newer than {old}", old), (version, lines)
        _nothing_changed(device, updater)


@pytest.mark.slow
def test_a_version_that_crashes_at_start_is_rolled_back(
    device: Device, mosquitto: Mosquitto, builds: Builds, tmp_path: Path, watch: Watcher,
    request: pytest.FixtureRequest, caplog: pytest.LogCaptureFixture,
) -> None:
    table = _table(request)
    lines: list[str] = []
    result = _run(_updater(mosquitto, table, builds.crash, builds.crash_version, lines,
                               device.keys))
    assert (result.result, result.why) == (ROLLED_BACK, "did not start"), lines
    assert result.fw == builds.old_version
    assert any("broken build" in line for line in device.stderr)
    marker = json.loads((device.root / "ota.json").read_text())
    assert marker["active"] == ""
    # A hub started afterwards reads the retained birth and logs what happened.
    hub = HubService(BrokerAddress(mosquitto.host, mosquitto.port), table, 1)
    with caplog.at_level(logging.INFO, logger="risktable.service.hub"):
        hub.start()
        try:
            assert hub.wait_for_seats([1], 10)
        finally:
            hub.stop()
    assert (f"seat 1: its last network update ({marker['id']}) rolled back: did not "
            "start") in caplog.text


@pytest.mark.slow
def test_a_version_that_never_comes_online_is_rolled_back(
    device: Device, mosquitto: Mosquitto, builds: Builds, tmp_path: Path, watch: Watcher,
    request: pytest.FixtureRequest,
) -> None:
    table = _table(request)
    lines: list[str] = []
    result = _run(_updater(mosquitto, table, builds.offline, builds.offline_version,
                           lines, device.keys, probation_s=OFFLINE_PROBATION_S))
    assert (result.result, result.why) == (ROLLED_BACK,
                                           f"not online in {OFFLINE_PROBATION_S} s"), lines
    assert result.fw == builds.old_version


def _cut_during(micropython: str, mosquitto: Mosquitto, builds: Builds, tmp_path: Path,
                watch: Watcher, table: str, hold: str) -> tuple[SeatResult, Device]:
    # An update the seat loses power in: at the hold point ("" with a slow server:
    # mid-file). Returns the update's result and the device, back online.
    device = _device(micropython, builds, tmp_path, mosquitto.port, table, hold)
    _online(watch, builds.old_version)
    lines: list[str] = []
    updater = _updater(mosquitto, table, builds.new, builds.new_version, lines, device.keys,
                       chunk_delay=0.0 if hold else 0.05)
    done: list[SeatResult] = []
    thread = threading.Thread(target=lambda: done.append(_run(updater)), daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    sizes = {f.path: f.size for f in updater.files}
    while time.monotonic() < deadline:
        if hold and any(f"update held at {hold}" in line for line in device.stderr):
            break
        if not hold and any(0 < n < sizes[p] for p, n in updater.server.sent.items()):
            break
        time.sleep(0.02)
    else:
        raise AssertionError(f"the update never reached {hold or 'mid-file'}: {lines}")
    device.power_cut()
    thread.join(40)
    assert done, lines
    _online(watch, builds.old_version)
    return done[0], device


@pytest.mark.slow
@pytest.mark.parametrize("hold", ["", "staged", "switch"], ids=["mid-file", "staged",
                                                                 "switch"])
def test_a_power_cut_during_an_update_leaves_the_old_version(
    micropython: str, mosquitto: Mosquitto, builds: Builds, tmp_path: Path, watch: Watcher,
    request: pytest.FixtureRequest, hold: str,
) -> None:
    table = _table(request)
    result, device = _cut_during(micropython, mosquitto, builds, tmp_path, watch, table, hold)
    try:
        assert (result.result, result.why) == (FAILED, "the seat restarted before the switch")
        assert result.fw == builds.old_version
        marker = device.root / "ota.json"
        assert not marker.exists(), marker.read_text()
        if hold == "":
            # What the cut left behind does not stand in the way of the next update.
            lines: list[str] = []
            again = _run(_updater(mosquitto, table, builds.new, builds.new_version, lines,
                                   device.keys))
            assert (again.result, again.fw) == (UPDATED, builds.new_version), lines
    finally:
        device.close()


@pytest.mark.slow
def test_no_update_while_a_game_is_running(
    mosquitto: Mosquitto, builds: Builds, watch: Watcher, request: pytest.FixtureRequest,
    tmp_path: Path,
) -> None:
    table = _table(request)
    keys = tmp_path / "keys"
    hub = Watcher(mosquitto.host, mosquitto.port, [topics.board(table)])
    board = {"v": 1, "t": "board", "owners": [1] * 42, "armies": [1] * 42,
             "turn": {"seat": 1, "phase": "attack"}}
    try:
        hub.publish(topics.hub_status(table), {"v": 1, "t": "hub_status", "online": True,
                                               "session": 1}, retain=True)
        hub.publish(topics.board(table), board, retain=True)
        lines: list[str] = []
        with pytest.raises(UpdateError, match="a game is running"):
            _updater(mosquitto, table, builds.new, builds.new_version, lines,
                     keys).run([1])
        assert not lines  # nothing was sent
        hub.publish(topics.board(table), {**board, "turn": {"seat": 1, "phase": "over"}},
                    retain=True)
        with pytest.raises(UpdateError, match="no seat is online"):
            _updater(mosquitto, table, builds.new, builds.new_version, lines,
                     keys).run(None)
    finally:
        for topic in (topics.hub_status(table), topics.board(table)):
            hub.client.publish(topic, b"", qos=1, retain=True).wait_for_publish(10)
        hub.close()


@pytest.mark.slow
def test_the_command_updates_a_seat(
    device: Device, mosquitto: Mosquitto, builds: Builds, tmp_path: Path, watch: Watcher,
    request: pytest.FixtureRequest,
) -> None:
    import sys

    table = _table(request)
    result = subprocess.run(
        [sys.executable, "-m", "risktable", "seat", "update", "--seat", "1", "--table",
         table, "--broker", f"{mosquitto.host}:{mosquitto.port}", "--bind", "127.0.0.1",
         "--probation", str(PROBATION_S), "--timeout", "60", "--keys", str(device.keys),
         "--source", str(builds.new_tree)],
        capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "seat update: seat 1: manifest sent" in result.stdout
    assert result.stdout.rstrip().endswith(f"seat 1: updated; runs {builds.new_version}")
