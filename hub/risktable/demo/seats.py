"""Seat firmware processes under the MicroPython unix port, on the emulated board.

Each seat is the real firmware (``firmware/main.py``) with a generated
configuration. The emulated board prints one JSON line per output change
(LED ring, OLED, network state) on stdout; a reader thread keeps the latest
of each so the demo and the tests can see what the seat shows.

Started with ``say``, a seat is supervised as a chip's reset starts it again: a board
reset (its watchdog, or the seat resetting itself after an error; the process ends by
SIGUSR1) or an error at start-up (status 3) starts the firmware again and ``say`` is told
one line naming the seat and the cause; a crash loop (more than :data:`RESTART_LIMIT`
restarts in :data:`RESTART_WINDOW` seconds) is not restarted again, nor a seat that asks
for its safe mode (:data:`SAFE_MODE_STATUS`); firmware/README.md, "Resets".
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from risktable.broker_address import BrokerAddress
from risktable.demo.patience import Patience
from risktable.paths import firmware_dir, protocol_dir
from risktable.processes import end_process

#: The output lines that say what became of an input line (firmware/README.md).
_VERDICTS = ("numbered", "refused")
# A line the seat refused is typed again this long after (press()).
_PRESS_AGAIN_S = 0.25

#: How the emulated seat's process ends (firmware/README.md, "Resets"): its board reset
#: (SIGUSR1, its cause in CONFIG.reset), an error at start-up (the unix port's stand-in
#: for machine.reset()), and a seat that asks to stay in its safe mode.
RESET_STATUS = -signal.SIGUSR1
STARTUP_ERROR_STATUS = 3
SAFE_MODE_STATUS = 5
#: A crash loop: more restarts than this in RESTART_WINDOW seconds, and the seat stays down.
RESTART_LIMIT = 5
RESTART_WINDOW = 60.0


class RestartBudget:
    """At most ``limit`` restarts in any ``window`` seconds of ``clock``.

    >>> now = [0.0]
    >>> budget = RestartBudget(2, 10.0, clock=lambda: now[0])
    >>> budget.allow(), budget.allow(), budget.allow()
    (True, True, False)
    >>> now[0] = 10.5
    >>> budget.allow()
    True
    """

    def __init__(self, limit: int = RESTART_LIMIT, window: float = RESTART_WINDOW,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window = window
        self._clock = clock
        self._times: deque[float] = deque()

    def allow(self) -> bool:
        """Whether one more restart fits; counts it when it does."""
        now = self._clock()
        while self._times and now - self._times[0] >= self.window:
            self._times.popleft()
        if len(self._times) >= self.limit:
            return False
        self._times.append(now)
        return True


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
    def of_file(cls, micropython: str, seat: int, config_path: Path, *,
                selftest: bool = False) -> SeatProcess:
        """The firmware on a configuration file of its own (``risktable seat config``),
        run in the file's folder: the state the seat keeps beside its configuration
        (its session number, its last reset cause) lasts from one run to the next, as
        on a seat's flash. ``selftest``: the bring-up self-test in place of the seat
        (firmware/seat/selftest.py), which ends with status 0 when every step passed."""
        process = cls.__new__(cls)
        process.seat = seat
        config_path = config_path.resolve()
        process.workdir = config_path.parent
        process._prepare(micropython, config_path)
        if selftest:
            process._argv = [micropython, "-c", "from seat import selftest; "
                             f"selftest.main({str(config_path)!r})"]
        return process

    def _prepare(self, micropython: str, config_path: Path) -> None:
        # Every display change in order, once a caller asks for them (a test that renders
        # the screens a game showed); None: only the latest, in outputs.
        self.history: list[dict[str, Any]] | None = None
        self.config_path = config_path
        # The seat's dice (seat/config.py): typed ones are entered with the knob, not rolled.
        try:
            self.dice = str(json.loads(config_path.read_text()).get("dice", "edice"))
        except (OSError, ValueError, AttributeError):
            self.dice = "edice"  # the firmware says what is wrong with the file
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
        self._stderr_read = threading.Event()  # the running process's stderr read to its end
        self._changed = threading.Condition()
        self.process: subprocess.Popen[str] | None = None
        self.restarts = 0  # how many times the supervisor started the firmware again
        self.budget = RestartBudget()
        self._supervisor: threading.Thread | None = None
        self._stopping = False
        self._down = False  # supervised, and not started again

    def start(self, say: Callable[[str], None] | None = None) -> SeatProcess:
        """Start the firmware; with ``say``, supervise it (the module's docstring): each
        restart, a crash loop given up and a safe mode are told to ``say`` in one line."""
        self._spawn()
        if say is not None:
            self._supervisor = threading.Thread(target=self._supervise, args=(say,),
                                                name=f"seat{self.seat}-supervisor", daemon=True)
            self._supervisor.start()
        return self

    def _supervise(self, say: Callable[[str], None]) -> None:
        while True:
            process = self.process
            assert process is not None
            status = process.wait()
            if self._stopping:
                return
            if status == SAFE_MODE_STATUS:
                self._down = True
                say(f"seat {self.seat} asked for its safe mode: left in it, not started again")
                return
            if status not in (RESET_STATUS, STARTUP_ERROR_STATUS):
                self._down = True  # an exit a person must look at
                return
            cause = self._reset_cause(status)
            if not self.budget.allow():
                self._down = True
                say(f"seat {self.seat} was reset {self.budget.limit + 1} times within "
                    f"{self.budget.window:g} s (last: {cause}): not started again")
                return
            self.restarts += 1
            self._close(process)
            with self._changed:
                self.outputs.clear()  # a seat that starts again shows nothing yet
                self._changed.notify_all()
            self._spawn()
            say(f"seat {self.seat} was reset ({cause}): started again")

    def _reset_cause(self, status: int) -> str:
        # The cause the board kept for the next start's birth (firmware/board reset()).
        if status == STARTUP_ERROR_STATUS:
            return "an error at start-up"
        with contextlib.suppress(OSError):
            kept = Path(f"{self.config_path}.reset").read_text().strip()
            if kept:
                return f"its {kept}" if kept == "watchdog" else kept
        return "a reset"

    @staticmethod
    def _close(process: subprocess.Popen[str]) -> None:
        # Its input; its readers close its outputs once they have read them to the end.
        if process.stdin is not None:
            with contextlib.suppress(OSError):
                process.stdin.close()

    def _spawn(self) -> None:
        self._stderr_read.clear()
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
        threading.Thread(target=self._read_stdout, args=(self.process,), daemon=True).start()
        threading.Thread(target=self._read_stderr, args=(self.process,), daemon=True).start()

    def _read_stdout(self, process: subprocess.Popen[str]) -> None:
        assert process.stdout is not None
        with contextlib.suppress(ValueError, OSError), process.stdout:  # closed by stop()
            self._read_lines(process.stdout)

    def _read_lines(self, stdout: Any) -> None:
        for line in stdout:
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
                    # "rolled": the armed roll the seat has sent its dice for, so that a
                    # panel asks for the roll only until it is made (the "armed" line
                    # stays until the hub disarms; a new arm asks again).
                    if "armed" in update:
                        self.outputs.pop("rolled", None)
                    numbered = update.get("numbered")
                    if isinstance(numbered, list) and numbered[1:] == ["dice"]:
                        update["rolled"] = self.outputs.get("armed")
                    self.outputs.update(update)
                    self._changed.notify_all()

    def _read_stderr(self, process: subprocess.Popen[str]) -> None:
        assert process.stderr is not None
        try:
            with contextlib.suppress(ValueError, OSError), process.stderr:  # closed by stop()
                for line in process.stderr:
                    self.stderr_tail.append(line.rstrip())
        finally:
            self._stderr_read.set()

    def stderr_drained(self, timeout: float) -> bool:
        """Wait until the last lines of a firmware that ended are in ``stderr_tail`` (its
        reader is a thread of its own); whether they are."""
        return self._stderr_read.wait(timeout)

    def send(self, command: dict[str, Any]) -> None:
        """Feed one input line to the emulated board (button, encoder, dice, card). A
        line typed while the seat resets is lost, as a press on a chip that resets."""
        process = self.process
        assert process is not None and process.stdin is not None
        with contextlib.suppress(ValueError, OSError):  # a closed pipe: it is resetting
            process.stdin.write(json.dumps(command) + "\n")
            process.stdin.flush()

    def press(self, command: dict[str, Any], patience: float,
              stalled: Callable[[], bool] = lambda: False) -> None:
        """Feed one input line as :meth:`send` does; when the seat refuses it at once (its
        outbox full, or a Confirm while the hub has not answered its last input for a
        while: a busy hub), type it again a moment later, as a person presses again once
        the seat says why, until the seat takes it or ``patience`` seconds have passed
        (not counting time the hub waited for its disk, ``stalled()``:
        risktable.demo.patience)."""
        waiting = Patience(patience, stalled)
        restarts = self.restarts  # a line lost with a seat that starts again: the caller's
        while True:
            verdict = self._verdict_of(command, restarts, waiting)
            if verdict is None or verdict[0] != "refused" or waiting.over():
                return
            time.sleep(_PRESS_AGAIN_S)

    def _verdict_of(self, command: dict[str, Any], restarts: int,
                    waiting: Patience) -> tuple[str, Any] | None:
        # Send one line and wait for what the seat made of it; None when the seat started
        # again or the patience ran out first.
        seen = len(self.verdicts)
        self.send(command)
        with self._changed:
            waiting.wait(lambda seconds: self._changed.wait_for(
                lambda: len(self.verdicts) > seen or self.restarts != restarts, seconds))
            return self.verdicts[seen] if len(self.verdicts) > seen else None

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
        """Whether the firmware runs; a supervised seat also while it is started again."""
        if self._supervisor is not None:
            return not self._down
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL: the broker publishes this seat's Last Will."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()

    def stop(self) -> None:
        self._stopping = True
        if self.process is not None:
            end_process(self.process)
        if self._supervisor is not None and self._supervisor is not threading.current_thread():
            self._supervisor.join(10)
            # A restart under way when stop() began leaves the new process to end too.
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
