"""One worker thread that does the hub's work, in the order it was handed in.

The network thread (paho driven by ``mqtt_loop.MqttLoop``) must stay free to
answer the broker's keepalive, so it only hands each inbound message to
:class:`Worker`, which runs the gate, the rules, the journal's fsync, the
publishing and the bots. One thread and one FIFO keep every seat's messages in
the order the broker delivered them. The queue is bounded: a message that finds
it full is dropped and logged, never waited for (blocking would stall the network
thread again); a seat sends an unanswered event again, so nothing a player did is
lost.
"""

from __future__ import annotations

import collections
import logging
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)

Task = Callable[[], None]


class Worker:
    """Runs submitted tasks one at a time on its own thread, first in, first out.

    ``capacity`` bounds the tasks waiting (not counting the one running);
    ``name`` names the thread and the log lines.
    """

    def __init__(self, capacity: int, name: str = "hub-worker") -> None:
        if capacity < 1:
            raise ValueError(f"a worker queue holds at least 1 task, not {capacity}")
        self.capacity = capacity
        self.name = name
        self._tasks: collections.deque[Task] = collections.deque()
        self._ready = threading.Condition()
        self._stopping = False
        self._idle = True
        self._thread: threading.Thread | None = None
        self.dropped = 0  # refused because the queue was full
        self.refused_stopping = 0  # refused because the worker was stopping

    def start(self) -> None:
        """Start the thread (once)."""
        if self._thread is not None:
            raise RuntimeError(f"{self.name} already started")
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()

    def submit(self, task: Task) -> bool:
        """Queue ``task``; False (and nothing queued) when the queue is full or stopping.

        Never blocks: it is called from the network thread."""
        with self._ready:
            if self._stopping:
                self.refused_stopping += 1
                return False
            if len(self._tasks) >= self.capacity:
                self.dropped += 1
                return False
            self._tasks.append(task)
            self._ready.notify()
            return True

    @property
    def stopping(self) -> bool:
        """True once :meth:`stop` began: :meth:`submit` takes nothing more."""
        with self._ready:
            return self._stopping

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until no task is queued or running; False on timeout."""
        with self._ready:
            return self._ready.wait_for(lambda: self._idle and not self._tasks, timeout)

    def stop(self, timeout: float = 10.0) -> int:
        """Let the running task finish, drop the queued ones and end the thread.

        Returns how many queued tasks were dropped (inputs among them are
        unanswered, so their seats send them again to the next hub)."""
        with self._ready:
            self._stopping = True
            dropped = len(self._tasks)
            self._tasks.clear()
            self._ready.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)
            if self._thread.is_alive():
                log.error("%s did not finish its task within %.0f s", self.name, timeout)
        if dropped:
            log.info("%s stopped with %d queued messages unhandled", self.name, dropped)
        return dropped

    def _run(self) -> None:
        while True:
            with self._ready:
                self._idle = True
                self._ready.notify_all()
                while not self._tasks and not self._stopping:
                    self._ready.wait()
                if self._stopping:
                    return
                task = self._tasks.popleft()
                self._idle = False
            try:
                task()
            except Exception:  # one bad message must not end the hub's work
                log.exception("%s: a task failed", self.name)
