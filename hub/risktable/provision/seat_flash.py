"""Put MicroPython, the compiled firmware and a seat's configuration onto an ESP32-S3.

``risktable seat flash`` runs these steps, each through the tool's own command line
(``python -m esptool``, ``python -m mpremote``) so the tests can put recording fakes in
their place (``RISKTABLE_ESPTOOL`` / ``RISKTABLE_MPREMOTE`` name another command):

1. ``esptool chip-id``: the board must be an ESP32-S3 (the seat's N8R8 module);
2. with an image: ``esptool erase-flash`` and ``write-flash 0x0 IMAGE`` (the S3's
   MicroPython images start with the bootloader at offset 0);
3. wait until MicroPython answers on the port, and refuse a runtime whose version is not
   the pinned one (:mod:`risktable.provision.micropython_version`): the compiled firmware
   is bytecode for that version;
4. a reset into the seat's safe mode (no watchdog: a running seat's would reset it in the
   middle of the copy), and the wait for MicroPython to answer again;
5. ``mpremote fs cp``: the firmware folder (``risktable seat build``'s output) into the
   board's root, the seat's configuration as ``config.json``, the seat's update key as
   ``update.key`` (:mod:`risktable.provision.seat_keys`: made the first time, or anew
   with ``--new-secret``, and kept on this side for ``risktable seat update``), then a
   reset.

Nothing is downloaded: the MicroPython image is a file the user supplies.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from risktable.provision import micropython_version as mpv
from risktable.provision import seat_keys

ESPTOOL_ENV = "RISKTABLE_ESPTOOL"
MPREMOTE_ENV = "RISKTABLE_MPREMOTE"
CHIP = "ESP32-S3"
#: Where an ESP32-S3 MicroPython image goes (bootloader, partition table and app in one).
IMAGE_OFFSET = "0x0"
BAUD = "460800"
# What the runtime is asked: its version tuple, e.g. (1, 29, 0, '').
_ASK_VERSION = "import sys; print(sys.implementation.version)"
# A seat that runs the firmware arms an 8 s watchdog, which goes on running in the REPL
# mpremote enters, and copying the build takes longer: the seat would reset halfway,
# old and new files mixed. Three failed starts recorded put the next start in the safe
# mode (firmware/README.md, "Safe mode": no watchdog, the REPL free), which also clears
# the count, so the start after the copy tries normally. A board without the firmware
# yet only gets a file it never reads.
# The firmware's own names (firmware/main.py's config file, board/__init__.py's count of
# failed starts and its threshold); tests/firmware/test_seat_flash.py holds them equal.
DEVICE_CONFIG = "config.json"
STARTS_SUFFIX = ".starts"
FAILED_STARTS = 3
_TO_SAFE_MODE = (f"open('{DEVICE_CONFIG}{STARTS_SUFFIX}', 'w').write('{FAILED_STARTS}')\n"
                 "import machine\nmachine.reset()")

# Exit codes of `risktable seat flash`, one per kind of failure (docs: firmware/README.md).
EXIT_TOOL = 1
EXIT_USAGE = 2
EXIT_NO_ANSWER = 3
EXIT_WRONG_CHIP = 4
EXIT_WRONG_VERSION = 5


class FlashError(Exception):
    """A step failed; the message says which and what to do, ``exit_code`` its kind."""

    def __init__(self, message: str, exit_code: int = EXIT_TOOL) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass(frozen=True)
class Tools:
    """The command lines that start esptool and mpremote."""

    esptool: tuple[str, ...]
    mpremote: tuple[str, ...]

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Tools:
        """``python -m esptool`` / ``python -m mpremote`` unless the environment names others."""
        env = dict(os.environ) if env is None else env

        def pick(var: str, module: str) -> tuple[str, ...]:
            given = env.get(var, "").strip()
            return tuple(shlex.split(given)) if given else (sys.executable, "-m", module)

        return cls(pick(ESPTOOL_ENV, "esptool"), pick(MPREMOTE_ENV, "mpremote"))


@dataclass
class Plan:
    """What to put on the board."""

    port: str
    build: Path
    config: Path
    image: Path | None = None
    seat: int | None = None
    #: How long to wait for MicroPython to answer after the chip check or a write.
    wait_s: float = 30.0
    #: The folder of the seats' update keys, and whether this seat gets a new one.
    keys: Path = seat_keys.DEFAULT_DIR
    new_secret: bool = False


def check_inputs(plan: Plan) -> tuple[int, str]:
    """Refuse a missing image, build folder or configuration before touching the board.

    Returns the seat number and the table the configuration is for.
    """
    if plan.image is not None:
        if not plan.image.is_file():
            raise FlashError(f"no MicroPython image at {plan.image}", EXIT_USAGE)
        if plan.image.stat().st_size == 0:
            raise FlashError(f"the MicroPython image {plan.image} is empty", EXIT_USAGE)
    if not (plan.build / "main.py").is_file():
        raise FlashError(
            f"{plan.build} holds no compiled firmware (main.py); run: risktable seat build "
            f"--out {plan.build}", EXIT_USAGE)
    try:
        config = json.loads(plan.config.read_text())
    except OSError as exc:
        raise FlashError(f"cannot read {plan.config}: {exc.strerror}", EXIT_USAGE) from None
    except ValueError:
        raise FlashError(f"{plan.config} is not JSON", EXIT_USAGE) from None
    if not isinstance(config, dict) or not isinstance(config.get("seat"), int):
        raise FlashError(f"{plan.config} is not a seat configuration", EXIT_USAGE)
    if config.get("board") != "esp32":
        raise FlashError(
            f"{plan.config} is for the {config.get('board', 'emulated')} board; write one with"
            " risktable seat config --board esp32", EXIT_USAGE)
    if plan.seat is not None and config["seat"] != plan.seat:
        raise FlashError(f"{plan.config} is seat {config['seat']}'s, not seat {plan.seat}'s",
                         EXIT_USAGE)
    seat: int = config["seat"]
    table = config.get("table")
    if not isinstance(table, str):
        raise FlashError(f"{plan.config} names no table", EXIT_USAGE)
    return seat, table


Runner = Callable[..., "subprocess.CompletedProcess[str]"]


class Flasher:
    """Runs the steps of :func:`flash` with one set of tools, reporting through ``say``."""

    def __init__(self, tools: Tools, say: Callable[[str], None],
                 run: Runner = subprocess.run, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.tools = tools
        self.say = say
        self._run = run
        self._sleep = sleep
        self._clock = clock

    def _tool(self, argv: Sequence[str], timeout: float,
              cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        name = Path(argv[0]).name if argv[0] != sys.executable else argv[2]
        try:
            return self._run(list(argv), capture_output=True, text=True, timeout=timeout,
                             cwd=cwd, check=False)
        except FileNotFoundError:
            raise FlashError(f"cannot start {argv[0]}; install the flash tools: "
                             "pip install 'risktable[flash]'") from None
        except subprocess.TimeoutExpired:
            raise FlashError(f"{name} gave no answer within {timeout:.0f} s",
                             EXIT_NO_ANSWER) from None

    def esptool(self, port: str, *args: str, timeout: float = 120) -> str:
        """Run esptool on ``port``; its output, or FlashError naming its last line."""
        done = self._tool([*self.tools.esptool, "--port", port, *args], timeout)
        out = done.stdout + done.stderr
        if done.returncode != 0:
            if re.search(r"Failed to connect|could not open port|No serial data", out):
                raise FlashError(
                    f"no ESP32 answers on {port} (is it plugged in? hold BOOT and press "
                    f"RESET to enter the download mode): {_reason(out)}", EXIT_NO_ANSWER)
            raise FlashError(f"esptool {args[-1] if args else ''} failed on {port}: "
                             f"{_reason(out)}")
        return out

    def mpremote(self, port: str, *args: str, cwd: Path | None = None,
                 timeout: float = 120) -> subprocess.CompletedProcess[str]:
        """Run ``mpremote connect PORT ARGS...``."""
        return self._tool([*self.tools.mpremote, "connect", port, *args], timeout, cwd=cwd)

    def check_chip(self, port: str) -> str:
        """The chip's name from ``esptool chip-id``; FlashError unless it is an ESP32-S3."""
        out = self.esptool(port, "chip-id", timeout=60)
        chip = _chip_name(out)
        if chip is None:
            raise FlashError(f"esptool did not name the chip on {port}: {_reason(out)}")
        if chip != CHIP:
            raise FlashError(f"the board on {port} is an {chip}; a seat is an {CHIP}",
                             EXIT_WRONG_CHIP)
        return chip

    def write_image(self, port: str, image: Path) -> None:
        """Erase the flash and write ``image`` at the S3's offset."""
        self.say(f"erasing the flash on {port}")
        self.esptool(port, "--chip", "esp32s3", "erase-flash", timeout=180)
        self.say(f"writing {image.name} at {IMAGE_OFFSET}")
        self.esptool(port, "--chip", "esp32s3", "--baud", BAUD, "write-flash",
                     IMAGE_OFFSET, str(image), timeout=600)

    def runtime_version(self, port: str, wait_s: float) -> tuple[int, int, int]:
        """Wait for MicroPython to answer on ``port`` and return its version."""
        deadline = self._clock() + wait_s
        last = ""
        while True:
            # A board that has just been reset comes back on USB after a moment: its
            # device file is missing or the REPL does not answer yet.
            if not port.startswith("/") or os.path.exists(port):
                done = self.mpremote(port, "exec", _ASK_VERSION, timeout=30)
                out = done.stdout + done.stderr
                if done.returncode == 0:
                    version = mpv.parse_version(done.stdout)
                    if version is None:
                        raise FlashError(
                            f"the board on {port} did not give a MicroPython version: "
                            f"{_reason(out)}")
                    return version
                last = _reason(out)
            else:
                last = f"{port} is not there"
            if self._clock() >= deadline:
                raise FlashError(f"MicroPython does not answer on {port} after {wait_s:.0f} s"
                                 f" ({last})", EXIT_NO_ANSWER)
            self._sleep(1.0)

    def hold_safe(self, port: str, wait_s: float) -> None:
        """Reset the board into its safe mode (no watchdog) and wait until it answers."""
        # The reset drops mpremote's link: its status says nothing.
        self.mpremote(port, "exec", _TO_SAFE_MODE, timeout=30)
        self.runtime_version(port, wait_s)

    def install(self, port: str, build: Path, config: Path, key: bytes) -> int:
        """Copy the firmware folder, the configuration and the update key; reset.
        Returns files copied."""
        entries = sorted(p.name for p in build.iterdir() if p.name != "config.json")
        files = sum(1 for p in build.rglob("*") if p.is_file() and p.name != "config.json")
        self.say(f"copying the firmware ({files} files from {build})")
        self._check(self.mpremote(port, "fs", "cp", "-r", *entries, ":", cwd=build,
                                  timeout=600), "copying the firmware", port)
        self.say(f"copying {config.name} as config.json")
        self._check(self.mpremote(port, "fs", "cp", str(config.resolve()), ":config.json"),
                    "copying the configuration", port)
        self.say(f"copying the seat's update key as {seat_keys.DEVICE_FILE}")
        with tempfile.TemporaryDirectory(prefix="risktable-key-") as scratch:
            # Readable by this user only while it exists (the folder is 0700).
            held = Path(scratch) / seat_keys.DEVICE_FILE
            seat_keys.write_key(held, key)
            self._check(self.mpremote(port, "fs", "cp", str(held),
                                      ":" + seat_keys.DEVICE_FILE),
                        "copying the update key", port)
        self.say("resetting the board")
        self._check(self.mpremote(port, "reset"), "resetting", port)
        return files + 2

    def _check(self, done: subprocess.CompletedProcess[str], what: str, port: str) -> None:
        if done.returncode != 0:
            raise FlashError(f"mpremote failed {what} on {port}: "
                             f"{_reason(done.stdout + done.stderr)}")


def flash(plan: Plan, tools: Tools | None = None,
          say: Callable[[str], None] = print, flasher: Flasher | None = None) -> int:
    """Run every step for ``plan``; return the seat number. Raises :class:`FlashError`."""
    seat, table = check_inputs(plan)
    try:
        key, made = seat_keys.ensure(plan.keys, table, seat, plan.new_secret)
    except seat_keys.SeatKeyError as exc:
        raise FlashError(str(exc), EXIT_USAGE) from None
    except OSError as exc:
        raise FlashError(f"cannot keep seat {seat}'s update key in {plan.keys}: "
                         f"{exc.strerror}", EXIT_USAGE) from None
    f = flasher or Flasher(tools or Tools.from_env(), say)
    f.say(f"seat {seat}'s update key: {'new' if made else 'kept'}, in "
          f"{seat_keys.key_path(plan.keys, table, seat)}")
    f.say(f"checking the chip on {plan.port}")
    chip = f.check_chip(plan.port)
    f.say(f"found an {chip}")
    if plan.image is not None:
        f.write_image(plan.port, plan.image)
    f.say(f"waiting for MicroPython on {plan.port}")
    version = f.runtime_version(plan.port, plan.wait_s)
    have = ".".join(map(str, version))
    if version != mpv.VERSION:
        raise FlashError(
            f"the board runs MicroPython {have}; the firmware needs {mpv.VERSION_TEXT} "
            f"(flash the {mpv.BOARD}-{mpv.VARIANT} image of v{mpv.VERSION_TEXT} with "
            "--firmware)", EXIT_WRONG_VERSION)
    f.say(f"MicroPython {have} answers")
    f.say("resetting the seat into its safe mode, where no watchdog runs, for the copy")
    f.hold_safe(plan.port, plan.wait_s)
    f.install(plan.port, plan.build, plan.config, key)
    f.say(f"seat {seat} is flashed")
    return seat


def _chip_name(out: str) -> str | None:
    # esptool 5 prints "Connected to ESP32-S3 on PORT:" and "Chip type: ESP32-S3 (QFN56)
    # (revision v0.2)"; esptool 4 printed "Chip is ESP32-S3 (QFN56) ...".
    match = re.search(r"(?:Chip type:|Chip is|Connected to)\s+(ESP[\w-]+)", out)
    return match[1] if match else None


def _reason(out: str) -> str:
    # The reason a tool gave: esptool's "A fatal error occurred: ..." line (hints follow
    # it), else the last line it printed.
    lines = [line.strip() for line in out.splitlines() if line.strip()]
    for line in lines:
        if "A fatal error occurred:" in line:
            return line.split("A fatal error occurred:", 1)[1].strip()
    return lines[-1] if lines else "no output"
