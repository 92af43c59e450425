"""A real mosquitto broker on a free loopback port, startable and stoppable by tests."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

from risktable.processes import end_process


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(host: str, port: int, timeout: float = 10.0,
                  process: subprocess.Popen[bytes] | None = None) -> None:
    """Wait until something listens on ``host:port``; with ``process``, stop waiting
    (ChildProcessError) as soon as that process has exited."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=0.2):
                pass
        except OSError:
            if process is not None and process.poll() is not None:
                raise ChildProcessError(f"exited with {process.returncode}") from None
            time.sleep(0.02)
            continue
        if process is not None and process.poll() is not None:
            # Another program's socket answered there, not the process's.
            raise ChildProcessError(f"exited with {process.returncode}")
        return
    raise TimeoutError(f"nothing listens on {host}:{port} after {timeout} s")


# A port free_port() found may be taken by any socket of any process before mosquitto
# binds it (many run at once under pytest-xdist): a broker that picked its own port
# then picks another, this many times in all.
_PORT_TRIES = 5


class Mosquitto:
    """One mosquitto process bound to 127.0.0.1 only.

    ``extra_config`` lines are appended to the generated configuration, or
    ``config_file`` replaces it entirely (its listener must use ``port``).
    """

    def __init__(
        self,
        binary: str,
        workdir: Path,
        port: int | None = None,
        extra_config: str = "",
        config_file: Path | None = None,
    ) -> None:
        self.binary = binary
        self.host = "127.0.0.1"
        self.port = port if port is not None else free_port()
        self.workdir = workdir
        workdir.mkdir(parents=True, exist_ok=True)
        self.log_path = workdir / "mosquitto.log"
        self.extra_config = extra_config
        # Only a port and configuration of our own may be changed when the port is taken.
        self._may_move = port is None and config_file is None
        self._started_once = False
        if config_file is None:
            config_file = workdir / "mosquitto.conf"
            self._write_config(config_file)
        self.config_file = config_file
        self.process: subprocess.Popen[bytes] | None = None

    def _write_config(self, path: Path) -> None:
        path.write_text(
            f"listener {self.port} 127.0.0.1\n"
            "allow_anonymous true\n"
            "persistence false\n"
            f"log_dest file {self.log_path}\n"
            "log_type error\nlog_type warning\nlog_type notice\n"
            + self.extra_config
        )

    def start(self) -> Mosquitto:
        # A restart keeps its port: the clients of the test come back to it.
        tries = _PORT_TRIES if self._may_move and not self._started_once else 1
        for attempt in range(1, tries + 1):
            self.process = subprocess.Popen(
                [self.binary, "-c", str(self.config_file)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            try:
                wait_for_port(self.host, self.port, process=self.process)
            except ChildProcessError as exc:
                said = self._said()
                self.stop()
                if attempt == tries:
                    raise RuntimeError(f"mosquitto on port {self.port} {exc}: {said}") from None
                self.port = free_port()
                self._write_config(self.config_file)
                continue
            except TimeoutError:
                self.stop()
                raise
            self._started_once = True
            return self
        raise AssertionError("unreachable")

    def _said(self) -> str:
        # What mosquitto said before it exited: on stderr, or in its log file.
        assert self.process is not None and self.process.stderr is not None
        said = self.process.stderr.read().decode(errors="replace").strip()
        if self.log_path.is_file():
            said += " " + self.log_path.read_text(errors="replace").strip()
        return said[-500:]

    def stop(self) -> None:
        if self.process is not None:
            end_process(self.process)
            self.process = None

    def __enter__(self) -> Mosquitto:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
