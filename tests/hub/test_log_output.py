"""The hub's log lines are written on a thread of their own (risktable.log_output): a
thread that logs never waits for an output that does not take them (journald on a
stalled SD card), lines are dropped and counted once the queue is full, and the count
is written when the output takes lines again."""

from __future__ import annotations

import logging
import os
import threading
from logging.handlers import QueueHandler

import pytest

from risktable.cli.common import flush_logging, setup_logging
from risktable.log_output import LogOutput

LINES = 3000
LINE = "x" * 200  # 3000 lines of 200 bytes: ten times what a pipe's buffer holds


def _read_all(fd: int, into: list[bytes]) -> threading.Thread:
    def read() -> None:
        while chunk := os.read(fd, 65536):
            into.append(chunk)
    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def test_a_thread_that_logs_never_waits_for_a_stalled_output() -> None:
    read_end, write_end = os.pipe()  # nobody reads it yet: the output is stalled
    stream = os.fdopen(write_end, "w", buffering=1)
    output = LogOutput(logging.StreamHandler(stream), capacity=100).start()
    log = logging.getLogger("test.log_output")
    log.propagate = False
    log.addHandler(output.front)
    try:
        done = threading.Event()

        def busy() -> None:
            for i in range(LINES):
                log.warning("%d %s", i, LINE)
            done.set()

        threading.Thread(target=busy, daemon=True).start()
        # Without the queue the logging thread waits in the write once the pipe is full.
        assert done.wait(60), "the logging thread waited for the stalled output"
        chunks: list[bytes] = []
        reader = _read_all(read_end, chunks)  # the output takes lines again
        output.stop(timeout=60)
    finally:
        log.removeHandler(output.front)
        stream.close()
    reader.join(60)
    lines = b"".join(chunks).decode().splitlines()
    written = [int(line.split()[0]) for line in lines if line.endswith(LINE)]
    counts = [int(line.split()[0]) for line in lines if "log lines were dropped" in line]
    assert written == sorted(written) and written[0] == 0  # in order, the first kept
    assert counts and sum(counts) + len(written) == LINES  # every line written or counted


def test_the_commands_log_is_written_by_the_time_it_ends(
        capsys: pytest.CaptureFixture[str]) -> None:
    # What `risktable hub`, `tray run` and `demo` set up, and what main() ends with.
    root = logging.getLogger()
    before = root.handlers[:], root.level
    try:
        setup_logging(2)
        logging.getLogger("risktable.test").debug("a line %s", "queued")
        flush_logging()
        assert "DEBUG risktable.test: a line queued" in capsys.readouterr().err
        assert not any(isinstance(h, QueueHandler) for h in root.handlers)
    finally:
        root.handlers[:], _ = before
        root.setLevel(before[1])
