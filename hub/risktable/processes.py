"""Ending child processes (broker, seat firmwares) cleanly."""

from __future__ import annotations

import contextlib
import subprocess
from typing import Any


def end_process(process: subprocess.Popen[Any], grace: float = 5.0) -> int:
    """SIGTERM ``process``, SIGKILL it if it has not exited after ``grace`` seconds,
    close its pipes, and return its exit status."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            process.kill()
    status = process.wait()
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
    return status
