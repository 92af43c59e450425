"""Seat firmware processes under the MicroPython unix port, and an MQTT watcher for tests."""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from risktable.processes import end_process
from paho.mqtt.enums import CallbackAPIVersion

from tests.support.tools import ROOT

FIRMWARE = ROOT / "firmware"
PROTOCOL = ROOT / "protocol"
MICROPYPATH = f"{FIRMWARE}:{PROTOCOL}:.frozen"


def is_red_breath(ring: Any) -> bool:
    """drivers/ring.py's LINK_NO_HUB: the whole ring one red (breathing)."""
    return bool(ring) and all(p == ring[0] for p in ring) and ring[0][0] > 0 == ring[0][1]


def write_config(
    directory: Path, table: str, seat: int, port: int, **overrides: Any
) -> Path:
    """Write a seat config for a broker on 127.0.0.1:``port``; return its path."""
    broker: dict[str, Any] = {"host": "127.0.0.1", "port": port, "keepalive": 2}
    broker.update(overrides.pop("broker", {}))
    cfg: dict[str, Any] = {"table": table, "seat": seat, "broker": broker, "board": "emulated"}
    cfg.update(overrides)
    path = directory / f"seat{seat}.json"
    path.write_text(json.dumps(cfg))
    return path


def unread_bytes(pid: int, port: int) -> int:
    """Bytes that arrived on process ``pid``'s TCP connection to local port ``port`` and
    wait unread in its receive queue (Linux: ``/proc/PID/fd`` and ``/proc/net/tcp``)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        target = os.readlink(fd) if fd.is_symlink() else ""
        if target.startswith("socket:["):
            inodes.add(target[len("socket:["):-1])
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            fields = row.split()
            remote_port = int(fields[2].rsplit(":", 1)[1], 16)
            if fields[9] in inodes and remote_port == port:
                return int(fields[4].split(":")[1], 16)
    raise AssertionError(f"process {pid} has no connection to port {port}")


class SeatProcess:
    """``micropython firmware/main.py CONFIG`` with its stdout JSON lines collected."""

    def __init__(
        self,
        micropython: str,
        config: Path,
        heapsize: str | None = None,
        build: Path | None = None,
    ) -> None:
        # ``build``: run a compiled firmware folder (risktable seat build) instead of the
        # tree, laid out as on the device: the build and the config (as config.json) in a
        # folder of their own, which is the working directory, started by ``import main``
        # as the board's boot does. The unix port puts the absolute folder of a script it
        # is given on sys.path, and every import then builds path strings that long in the
        # heap: run as a script, the heap a seat needs grew with the temporary folder's
        # name (1.4 KiB between /tmp/b and a pytest-xdist worker's folder).
        argv = [micropython]
        if heapsize:
            argv += ["-X", f"heapsize={heapsize}"]
        cwd: Path | None = None
        if build is not None:
            cwd = config.parent / f"{config.stem}-flash"
            shutil.rmtree(cwd, ignore_errors=True)
            shutil.copytree(build, cwd)
            shutil.copy(config, cwd / "config.json")
            argv += ["-c", "import main"]
            path = ".frozen"
        else:
            argv += [str(FIRMWARE / "main.py"), str(config)]
            path = MICROPYPATH
        self.flash = cwd
        self.process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={"MICROPYPATH": path, "PATH": "/usr/bin:/bin"},
            cwd=cwd,
        )
        self.outputs: queue.Queue[dict[str, Any]] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        # Beside the queue: the latest value of each output, and every verdict on an
        # input line in order ("numbered" [seq, kind], or "refused" why).
        self.latest: dict[str, Any] = {}
        self.verdicts: list[tuple[str, Any]] = []
        self.stderr_lines: list[str] = []
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stdout(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            try:
                line = json.loads(raw)
                self.latest.update(line)
                self.verdicts += [(key, line[key]) for key in ("numbered", "refused")
                                  if key in line]
                self.outputs.put(line)
            except ValueError:
                # MicroPython prints an uncaught exception's traceback to stdout.
                self.stderr_lines.append("stdout: " + raw.decode(errors="replace").rstrip())

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        for raw in self.process.stderr:
            self.stderr_lines.append(raw.decode(errors="replace").rstrip())

    def send(self, line: dict[str, Any]) -> None:
        """Feed one input line to the emulated board."""
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(line).encode() + b"\n")
        self.process.stdin.flush()

    def type_line(self, line: dict[str, Any], timeout: float = 20.0) -> int:
        """Type ``line`` until the seat numbers it, and return the event's ``seq``. A line
        it refuses (its outbox full, or waiting for the hub: an answer still on its
        way) is typed again once the display's notice is gone."""
        deadline = time.monotonic() + timeout
        while True:
            told = len(self.verdicts)
            self.send(line)
            while len(self.verdicts) <= told:
                assert time.monotonic() < deadline, f"no verdict on {line}: {self.stderr_lines}"
                time.sleep(0.005)
            said, what = self.verdicts[told]
            if said == "numbered":
                return int(what[0])
            while (self.latest.get("oled") or [""])[0] in ("outbox full",
                                                            "waiting for the hub"):
                assert time.monotonic() < deadline, f"{line} held back: {self.latest}"
                time.sleep(0.01)

    def wait_output(
        self, match: Callable[[dict[str, Any]], bool], timeout: float = 10.0
    ) -> dict[str, Any]:
        """Return the first output line (from now on) that ``match`` accepts."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(
                    f"no matching output within {timeout} s; stderr: {self.stderr_lines[-20:]}"
                )
            try:
                line = self.outputs.get(timeout=left)
            except queue.Empty:
                continue
            self.seen.append(line)
            if match(line):
                return line

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()

    def stop(self) -> None:
        end_process(self.process)


class Watcher:
    """A paho-mqtt client that records every message on the given filters."""

    def __init__(self, host: str, port: int, filters: list[str]) -> None:
        self.messages: queue.Queue[tuple[str, dict[str, Any], bool]] = queue.Queue()
        self.pending: list[tuple[str, dict[str, Any], bool]] = []
        self._subscribed = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2)
        self.client.on_message = self._on_message
        self.client.on_subscribe = lambda *args: self._subscribed.set()
        self.client.connect(host, port, keepalive=10)
        self.client.subscribe([(f, 1) for f in filters])
        self.client.loop_start()
        if not self._subscribed.wait(10):
            raise AssertionError("watcher could not subscribe")

    def _on_message(self, client: Any, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        payload = json.loads(msg.payload) if msg.payload else {}
        self.messages.put((msg.topic, payload, bool(msg.retain)))

    def publish(self, topic: str, payload: dict[str, Any], retain: bool = False) -> None:
        self.client.publish(topic, json.dumps(payload), qos=1, retain=retain).wait_for_publish(10)

    def wait(
        self, match: Callable[[str, dict[str, Any], bool], bool], timeout: float = 10.0
    ) -> tuple[str, dict[str, Any], bool]:
        """Return the first message not yet returned that ``match`` accepts.

        Messages that do not match stay pending for later calls, so waiting for seat 1
        does not swallow seat 2's message that happened to arrive first.
        """
        for i, item in enumerate(self.pending):
            if match(*item):
                return self.pending.pop(i)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no matching message within {timeout} s: {self.pending}")
            try:
                item = self.messages.get(timeout=left)
            except queue.Empty:
                continue
            if match(*item):
                return item
            self.pending.append(item)

    def close(self) -> None:
        self.client.disconnect()  # first: see AckingHub.close
        self.client.loop_stop()
