"""The hub's MQTT network loop (service/mqtt_loop.py) on the wire: what a broker sees.

MQTT 3.1.1, section 3.1: "After a Network Connection is established by a Client to a
Server, the first Packet sent from the Client to the Server MUST be a CONNECT Packet"
[MQTT-3.1.0-1]. These tests put a raw socket stand-in for the broker on the other end
that records every packet of every connection, as it arrived, and answers only what the
client waits for (CONNACK, PUBACK, SUBACK, PINGRESP): the order is the client's own.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from riskproto import messages, topics
from risktable.broker_address import BrokerAddress
from risktable.service.mqtt_link import HubLink
from risktable.service.mqtt_loop import MqttLoop
from tests.support.fault_proxy import (
    CONNACK,
    CONNECT,
    PINGREQ,
    PINGRESP,
    PUBACK,
    PUBLISH,
    SUBACK,
    SUBSCRIBE,
    Framer,
    packet_type,
)

DISCONNECT = 14
TABLE = "wire"


class StandInBroker:
    """Accepts MQTT connections on a free loopback port and records their packets."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._listener.getsockname()[1])
        self.connections: list[list[bytes]] = []  # every packet, per connection, in order
        self._sockets: list[socket.socket] = []
        self._cond = threading.Condition()
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def wait(self, done: Callable[[list[list[bytes]]], bool], timeout: float = 20) -> None:
        with self._cond:
            if not self._cond.wait_for(lambda: done(self.connections), timeout):
                kinds = [[packet_type(p) for p in c] for c in self.connections]
                raise AssertionError(f"the stand-in broker saw only {kinds}")

    def cut(self) -> None:
        """Close every open connection (the client sees the broker go)."""
        with self._cond:
            sockets, self._sockets = self._sockets, []
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def close(self) -> None:
        self._closed = True
        self._listener.close()
        self.cut()

    def _accept(self) -> None:
        while not self._closed:
            try:
                sock, _ = self._listener.accept()
            except OSError:
                return
            with self._cond:
                self.connections.append([])
                self._sockets.append(sock)
                packets = self.connections[-1]
            threading.Thread(target=self._serve, args=(sock, packets), daemon=True).start()

    def _serve(self, sock: socket.socket, packets: list[bytes]) -> None:
        framer = Framer()
        with contextlib.suppress(OSError):
            while data := sock.recv(65536):
                for packet in framer.feed(data):
                    with self._cond:
                        packets.append(packet)
                        self._cond.notify_all()
                    sock.sendall(_answer(packet))

    @staticmethod
    def publishes(packets: list[bytes]) -> list[bytes]:
        """The payloads of the QoS 1 PUBLISH packets among ``packets``."""
        return [_publish_payload(p) for p in packets if packet_type(p) == PUBLISH]


def _body(packet: bytes) -> bytes:
    at = 1
    while packet[at] & 0x80:
        at += 1
    return packet[at + 1:]


def _publish_payload(packet: bytes) -> bytes:
    body = _body(packet)
    topic_end = 2 + int.from_bytes(body[:2], "big")
    qos = (packet[0] >> 1) & 3
    return body[topic_end + (2 if qos else 0):]


def _answer(packet: bytes) -> bytes:
    kind, body = packet_type(packet), _body(packet)
    if kind == CONNECT:
        return bytes([CONNACK << 4, 2, 0, 0])  # session present 0, accepted
    if kind == PUBLISH and (packet[0] >> 1) & 3 == 1:
        topic_end = 2 + int.from_bytes(body[:2], "big")
        return bytes([PUBACK << 4, 2]) + body[topic_end:topic_end + 2]
    if kind == SUBSCRIBE:
        filters, at = 0, 2
        while at < len(body):
            at += 2 + int.from_bytes(body[at:at + 2], "big") + 1
            filters += 1
        return bytes([SUBACK << 4, 2 + filters]) + body[:2] + bytes([1] * filters)
    if kind == PINGREQ:
        return bytes([PINGRESP << 4, 0])
    return b""


@pytest.fixture
def broker() -> Iterator[StandInBroker]:
    stand_in = StandInBroker()
    yield stand_in
    stand_in.close()


def test_a_publish_racing_a_reconnect_goes_out_after_its_connect(
        broker: StandInBroker) -> None:
    # The publisher runs exactly while the network thread is inside reconnect(), with
    # the new socket open and the CONNECT not yet queued (paho's on_socket_open). The
    # publish must neither block until the reconnect ends nor reach that socket first.
    client = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2,
                         client_id="racer", protocol=mqtt.MQTTv311)
    loop = MqttLoop(client, min_delay=0.01, max_delay=0.01)
    opened, published = threading.Event(), threading.Event()
    opens: list[bool] = []  # per socket opened: did the publish get through meanwhile
    infos: list[mqtt.MQTTMessageInfo | None] = []

    def socket_open(client: mqtt.Client, userdata: Any, sock: Any) -> None:
        if not opens:  # the first connection
            opens.append(True)
            return
        opened.set()
        # The publisher's turn; it must not need this thread to get through.
        opens.append(published.wait(20))

    def publisher() -> None:
        opened.wait(20)
        infos.append(loop.publish("race/topic", b"raced", qos=1, flush=True))
        published.set()

    client.on_socket_open = socket_open
    racer = threading.Thread(target=publisher)
    racer.start()
    loop.connect("127.0.0.1", broker.port, keepalive=30)
    try:
        broker.wait(lambda c: bool(c) and bool(c[0]))
        broker.cut()
        broker.wait(lambda c: len(c) == 2 and b"raced" in StandInBroker.publishes(c[1]))
    finally:
        racer.join(20)
        loop.stop()
    second = broker.connections[1]
    assert packet_type(second[0]) == CONNECT, [packet_type(p) for p in second]
    assert opens == [True, True], "the publish waited for the reconnect to end"
    assert infos == [None]  # held while the network thread reconnected


def test_the_hub_link_opens_every_connection_with_connect_and_loses_no_publish(
        broker: StandInBroker) -> None:
    # Two threads publish (one flushed, as the worker's ack) all through three broker
    # losses: every connection starts with CONNECT, and each message the broker had not
    # acknowledged is sent again after it, so the broker sees every one.
    link = HubLink(BrokerAddress("127.0.0.1", broker.port), TABLE, [], lambda t, p: None)
    link.start()
    count = 600
    cuts = 3

    def send(seat: int, flush: bool) -> None:
        for n in range(count):
            link.publish(topics.seat(TABLE, seat, topics.SEAT_VIEW),
                         messages.message("view", seat=seat, colour=[n % 256, n // 256, 0],
                                          name="red"), flush=flush)
            if n % (count // (cuts + 1)) == 0:
                # Let the loss and the reconnect happen while this thread publishes.
                link.connected.wait(20)

    threads = [threading.Thread(target=send, args=(seat, seat == 1)) for seat in (1, 2)]
    try:
        for thread in threads:
            thread.start()
        for cut in range(cuts):
            broker.wait(lambda c, k=cut: len(c) == k + 1 and len(
                StandInBroker.publishes(c[-1])) > 20)
            broker.cut()
        for thread in threads:
            thread.join(60)

        def everything(connections: list[list[bytes]]) -> bool:
            seen = {(view["seat"], view["colour"][0] + 256 * view["colour"][1])
                    for c in connections for p in StandInBroker.publishes(c)
                    if (view := messages.decode(p))["t"] == "view"}
            return all((seat, n) in seen for seat in (1, 2) for n in range(count))

        broker.wait(everything, 60)
    finally:
        link.stop()
    # The stop sent DISCONNECT; the stand-in broker's reader takes it in its own time.
    broker.wait(lambda c: bool(c[-1]) and packet_type(c[-1][-1]) == DISCONNECT)
    assert len(broker.connections) == cuts + 1
    for connection in broker.connections:
        assert packet_type(connection[0]) == CONNECT, [packet_type(p) for p in connection]
