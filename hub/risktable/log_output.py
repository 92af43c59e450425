"""Log lines written on a thread of their own, so that no thread of the hub ever waits
for the log's output.

On a table the hub's stderr goes to journald, which writes to the same SD card as the
journal. When that card stalls (docs/journal.md: commits that waited seconds), journald
stops reading, the stream's buffer fills, and a thread that logs would wait in the
write: the network thread among them, which must answer the broker's keepalive within
1.5 periods or the broker drops the hub and publishes its Will (docs/hub.md). Here a
log call only puts the record in a bounded queue; one thread writes the lines. When the
queue is full the record is dropped and counted, and the count is written, as a line of
its own, before the next line that is.
"""

from __future__ import annotations

import logging
import queue
import threading
from logging.handlers import QueueHandler

# Records held while the output does not take them: at the hub's usual few lines a
# second, minutes of a stalled output.
QUEUE_LINES = 10_000


class _Front(QueueHandler):
    """The handler the loggers see: never waits, drops and counts when full."""

    def __init__(self, lines: queue.Queue[logging.LogRecord | None]) -> None:
        super().__init__(lines)
        self._dropped = 0

    def enqueue(self, record: logging.LogRecord) -> None:
        try:
            self.queue.put_nowait(record)
        except queue.Full:
            self._dropped += 1  # under the handler's lock, as emit() is

    def take_dropped(self) -> int:
        """How many records were dropped since the last call."""
        self.acquire()
        try:
            dropped, self._dropped = self._dropped, 0
        finally:
            self.release()
        return dropped


class LogOutput:
    """Writes the records that :attr:`front` takes through ``handler``, on a thread of
    its own (:meth:`start` to :meth:`stop`)."""

    # Not logging.handlers.QueueListener: its stop() puts its end marker with
    # put_nowait (raising on a full queue) and joins with no timeout, so a command would
    # hang at its end, or fail there, on the very stalled output this is for; and the
    # dropped count needs a line written before the next record.

    def __init__(self, handler: logging.Handler, capacity: int = QUEUE_LINES) -> None:
        self._lines: queue.Queue[logging.LogRecord | None] = queue.Queue(capacity)
        self.front = _Front(self._lines)
        self._handler = handler
        self._thread = threading.Thread(target=self._write, name="log-output", daemon=True)

    def start(self) -> LogOutput:
        self._thread.start()
        return self

    def _write(self) -> None:
        while (record := self._lines.get()) is not None:
            self._dropped_line()
            self._handler.handle(record)
        self._dropped_line()

    def _dropped_line(self) -> None:
        if dropped := self.front.take_dropped():
            self._handler.handle(logging.makeLogRecord({
                "name": __name__, "levelno": logging.WARNING, "levelname": "WARNING",
                "msg": f"{dropped} log lines were dropped: the log's output did not take "
                       "them for a while (a stalled disk under journald?)"}))

    def stop(self, timeout: float = 5.0) -> None:
        """Write what is queued and end the thread: at most ``timeout`` seconds when the
        output does not take the lines (they are then lost with the process)."""
        if not self._thread.is_alive():
            return
        try:
            self._lines.put(None, timeout=timeout)
        except queue.Full:
            return
        self._thread.join(timeout)  # the handler flushes each line it writes
