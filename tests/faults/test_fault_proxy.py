"""The fault proxy itself, between a real MQTT client and mosquitto: whole packets
black-holed, delayed, doubled and swapped, and nothing closed by a black-hole."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest

from tests.support.fault_proxy import PUBLISH, UP, FaultProxy, Framer, packet_type
from tests.support.mosquitto import Mosquitto
from tests.support.mqtt_client import Recorder

TOPIC = "proxy/test"


def test_the_framer_cuts_whole_packets_from_any_pieces() -> None:
    big = bytes([0x30, 0xC8, 0x01]) + b"x" * 200  # remaining length 200: two bytes
    stream = b"\xc0\x00" + big + b"\xd0\x00"
    framer = Framer()
    packets = []
    for at in range(0, len(stream), 7):
        packets += framer.feed(stream[at:at + 7])
    assert packets == [b"\xc0\x00", big, b"\xd0\x00"]
    assert [packet_type(p) for p in packets] == [12, PUBLISH, 13]


@pytest.fixture
def pair(mosquitto: Mosquitto) -> Iterator[tuple[FaultProxy, Recorder, Recorder]]:
    """A publisher through the proxy and a subscriber straight to the broker."""
    proxy = FaultProxy(mosquitto.host, mosquitto.port)
    watcher = Recorder(mosquitto.host, mosquitto.port, "proxy-watcher")
    watcher.subscribe("proxy/#")
    # Its own probe coming back shows the subscription is in place.
    watcher.publish("proxy/probe", b"0")
    watcher.wait_for(lambda t, m, r: t == "proxy/probe")
    sender = Recorder(proxy.host, proxy.port, "proxy-sender")
    yield proxy, sender, watcher
    sender.close()
    watcher.close()
    proxy.close()


def _payloads(watcher: Recorder, last: bytes) -> list[bytes]:
    watcher.wait_for(lambda t, m, r: t == TOPIC and m == int(last))
    return [p for t, p, _ in watcher.messages if t == TOPIC]


def test_duplicate_sends_the_next_publish_twice(
        pair: tuple[FaultProxy, Recorder, Recorder]) -> None:
    proxy, sender, watcher = pair
    proxy.duplicate(UP, PUBLISH)
    sender.publish(TOPIC, b"1")
    sender.publish(TOPIC, b"2")
    assert _payloads(watcher, b"2") == [b"1", b"1", b"2"]


def test_reorder_sends_the_next_publish_after_the_one_behind_it(
        pair: tuple[FaultProxy, Recorder, Recorder]) -> None:
    proxy, sender, watcher = pair
    proxy.reorder(UP, PUBLISH)
    sender.client.publish(TOPIC, b"1", qos=1)
    sender.client.publish(TOPIC, b"2", qos=1)
    sender.publish(TOPIC, b"3")
    assert _payloads(watcher, b"3") == [b"2", b"1", b"3"]


def test_delay_holds_packets_and_keeps_their_order(
        pair: tuple[FaultProxy, Recorder, Recorder]) -> None:
    proxy, sender, watcher = pair
    proxy.delay(UP, 1.0)
    sender.client.publish(TOPIC, b"1", qos=1)
    sender.client.publish(TOPIC, b"2", qos=1)
    time.sleep(0.2)
    assert [p for t, p, _ in watcher.messages if t == TOPIC] == []
    assert _payloads(watcher, b"2") == [b"1", b"2"]


def test_a_black_hole_holds_everything_and_closes_nothing(
        pair: tuple[FaultProxy, Recorder, Recorder]) -> None:
    proxy, sender, watcher = pair
    sender.publish(TOPIC, b"1")
    proxy.black_hole()
    sender.client.publish(TOPIC, b"2", qos=1)
    time.sleep(0.5)
    assert [p for t, p, _ in watcher.messages if t == TOPIC] == [b"1"]
    assert sender.client.is_connected()
    proxy.black_hole(False)
    assert _payloads(watcher, b"2") == [b"1", b"2"]
    assert proxy.connections == 1  # the same connection carried it


def test_a_hold_stops_one_direction_and_lets_the_other_flow(
        pair: tuple[FaultProxy, Recorder, Recorder]) -> None:
    proxy, sender, watcher = pair
    watcher.publish("proxy/down", b"0", retain=True)
    sender.subscribe("proxy/down")
    sender.wait_for(lambda t, m, r: t == "proxy/down" and m == 0)
    proxy.hold(UP)
    sender.client.publish(TOPIC, b"1", qos=1)
    watcher.publish("proxy/down", b"2")
    # What the broker sends still reaches the sender, while what it sent waits.
    sender.wait_for(lambda t, m, r: t == "proxy/down" and m == 2)
    watcher.wait_for(lambda t, m, r: t == "proxy/down" and m == 2)
    assert [p for t, p, _ in watcher.messages if t == TOPIC] == []
    proxy.hold(UP, False)
    assert _payloads(watcher, b"1") == [b"1"]
    assert proxy.connections == 1
    watcher.publish("proxy/down", b"", retain=True)


def test_a_connection_given_up_during_a_black_hole_never_reaches_the_broker(
        mosquitto: Mosquitto) -> None:
    with FaultProxy(mosquitto.host, mosquitto.port) as proxy:
        proxy.black_hole()
        attempt = socket.create_connection((proxy.host, proxy.port))
        attempt.sendall(b"\x10\x0c\x00\x04MQTT\x04\x02\x00\x05\x00\x00")  # CONNECT, empty id
        attempt.close()
        proxy.black_hole(False)
        deadline = time.monotonic() + 10
        while proxy.abandoned == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert proxy.abandoned == 1 and proxy.connections == 0
