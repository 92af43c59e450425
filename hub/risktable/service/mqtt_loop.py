"""paho's client on a network thread of our own, through paho's external-loop API.

paho's ``loop_start`` thread is the only writer of its socket: a packet published
from another thread waits in paho's queue until that thread gets the interpreter,
which the publisher (the hub's worker, going on to the views) holds. :class:`MqttLoop`
drives the client with paho's public external-loop calls instead (``socket()``,
``loop_read()``, ``loop_write()``, ``loop_misc()``, ``want_write()``, ``reconnect()``
and the ``on_socket_register_write`` callback), from one thread of its own that
selects on the socket, and lets a publishing thread write its packet to the socket
itself (``flush=True``). Every call into the client, from either thread, is made
under one lock, so packets never interleave or change order on the wire, and a
publish can never reach a socket that ``reconnect()`` has opened before its CONNECT
has been queued.

Callbacks run on the network thread with that lock held, so a thread must never
publish while it holds a lock that a callback takes (take :attr:`MqttLoop.lock`
first, then that lock). Only the slow part of a reconnect (the TCP connect: up to
paho's ``connect_timeout`` to a broker that does not answer) would make a publisher
wait long for the lock: while the network thread reconnects, a publish that finds
the lock taken is held in order by this class and handed to paho right after the
CONNECT, and the publisher goes on.

Plain TCP only (the hub's connection): a TLS socket can hold decrypted bytes that a
``select`` does not report.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import select
import socket
import threading
import time
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import MQTTErrorCode

log = logging.getLogger(__name__)

# How long the network thread waits in select() with nothing to do: the keepalive's
# resolution (paho's own loop uses the same second).
TICK = 1.0


class MqttLoop:
    """Runs ``client`` (a ``paho.mqtt.client.Client``, not started) on a thread of its own.

    Use :meth:`connect` (blocking, raises ``OSError`` like paho's), then
    :meth:`publish` and :meth:`subscribe` from any thread, and :meth:`stop` at the
    end; never paho's ``loop*`` calls on the same client. Callbacks run on the network
    thread with :attr:`lock` held and may publish and subscribe through this class or
    the client. After a lost connection the thread reconnects on its own, waiting
    ``min_delay`` seconds first and twice as long after each attempt, up to
    ``max_delay``, until a connection is accepted.

    >>> import paho.mqtt.client as mqtt
    >>> from paho.mqtt.enums import CallbackAPIVersion
    >>> loop = MqttLoop(mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2))
    >>> loop.publish("a/b", b"kept by paho until connected", qos=1).rc
    <MQTTErrorCode.MQTT_ERR_NO_CONN: 4>
    """

    def __init__(self, client: mqtt.Client, *, min_delay: float = 1.0,
                 max_delay: float = 16.0, name: str = "mqtt-loop") -> None:
        if not 0 < min_delay <= max_delay:
            raise ValueError(f"reconnect delays must be 0 < min <= max, not {min_delay}, "
                             f"{max_delay}")
        self.client = client
        self.min_delay, self.max_delay = min_delay, max_delay
        self.name = name
        #: Held for every call into the client (re-entrant: callbacks publish).
        self.lock = threading.RLock()
        # Set by the network thread alone, before it takes the lock to reconnect and
        # cleared once the publishes held meanwhile are handed to paho.
        self._reconnecting = False
        self._held: collections.deque[tuple[str, bytes, int, bool]] = collections.deque()
        self._stopping = False
        self._flushing = False  # the publisher writes itself: no need to wake the thread
        self._wake_r: socket.socket | None = None
        self._wake_w: socket.socket | None = None
        self._thread: threading.Thread | None = None
        client.on_socket_register_write = self._want_write

    # -- life cycle ---------------------------------------------------------------------

    def connect(self, host: str, port: int, keepalive: int) -> None:
        """Open the connection (blocking; ``OSError`` if the broker cannot be reached)
        and start the network thread, which sends CONNECT and keeps the link up."""
        if self._thread is not None:
            raise RuntimeError(f"{self.name} is running already")
        self._stopping = False
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        try:
            with self.lock:
                self.client.connect(host, port, keepalive)
        except BaseException:
            self._close_wake()
            raise
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Send DISCONNECT (so the broker drops the Will) and end the thread."""
        with self.lock:
            self._stopping = True
            self.client.disconnect()
        self._wake()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
            if thread.is_alive():
                log.warning("%s: the network thread did not end within %.0f s", self.name,
                            timeout)

    # -- from any thread ----------------------------------------------------------------

    def publish(self, topic: str, payload: bytes, qos: int = 0, retain: bool = False, *,
                flush: bool = False) -> mqtt.MQTTMessageInfo | None:
        """paho's ``publish``, and its info; with ``flush`` the calling thread writes the
        packet to the socket at once (what a full socket buffer leaves over, the network
        thread writes). While the network thread reconnects the message is held, in
        order, and handed to paho right after the CONNECT: then there is no info (None).
        """
        if not self.lock.acquire(blocking=False):
            if self._reconnecting:
                self._held.append((topic, payload, qos, retain))
                self._wake()  # in case the reconnect ended before the append
                return None
            self.lock.acquire()
        try:
            self._hand_over_held()  # whatever waited goes first
            return self._publish(topic, payload, qos, retain, flush)
        finally:
            self.lock.release()

    def subscribe(self, topic: Any, qos: int = 0) -> tuple[MQTTErrorCode, int | None]:
        """paho's ``subscribe``, under the lock."""
        with self.lock:
            return self.client.subscribe(topic, qos)

    # -- internals ------------------------------------------------------------------------

    def _publish(self, topic: str, payload: bytes, qos: int, retain: bool,
                 flush: bool) -> mqtt.MQTTMessageInfo:
        # With self.lock held. A callback's publish is left to the network thread, which
        # writes as soon as the callback returns (paho holds its callback lock meanwhile).
        flush = flush and threading.current_thread() is not self._thread
        self._flushing = flush
        try:
            info = self.client.publish(topic, payload, qos=qos, retain=retain)
            if flush:
                self.client.loop_write()
        finally:
            self._flushing = False
        if flush and (self.client.want_write() or self.client.socket() is None):
            self._wake()  # the rest to write, or a connection the write found lost
        return info

    def _want_write(self, client: mqtt.Client, userdata: Any, sock: Any) -> None:
        # paho: a packet is queued on a socket that had nothing left to write.
        if not self._flushing:
            self._wake()

    def _wake(self) -> None:
        if self._wake_w is not None:
            # Full: the thread is woken already; closed: the thread has ended.
            with contextlib.suppress(OSError):
                self._wake_w.send(b"\0")

    def _drain_wake(self) -> None:
        if self._wake_r is not None:
            with contextlib.suppress(OSError):
                self._wake_r.recv(4096)

    def _close_wake(self) -> None:
        for end in (self._wake_r, self._wake_w):
            if end is not None:
                end.close()
        self._wake_r = self._wake_w = None

    def _hand_over_held(self) -> None:
        # With the lock held, after reconnect() has queued its CONNECT (or failed): what
        # waited goes to paho, in order, which sends it now or keeps it for the next
        # connection.
        while self._held:
            topic, payload, qos, retain = self._held.popleft()
            self.client.publish(topic, payload, qos=qos, retain=retain)

    def _run(self) -> None:
        # One poll object for the thread's life; each turn takes the lock once, for
        # paho's calls and to read what the next poll waits for.
        delay = self.min_delay
        wake = (self._wake_r, self._wake_w)
        assert self._wake_r is not None
        poller = select.poll()
        poller.register(self._wake_r, select.POLLIN)
        polled = (-1, 0)  # the socket's fd and events as registered
        try:
            with self.lock:
                fd, writing, connected = self._next_poll()
            while True:
                if connected:
                    delay = self.min_delay
                if fd != polled[0] and polled[0] >= 0:
                    poller.unregister(polled[0])  # closed: never poll a number reused
                    polled = (-1, 0)
                if fd < 0:
                    if self._stopping:
                        return
                    delay = self._reconnect(delay)
                    with self.lock:
                        fd, writing, connected = self._next_poll()
                    continue
                mask = select.POLLIN | (select.POLLOUT if writing else 0)
                if polled != (fd, mask):
                    poller.register(fd, mask)  # registering again changes the events
                    polled = (fd, mask)
                ready = dict(poller.poll(TICK * 1000))
                if self._wake_r.fileno() in ready:
                    self._drain_wake()
                with self.lock:
                    self._serve(fd, ready.get(fd, 0))
                    fd, writing, connected = self._next_poll()
        finally:
            if (self._wake_r, self._wake_w) == wake:  # not a later connect()'s pair
                self._close_wake()

    def _next_poll(self) -> tuple[int, bool, bool]:
        # With the lock held: the socket's fd (-1: none), whether paho has bytes to
        # write, and whether the connection is up.
        sock = self.client.socket()
        fd = sock.fileno() if sock is not None else -1
        return fd, self.client.want_write(), self.client.is_connected()

    def _serve(self, fd: int, events: int) -> None:
        # With the lock held, after a poll: paho's three calls on what it found.
        self._hand_over_held()  # appended as a reconnect ended
        sock = self.client.socket()
        if sock is None or sock.fileno() != fd:
            return  # closed meanwhile (a publisher's write found the link lost)
        if events & ~select.POLLOUT:  # data, or a hang-up or error to read
            self.client.loop_read()
        if events & select.POLLOUT and self.client.socket() is sock:
            self.client.loop_write()
        self.client.loop_misc()

    def _reconnect(self, delay: float) -> float:
        # Waits ``delay`` (stop() cuts it short), makes one attempt and returns the
        # delay before the next.
        assert self._wake_r is not None
        deadline = time.monotonic() + delay
        while not self._stopping and (left := deadline - time.monotonic()) > 0:
            select.select([self._wake_r], [], [], left)
            self._drain_wake()
        if self._stopping:
            return delay
        self._reconnecting = True
        with self.lock:
            try:
                self.client.reconnect()
            except OSError as exc:
                log.info("%s: reconnecting failed (%s)", self.name, exc)
            finally:
                self._reconnecting = False
                self._hand_over_held()
        return min(delay * 2, self.max_delay)
