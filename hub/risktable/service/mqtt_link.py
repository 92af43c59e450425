"""The hub's MQTT connection (paho-mqtt 2.x, VERSION2 callbacks).

Owns what every hub connection needs regardless of the game: the retained
hub status with its Last Will, a session number that changes on every
connection, subscriptions restored on every (re)connect, automatic
reconnection with backoff, and a first connection that fails fast with a
message a person can act on. The network thread only moves messages: whatever
``on_message`` does must return at once (HubService hands it to its worker).
"""

from __future__ import annotations

import contextlib
import errno
import logging
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode

from riskproto import messages, topics
from risktable.broker_address import BrokerAddress

log = logging.getLogger(__name__)

MessageHandler = Callable[[str, bytes], None]


class BrokerUnavailable(Exception):
    """The broker could not be reached; the message says why and what to do."""


def describe_connect_error(address: BrokerAddress, exc: BaseException) -> str:
    """One line naming the problem and the fix for a failed first connection."""
    if isinstance(exc, socket.gaierror):
        return (
            f"cannot resolve broker host {address.host!r}: check the host name "
            "(--broker HOST:PORT or the hub configuration)"
        )
    if isinstance(exc, ConnectionRefusedError) or getattr(exc, "errno", None) == errno.ECONNREFUSED:
        return (
            f"no MQTT broker is listening on {address} (connection refused): start mosquitto "
            "there or give the right --broker HOST:PORT"
        )
    if isinstance(exc, TimeoutError | socket.timeout):
        return f"broker {address} did not answer in time: check the address and the network"
    return f"cannot connect to broker {address}: {exc}"


# The longest a flushed publish waits for the network thread (a full socket buffer, a
# broker that stopped reading): past it the packet goes whenever paho gets to it.
FLUSH_WAIT = 0.05


class DirectClient(mqtt.Client):
    """paho's client, able to write a packet from the publishing thread itself.

    With ``loop_start`` paho only queues a packet published from another thread and
    wakes its network thread through a socket pair; the packet reaches the socket
    once that thread has the interpreter, which the publisher (the hub's worker, on
    to the views) holds (the hub's ack: 3.9 ms of waiting per flushed ack at the
    median under load, in ``bench_hub_latency.py --profile``). Inside
    :meth:`direct`, a packet the calling thread queues is written at once by that
    thread; the network thread is woken only when part of it is left over (a full
    socket buffer, no connection). Every write, the network thread's included, goes
    through one lock, so packets never interleave or change order on the wire.
    This leans on paho 2.x internals (``_packet_queue``, ``_packet_write``,
    ``_out_packet``), hence the tight version range in pyproject.toml.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._write_lock = threading.Lock()
        self._direct = threading.local()

    @contextlib.contextmanager
    def direct(self) -> Iterator[None]:
        """Packets the calling thread queues inside go to the socket at once."""
        self._direct.on = True
        try:
            yield
        finally:
            self._direct.on = False

    def _packet_write(self) -> MQTTErrorCode:
        with self._write_lock:
            return super()._packet_write()

    def _packet_queue(self, command: int, packet: bytes | bytearray, mid: int, qos: int,
                      info: mqtt.MQTTMessageInfo | None = None) -> MQTTErrorCode:
        if not getattr(self._direct, "on", False) or self._sock is None:
            return super()._packet_queue(command, packet, mid, qos, info)
        self._out_packet.append({"command": command, "mid": mid, "qos": qos, "pos": 0,
                                 "to_process": len(packet), "packet": packet,
                                 "info": info})
        # Errors are the network thread's to handle (it reconnects); a packet left over
        # is written by it, woken as paho would have.
        self._packet_write()
        if not self.want_write():
            return MQTTErrorCode.MQTT_ERR_SUCCESS
        if self._sockpairW is not None:
            with contextlib.suppress(BlockingIOError):
                self._sockpairW.send(b"0")
        self._call_socket_register_write()
        return MQTTErrorCode.MQTT_ERR_SUCCESS


def _no_delay(client: mqtt.Client, userdata: Any, sock: Any) -> None:
    # One input makes the hub write several small packets (views, commands,
    # board, ack); with Nagle's algorithm each after the first waits for the
    # broker's delayed TCP ACK, which cost ~40 ms per input on loopback.
    with contextlib.suppress(AttributeError, OSError):  # a websocket wrapper, not TCP
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def hub_client_id(table: str) -> str:
    """The hub's MQTT client id, equal to its broker account's user name."""
    return f"{topics.check_table(table)}-hub"


class HubLink:
    """The MQTT connection of the hub for table ``table``, as client ``<table>-hub``.

    ``session`` is drawn at random and goes up by one before every connection
    (reconnects included), so the Will of an older connection never passes for
    the current one (protocol README, Presence); its Will and birth carry the
    same value. ``subscriptions`` are (filter, qos) pairs restored on every
    connect; ``on_message(topic, payload)`` runs on paho's network thread and
    must not block it (the keepalive depends on it), and so does
    ``before_birth()``, on every connect after subscribing and before the
    online status goes out: the place to republish retained state, so that
    whoever sees the hub online already has it (protocol README, hub start-up).
    """

    def __init__(
        self,
        address: BrokerAddress,
        table: str,
        subscriptions: Sequence[tuple[str, int]],
        on_message: MessageHandler,
        *,
        username: str | None = None,
        password: str | None = None,
        keepalive: int = 10,
        client_id: str | None = None,
        on_connection: Callable[[bool], None] | None = None,
        before_birth: Callable[[], None] | None = None,
    ) -> None:
        self.address = address
        self.table = topics.check_table(table)
        # Like the seats: random at start, +1 per connection, nothing written to disk.
        self.session = secrets.randbelow(messages.MAX_COUNTER + 1)
        self._subscriptions = list(subscriptions)
        self._on_message = on_message
        self._keepalive = keepalive
        self._on_connection = on_connection
        self._before_birth = before_birth
        self.connected = threading.Event()
        self._online_published: mqtt.MQTTMessageInfo | None = None
        self._client = DirectClient(
            callback_api_version=CallbackAPIVersion.VERSION2,
            client_id=client_id or hub_client_id(table),
            protocol=mqtt.MQTTv311,
            clean_session=True,
        )
        if username is not None:
            self._client.username_pw_set(username, password)
        self._client.reconnect_delay_set(min_delay=1, max_delay=16)
        self._client.on_pre_connect = self._next_session
        self._client.on_socket_open = _no_delay
        self._client.on_connect = self._handle_connect
        self._client.on_disconnect = self._handle_disconnect
        self._client.on_message = self._handle_message
        # Set on the network thread whenever paho has written out everything queued.
        self._written = threading.Event()
        self._client.on_socket_unregister_write = lambda *args: self._written.set()

    def _status_payload(self, online: bool) -> bytes:
        return messages.encode(
            messages.message("hub_status", online=online, session=self.session)
        )

    def start(self, timeout: float = 5.0) -> None:
        """Connect (raising :class:`BrokerUnavailable` if the broker cannot be
        reached) and start the network thread, which reconnects on its own."""
        try:
            self._client.connect(self.address.host, self.address.port, self._keepalive)
        except (OSError, TimeoutError) as exc:
            raise BrokerUnavailable(describe_connect_error(self.address, exc)) from exc
        self._client.loop_start()
        if not self.connected.wait(timeout):
            self._client.loop_stop()
            raise BrokerUnavailable(
                f"broker {self.address} accepted the connection but did not complete the MQTT "
                "handshake: is it an MQTT broker, and do the credentials match?"
            )
        if self._online_published is not None:
            # Return only once the broker holds our retained online status.
            self._online_published.wait_for_publish(timeout)

    def stop(self) -> None:
        """Publish the offline status (a clean disconnect sends no Will) and disconnect."""
        if self.connected.is_set():
            info = self._client.publish(
                topics.hub_status(self.table), self._status_payload(False), qos=1, retain=True
            )
            info.wait_for_publish(timeout=2.0)
        self._client.disconnect()
        self._client.loop_stop()

    def publish(self, topic: str, message: dict[str, Any], *, retain: bool = False,
                flush: bool = False) -> None:
        """Encode and publish ``message`` with QoS 1 (queued by paho while offline).

        With ``flush``, while connected, the calling thread writes the packet to the
        socket itself (:class:`DirectClient`) and, should part of it be left over,
        waits (at most :data:`FLUSH_WAIT` seconds) until paho's network thread has
        written the rest. A publish from another thread would only queue the packet and
        wake that thread, which then needs the interpreter; a caller that goes on
        computing holds it, and the packet waits (the hub's ack: see
        ``bench/README.md`` for the figures)."""
        if flush:
            self._written.clear()
        payload = messages.encode(message)
        if flush and self.connected.is_set():
            with self._client.direct():
                self._client.publish(topic, payload, qos=1, retain=retain)
        else:
            self._client.publish(topic, payload, qos=1, retain=retain)
        if not flush or not self.connected.is_set():
            return
        deadline = time.monotonic() + FLUSH_WAIT
        # Cleared and checked again: the event may stand for an earlier packet's write.
        while self._client.want_write():
            left = deadline - time.monotonic()
            if left <= 0 or not self._written.wait(left):
                return
            self._written.clear()

    # paho callbacks (network thread)

    def _next_session(self, client: mqtt.Client, userdata: Any) -> None:
        # paho calls this before every CONNECT, the first one included: the Will
        # must carry the session the birth of this connection will carry.
        self.session = (self.session + 1) & messages.MAX_COUNTER
        client.will_set(
            topics.hub_status(self.table), self._status_payload(False), qos=1, retain=True
        )

    def _handle_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any
    ) -> None:
        if reason.is_failure:
            log.error("broker %s refused the hub: %s", self.address, reason)
            return
        for topic_filter, qos in self._subscriptions:
            client.subscribe(topic_filter, qos)
        if self._before_birth is not None:
            self._before_birth()
        self._online_published = client.publish(
            topics.hub_status(self.table), self._status_payload(True), qos=1, retain=True
        )
        log.info("connected to broker %s as hub session %d", self.address, self.session)
        self.connected.set()
        if self._on_connection is not None:
            self._on_connection(True)

    def _handle_disconnect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any
    ) -> None:
        self.connected.clear()
        if reason.is_failure:
            log.warning("lost the broker %s (%s); reconnecting", self.address, reason)
        else:
            log.info("disconnected from broker %s", self.address)
        if self._on_connection is not None:
            self._on_connection(False)

    def _handle_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            self._on_message(msg.topic, bytes(msg.payload))
        except Exception:  # a bad message must never kill the network thread
            log.exception("error while handling a message on %s", msg.topic)
