"""Real parts for the LED link tests: a pty pair and the controller firmware under MicroPython."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
import time
import tty
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from risktable.hardware.data import LedMap, load_led_map
from tests.support.tools import ROOT

LEDCTL = ROOT / "firmware" / "ledctl"
# Test-only MicroPython modules (a stand-in rp2) live beside the tests.
MPY_SUPPORT = Path(__file__).resolve().parent / "mpy"
VECTORS = Path(__file__).resolve().parent / "vectors.json"

Pixel = tuple[int, int, int]


def mpy_env() -> dict[str, str]:
    env = dict(os.environ)
    # .frozen keeps the port's built-in modules importable once MICROPYPATH is set.
    env["MICROPYPATH"] = ":".join([".frozen", str(LEDCTL), str(MPY_SUPPORT)])
    return env


RunMpy = Callable[[str], list[Any]]


@pytest.fixture
def run_mpy(micropython: str, tmp_path: Path) -> RunMpy:
    """Run a MicroPython script with the controller modules importable; JSON lines back."""

    def run(source: str) -> list[Any]:
        script = tmp_path / "script.py"
        script.write_text(textwrap.dedent(source))
        done = subprocess.run([micropython, str(script)], capture_output=True, text=True,
                              env=mpy_env(), cwd=str(tmp_path), timeout=120, check=False)
        if done.returncode != 0:
            pytest.fail(f"micropython exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
        return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]

    return run


class StripLog:
    """Reads the emulated strip's JSON lines: the pixels now and their history."""

    def __init__(self, path: Path, count: int) -> None:
        self.path = path
        self.count = count

    def history(self) -> list[tuple[int, list[Pixel]]]:
        """Each show() as (controller ms, every pixel after it)."""
        pixels: list[Pixel] = [(0, 0, 0)] * self.count
        states = []
        if not self.path.exists():
            return []
        for line in self.path.read_text().splitlines():
            if not line.endswith("}"):
                break  # a line still being written
            entry = json.loads(line)
            for i, r, g, b in entry["px"]:
                pixels[i] = (r, g, b)
            states.append((entry["t"], list(pixels)))
        return states

    def now(self) -> list[Pixel]:
        states = self.history()
        return states[-1][1] if states else [(0, 0, 0)] * self.count


class ControllerProcess:
    """The LED controller firmware running under MicroPython on the master side of a pty.

    The hub opens ``port``, a symlink to the pty's slave (as udev's
    /dev/serial/by-id links point at the current tty), so a restarted
    controller on a new pty appears at the same path.
    """

    def __init__(self, micropython: str, workdir: Path, led_map: LedMap, lost_ms: int) -> None:
        self.micropython = micropython
        self.workdir = workdir
        self.led_count = led_map.led_count
        self.lost_ms = lost_ms
        self.port = workdir / "ttyLED"
        self.runs = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.slave: int | None = None
        self.strip = StripLog(workdir / "strip-0.jsonl", self.led_count)

    def start(self) -> None:
        master, slave = os.openpty()
        # Raw before anyone writes, so nothing is echoed or translated.
        tty.setraw(slave)
        self.runs += 1
        self.strip = StripLog(self.workdir / f"strip-{self.runs}.jsonl", self.led_count)
        args = [self.micropython, str(LEDCTL / "main.py"), "--port", f"fd:{master}",
                "--strip", str(self.strip.path), "--leds", str(self.led_count),
                "--lost-ms", str(self.lost_ms)]
        self.proc = subprocess.Popen(args, pass_fds=[master], env=mpy_env(),
                                     stderr=subprocess.PIPE, cwd=str(self.workdir))
        os.close(master)
        self.slave = slave
        tmp = self.workdir / "ttyLED.new"
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(os.ttyname(slave))
        tmp.replace(self.port)
        self.wait_for(lambda: bool(self.strip.history()) or self.proc is None, 10.0,
                      "controller to start", allow_exit=False)

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(timeout=10)
            if self.proc.stderr is not None:
                self.proc.stderr.close()
            self.proc = None
        if self.slave is not None:
            os.close(self.slave)
            self.slave = None

    def check_alive(self) -> None:
        if self.proc is not None and self.proc.poll() is not None:
            err = self.proc.stderr.read().decode() if self.proc.stderr else ""
            pytest.fail(f"controller exited {self.proc.returncode}: {err}")

    def wait_for(self, predicate: Callable[[], bool], timeout: float, what: str,
                 allow_exit: bool = False) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not allow_exit:
                self.check_alive()
            if predicate():
                return
            time.sleep(0.02)
        pytest.fail(f"timed out after {timeout} s waiting for {what}")


@pytest.fixture
def led_map() -> LedMap:
    return load_led_map()


@pytest.fixture
def controller(micropython: str, tmp_path: Path, led_map: LedMap) -> Iterator[ControllerProcess]:
    """A running LED controller with a 1.5 s hub-lost timeout; stopped after the test."""
    ctl = ControllerProcess(micropython, tmp_path, led_map, lost_ms=1500)
    ctl.start()
    yield ctl
    ctl.stop()
