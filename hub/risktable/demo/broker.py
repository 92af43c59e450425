"""An MQTT broker inside the hub process, for the demo: nothing to install.

amqtt runs on its own asyncio loop in a daemon thread, bound to a loopback
address only. A real table runs mosquitto (see ``risktable broker config``).
"""

from __future__ import annotations

import asyncio
import errno
import ipaddress
import logging
import socket
import threading
from functools import partial
from typing import Any

from risktable.broker_address import BrokerAddress


class EmbeddedBrokerError(Exception):
    """The embedded broker could not start; the message names the fix."""


def _check_port_free(host: str, port: int) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise EmbeddedBrokerError(
                    f"port {port} on {host} is already in use: stop the program using it or "
                    "choose another with --port (0 picks a free one)"
                ) from exc
            raise EmbeddedBrokerError(f"cannot listen on {host}:{port}: {exc}") from exc


_BIND_ATTEMPTS = 5


def _port_taken(exc: BaseException) -> bool:
    # Somewhere in the chain, an address already in use (amqtt words it in its own error).
    seen: BaseException | None = exc
    while seen is not None:
        if (isinstance(seen, OSError) and seen.errno == errno.EADDRINUSE) \
                or "address already in use" in str(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


class EmbeddedBroker:
    """amqtt on ``host:port`` (``port=0``: a free one), loopback addresses only; with
    ``ws_port`` (``0``: a free one) also MQTT over WebSockets there, for the board page."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, ws_port: int | None = None) -> None:
        try:
            loopback = ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = False
        if not loopback or ipaddress.ip_address(host).version != 4:
            raise EmbeddedBrokerError(
                f"the embedded broker listens on an IPv4 loopback address only, not {host!r}; "
                "use mosquitto for a broker on the network"
            )
        self.host = host
        # Ports picked here may be taken by another socket before amqtt binds them (an
        # outgoing connection's ephemeral port): start() then picks again.
        self._picked = port == 0 or ws_port == 0
        self._asked = (port, ws_port)
        self.port = port or _free_port(host)
        self.ws_port = None if ws_port is None else ws_port or _free_port(host)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._broker: Any = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    @property
    def address(self) -> BrokerAddress:
        return BrokerAddress(self.host, self.port)

    def start(self, timeout: float = 10.0) -> EmbeddedBroker:
        """Start the broker and wait until it accepts connections."""
        for attempt in range(_BIND_ATTEMPTS):
            try:
                return self._start(timeout)
            except EmbeddedBrokerError as exc:
                if not (self._picked and _port_taken(exc)) or attempt == _BIND_ATTEMPTS - 1:
                    raise
                port, ws_port = self._asked
                self.port = port or _free_port(self.host)
                self.ws_port = None if ws_port is None else ws_port or _free_port(self.host)
        raise AssertionError("unreachable")

    def _start(self, timeout: float) -> EmbeddedBroker:
        self._ready.clear()
        self._error = None
        _check_port_free(self.host, self.port)
        if self.ws_port is not None:
            _check_port_free(self.host, self.ws_port)
        # amqtt logs every connection at INFO; the demo's own output is what matters.
        logging.getLogger("amqtt").setLevel(logging.ERROR)
        # It logs a delivery to a page that closed, or one nobody acknowledged in time, as
        # a failed task with its traceback.
        delivery = logging.getLogger("amqtt.broker")
        if not any(isinstance(f, _FailedDeliveryFilter) for f in delivery.filters):
            delivery.addFilter(_FailedDeliveryFilter())
        self._thread = threading.Thread(target=self._run, name="embedded-broker", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            raise EmbeddedBrokerError(f"the embedded broker did not start within {timeout} s")
        if self._error is not None:
            raise EmbeddedBrokerError(
                f"the embedded broker failed to start: {self._error}") from self._error
        return self

    def _run(self) -> None:
        from amqtt.broker import Broker

        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)  # amqtt looks the loop up itself
        # Resolved now: at interpreter shutdown, when asyncio reports the tasks left,
        # an import may no longer work.
        from websockets.exceptions import ConnectionClosed

        loop.set_exception_handler(partial(_quiet_page_leaving, ConnectionClosed))
        self._loop = loop
        listeners: dict[str, Any] = {"default": {"type": "tcp", "bind": f"{self.host}:{self.port}"}}
        if self.ws_port is not None:
            listeners["ws"] = {"type": "ws", "bind": f"{self.host}:{self.ws_port}"}
        config = {
            "listeners": listeners,
            "plugins": {
                "amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True},
            },
        }
        try:
            self._broker = Broker(config, loop=loop)
            loop.run_until_complete(self._broker.start())
        except BaseException as exc:  # reported to the starting thread
            self._error = exc
            self._ready.set()
            loop.close()
            return
        self._ready.set()
        loop.run_forever()
        loop.close()

    def stop(self) -> None:
        loop, broker = self._loop, self._broker
        if loop is None or broker is None or not loop.is_running():
            return
        future = asyncio.run_coroutine_threadsafe(broker.shutdown(), loop)
        try:
            future.result(timeout=5)
        except Exception:
            logging.getLogger(__name__).warning("embedded broker did not shut down cleanly")
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> EmbeddedBroker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _quiet_page_leaving(closed: type[BaseException], loop: asyncio.AbstractEventLoop,
                        context: dict[str, Any]) -> None:
    # A browser page that closes (the phone seat's or the board's tab, or the demo ending
    # while it is open) ends its WebSocket mid-send: amqtt's delivery task then fails with
    # websockets' ConnectionClosed, which asyncio would print as a traceback. That is a
    # page leaving, not a fault; anything else is reported as asyncio would.
    if isinstance(context.get("exception"), closed):
        return
    loop.default_exception_handler(context)


# What the filter below says in place of amqtt's traceback for a delivery nobody
# acknowledged in time.
UNACKNOWLEDGED = ("the embedded broker dropped a delivery that a seat or page did not "
                  "acknowledge in time (it stalled or went away); the hub brings it up to "
                  "date when it is back")


class _FailedDeliveryFilter(logging.Filter):
    """amqtt's records of failed deliveries: one that failed because the page's
    WebSocket closed (websockets' ConnectionClosed) is dropped, a page leaving; one that
    timed out waiting for the client's PUBACK (a seat frozen or gone, a process that
    stalled: amqtt gives up on it) becomes one warning line instead of a traceback.
    Anything else passes as it is."""

    def filter(self, record: logging.LogRecord) -> bool:
        from websockets.exceptions import ConnectionClosed

        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, ConnectionClosed):
            return False
        if isinstance(exc, TimeoutError) and "PUBACK" in str(exc):
            record.msg, record.args = UNACKNOWLEDGED, ()
            record.exc_info = record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True
