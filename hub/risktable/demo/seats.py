"""Seat firmware processes under the MicroPython unix port, on the emulated board.

Each seat is the real firmware (``firmware/main.py``) with a generated
configuration. The emulated board prints one JSON line per output change
(LED ring, OLED, network state) on stdout; a reader thread keeps the latest
of each so the demo and the tests can see what the seat shows.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from risktable.broker_address import BrokerAddress
from risktable.paths import firmware_dir, protocol_dir
from risktable.processes import end_process

#: The output lines that say what became of an input line (firmware/README.md).
_VERDICTS = ("numbered", "refused")


class SeatProcess:
    """One seat firmware process; ``outputs`` holds the latest line per output key."""

    def __init__(
        self,
        micropython: str,
        seat: int,
        table: str,
        broker: BrokerAddress,
        workdir: Path,
        *,
        keepalive: int = 10,
        extra_config: dict[str, Any] | None = None,
    ) -> None:
        self.seat = seat
        self.workdir = workdir / f"seat{seat}"
        self.workdir.mkdir(parents=True, exist_ok=True)
        config: dict[str, Any] = {
            "table": table,
            "seat": seat,
            "board": "emulated",
            "broker": {"host": broker.host, "port": broker.port, "keepalive": keepalive},
        }
        config.update(extra_config or {})
        config_path = self.workdir / "config.json"
        config_path.write_text(json.dumps(config, indent=2))
        self._prepare(micropython, config_path)

    @classmethod
    def of_file(cls, micropython: str, seat: int, config_path: Path) -> SeatProcess:
        """The firmware on a configuration file of its own (``risktable seat config``),
        run in the file's folder: the state the seat keeps beside its configuration
        (its session number, its last reset cause) lasts from one run to the next, as
        on a seat's flash."""
        process = cls.__new__(cls)
        process.seat = seat
        config_path = config_path.resolve()
        process.workdir = config_path.parent
        process._prepare(micropython, config_path)
        return process

    def _prepare(self, micropython: str, config_path: Path) -> None:
        # Every display change in order, once a caller asks for them (a test that renders
        # the screens a game showed); None: only the latest, in outputs.
        self.history: list[dict[str, Any]] | None = None
        self.config_path = config_path
        self._argv = [micropython, str(firmware_dir() / "main.py"), str(self.config_path)]
        self._env = dict(os.environ)
        self._env["MICROPYPATH"] = os.pathsep.join(
            [str(firmware_dir()), str(protocol_dir()), ".frozen"]
        )
        self.outputs: dict[str, Any] = {}
        # What the seat made of each input line, in order: ("numbered", [seq, kind]) for
        # an event it queued for the hub, ("refused", why) for a line it did not take.
        self.verdicts: list[tuple[str, Any]] = []
        self.stderr_tail: deque[str] = deque(maxlen=20)
        self._changed = threading.Condition()
        self.process: subprocess.Popen[str] | None = None

    def start(self) -> SeatProcess:
        self.process = subprocess.Popen(
            self._argv,
            cwd=self.workdir,
            env=self._env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()
        return self

    def _read_stdout(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        for line in self.process.stdout:
            try:
                update = json.loads(line)
            except ValueError:
                self.stderr_tail.append(line.rstrip())
                continue
            if isinstance(update, dict):
                with self._changed:
                    if self.history is not None and "oled" in update:
                        self.history.append(update)
                    self.verdicts += [(key, update[key]) for key in _VERDICTS if key in update]
                    self.outputs.update(update)
                    self._changed.notify_all()

    def _read_stderr(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr_tail.append(line.rstrip())

    def send(self, command: dict[str, Any]) -> None:
        """Feed one input line to the emulated board (button, encoder, dice, card)."""
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()

    def wait_until(self, predicate: Callable[[dict[str, Any]], bool], timeout: float) -> bool:
        """Wait until ``predicate(outputs)`` holds; False on timeout."""
        with self._changed:
            return bool(self._changed.wait_for(lambda: predicate(self.outputs), timeout))

    def wait_verdict(self, index: int, timeout: float) -> tuple[str, Any] | None:
        """``verdicts[index]`` once the seat has told it; None on timeout."""
        with self._changed:
            if not self._changed.wait_for(lambda: len(self.verdicts) > index, timeout):
                return None
            return self.verdicts[index]

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL: the broker publishes this seat's Last Will."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()

    def stop(self) -> None:
        if self.process is not None:
            end_process(self.process)


def ring_shows(outputs: dict[str, Any], rgb: tuple[int, int, int]) -> bool:
    """Whether the emulated LED ring lights some pixel in colour ``rgb`` at any brightness.

    The seat scales its colours by brightness and animation level, so a pixel
    counts when it is a dimmed copy of ``rgb`` (each channel within 3 % of the
    brightest channel's share).
    """
    ring = outputs.get("ring")
    if not isinstance(ring, list):
        return False
    top = max(rgb)
    for pixel in ring:
        level = max(pixel)
        if level < 16 or top == 0:
            continue
        if all(abs(p / level - c / top) <= 0.03 for p, c in zip(pixel, rgb, strict=True)):
            return True
    return False
