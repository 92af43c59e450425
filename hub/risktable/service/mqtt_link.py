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
import ssl
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from riskproto import messages, topics
from risktable.broker_address import BrokerAddress
from risktable.mqtt_tls import use_tls
from risktable.service.mqtt_loop import MqttLoop

log = logging.getLogger(__name__)

MessageHandler = Callable[[str, bytes], None]


class BrokerUnavailable(Exception):
    """The broker could not be reached; the message says why and what to do."""


def describe_connect_error(address: BrokerAddress, exc: BaseException, tls: bool = False) -> str:
    """One line naming the problem and the fix for a failed first connection (``tls``:
    the client spoke TLS)."""
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
    if isinstance(exc, ssl.SSLCertVerificationError):
        return (
            f"the broker at {address} did not prove it is the table's ({exc.verify_message}): "
            "[broker] ca must be the ca.crt of its `risktable broker config --tls`, and host "
            "a name or address its certificate carries"
        )
    if isinstance(exc, ssl.SSLError) or (tls and isinstance(exc, ConnectionResetError)):
        # A plain broker takes the TLS hello for a bad packet and hangs up.
        return (
            f"no TLS at {address} ({getattr(exc, 'reason', None) or exc}): is it the "
            "broker's TLS port? Without "
            "`broker config --tls`, leave [broker] ca out"
        )
    return f"cannot connect to broker {address}: {exc}"


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
    connect; ``on_message(topic, payload)`` runs on the network thread
    (:class:`~risktable.service.mqtt_loop.MqttLoop`) and must not block it (the
    keepalive depends on it), and so does
    ``before_birth()``, on every connect after subscribing and before the
    online status goes out: the place to republish retained state, so that
    whoever sees the hub online already has it (protocol README, hub start-up).
    ``on_connection(up)`` runs on the network thread too, or on a thread whose
    flushed publish found the connection lost.
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
        ca: Path | None = None,
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
        client_id = client_id or hub_client_id(table)
        self._client = mqtt.Client(
            callback_api_version=CallbackAPIVersion.VERSION2,
            client_id=client_id,
            protocol=mqtt.MQTTv311,
            clean_session=True,
        )
        if username is not None:
            self._client.username_pw_set(username, password)
        self._tls = ca is not None
        if ca is not None:
            use_tls(self._client, ca)
        self._loop = MqttLoop(self._client, min_delay=1, max_delay=16,
                              name=f"mqtt-{client_id}")
        self._client.on_pre_connect = self._next_session
        self._client.on_socket_open = _no_delay
        self._client.on_connect = self._handle_connect
        self._client.on_disconnect = self._handle_disconnect
        self._client.on_message = self._handle_message

    def _status_payload(self, online: bool) -> bytes:
        return messages.encode(
            messages.message("hub_status", online=online, session=self.session)
        )

    def start(self, timeout: float = 5.0) -> None:
        """Connect (raising :class:`BrokerUnavailable` if the broker cannot be
        reached) and start the network thread, which reconnects on its own."""
        try:
            self._loop.connect(self.address.host, self.address.port, self._keepalive)
        except (OSError, TimeoutError) as exc:
            raise BrokerUnavailable(
                describe_connect_error(self.address, exc, self._tls)) from exc
        if not self.connected.wait(timeout):
            self._loop.stop()
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
            info = self._loop.publish(
                topics.hub_status(self.table), self._status_payload(False), qos=1, retain=True
            )
            if info is not None:  # None: the link is being made again, so no offline
                with contextlib.suppress(RuntimeError):  # the link went down meanwhile
                    info.wait_for_publish(timeout=2.0)
        self._loop.stop()

    def publish(self, topic: str, message: dict[str, Any], *, retain: bool = False,
                flush: bool = False) -> None:
        """Encode and publish ``message`` with QoS 1 (kept by paho while offline).

        With ``flush`` the calling thread writes the packet to the socket itself
        (:class:`~risktable.service.mqtt_loop.MqttLoop`) instead of leaving it to the
        network thread, which would first need the interpreter that a caller going on
        computing holds (the hub's ack: see ``bench/README.md`` for the figures)."""
        self._loop.publish(topic, messages.encode(message), qos=1, retain=retain,
                           flush=flush)

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
