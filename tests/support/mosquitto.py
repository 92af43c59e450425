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


def wait_for_port(host: str, port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.02)
    raise TimeoutError(f"nothing listens on {host}:{port} after {timeout} s")


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
        if config_file is None:
            config_file = workdir / "mosquitto.conf"
            config_file.write_text(
                f"listener {self.port} 127.0.0.1\n"
                "allow_anonymous true\n"
                "persistence false\n"
                f"log_dest file {self.log_path}\n"
                "log_type error\nlog_type warning\nlog_type notice\n"
                + extra_config
            )
        self.config_file = config_file
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> Mosquitto:
        self.process = subprocess.Popen(
            [self.binary, "-c", str(self.config_file)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            wait_for_port(self.host, self.port)
        except TimeoutError:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        if self.process is not None:
            end_process(self.process)
            self.process = None

    def __enter__(self) -> Mosquitto:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
