"""Waiting in tests for something another thread or process does."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Poll ``condition`` until it holds; AssertionError after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)
