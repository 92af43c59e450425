"""A running ``TableService``, its seats, and a client that floods and times it.

Used by the hub fuzz test and ``bench/bench_hub_latency.py``. The seats are
:class:`~tests.support.seat_client.SeatClient` s played by a
:class:`~tests.support.virtual_table.VirtualTable`. The :class:`Watcher` is
one more MQTT client: it timestamps everything the hub sends the seats, and it
publishes raw payloads on any seat's topics (the test broker has no ACL, and
the hub judges a message by its topic and fields, not by who sent it), so a
whole flood shares one connection and reaches the hub in publish order: that
is what lets the fuzz test predict every duplicate and stale verdict.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from riskproto import topics
from risktable.broker_address import BrokerAddress
from risktable.config import BrokerConfig, HubConfig, LedConfig, TableConfig, TrayConfig
from risktable.leds.scene import Scene
from risktable.service.mqtt_loop import MqttLoop
from risktable.service.table_service import TableService
from tests.support.seat_client import SeatClient
from tests.table.inputs import CARDS


@dataclass
class Received:
    """One message the watcher got: topic, raw payload, decoded JSON (or None), arrival."""

    topic: str
    payload: bytes
    doc: dict[str, Any] | None
    at: float


@dataclass
class LedLog:
    """Every LED scene the hub showed, with the ``perf_counter`` time it was shown."""

    scenes: list[tuple[float, Scene]] = field(default_factory=list)

    def __call__(self, scene: Scene) -> None:
        self.scenes.append((time.perf_counter(), scene))


def start_service(host: str, port: int, table: str, seats: int, data_dir: Path,
                  leds: LedLog, tray: TrayConfig | None = None) -> TableService:
    """A ``TableService`` for ``seats`` human seats, connected and published (``tray``: its
    dice tray configuration)."""
    config = HubConfig(
        broker=BrokerConfig(BrokerAddress(host, port)),
        table=TableConfig(id=table, seats=seats),
        leds=LedConfig(enabled=False),
        panel_enabled=False,
        data_dir=data_dir,
        tray=tray or TrayConfig(),
    )
    service = TableService(config, card_uids=CARDS, show_leds=leds)
    service.start()
    return service


def seat_clients(host: str, port: int, table: str, seats: int) -> dict[int, SeatClient]:
    """Connected seat clients 1..``seats`` (boot ``100 + seat``), births published."""
    clients: dict[int, SeatClient] = {}
    try:
        for seat in range(1, seats + 1):
            clients[seat] = SeatClient(host, port, table, seat, boot=100 + seat).start()
    except BaseException:
        for client in clients.values():
            client.close()
        raise
    return clients


def _no_delay(client: mqtt.Client, userdata: Any, sock: Any) -> None:
    # Small packets back to back: without this, each waits for a delayed TCP ACK.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class Watcher:
    """One MQTT client that publishes seat traffic and records what the hub sends."""

    def __init__(self, host: str, port: int, table: str) -> None:
        self.table = table
        self.received: list[Received] = []
        self.answers = 0  # acks and errors received so far
        self._cond = threading.Condition()
        self._subscribed = threading.Event()
        self.client = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2,
                                  client_id=f"{table}-watcher", protocol=mqtt.MQTTv311)
        self.loop = MqttLoop(self.client, name=f"{table}-watcher")
        # Thousands of QoS 1 messages in flight: paho's default window of 20
        # would make the flood wait on round trips, not on the hub.
        self.client.max_inflight_messages_set(200)
        self.client.max_queued_messages_set(0)
        self.client.on_message = self._on_message
        self.client.on_socket_open = _no_delay
        self.client.on_subscribe = lambda *args: self._subscribed.set()
        self.loop.connect(host, port, keepalive=30)
        base = f"risk/{table}/"
        self.loop.subscribe([(base + "seat/+/ack", 1), (base + "seat/+/error", 1),
                               (base + "seat/+/view", 1), (base + "seat/+/cmd", 1),
                               (base + "board", 1)])
        if not self._subscribed.wait(5):
            raise TimeoutError("the broker did not confirm the watcher's subscriptions")

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        at = time.perf_counter()
        payload = bytes(msg.payload)
        try:
            doc = json.loads(payload)
        except ValueError:
            doc = None
        leaf = msg.topic.rsplit("/", 1)[1]
        with self._cond:
            self.received.append(Received(msg.topic, payload, doc if isinstance(doc, dict)
                                          else None, at))
            if leaf in (topics.SEAT_ACK, topics.SEAT_ERROR):
                self.answers += 1
            self._cond.notify_all()

    def publish(self, topic: str, payload: bytes) -> mqtt.MQTTMessageInfo | None:
        # Written from the calling thread, as SeatClient's events are (flushed).
        return self.loop.publish(topic, payload, qos=1, flush=True)

    def wait_answers(self, count: int, timeout: float) -> None:
        """Block until ``count`` acks and errors have arrived in all."""
        self.wait_until(lambda _received: self.answers >= count, timeout)

    def count(self, match: Callable[[Received], bool]) -> int:
        with self._cond:
            return sum(1 for r in self.received if match(r))

    def wait_until(self, done: Callable[[list[Received]], bool], timeout: float) -> None:
        """Block until ``done(received)`` holds; AssertionError on timeout."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not done(self.received):
                left = deadline - time.monotonic()
                if left <= 0:
                    tail = [(r.topic, r.payload[:100]) for r in self.received[-5:]]
                    raise AssertionError(f"timed out after {timeout} s; last received: {tail}")
                self._cond.wait(left)

    def close(self) -> None:
        self.loop.stop()


def replies_of(received: list[Received], table: str) -> list[Received]:
    """The hub's answers (acks and errors) among ``received``."""
    base = f"risk/{table}/seat/"
    return [r for r in received if r.topic.startswith(base)
            and r.topic.rsplit("/", 1)[1] in (topics.SEAT_ACK, topics.SEAT_ERROR)]


@contextmanager
def seat_one_at_a_table(micropython: str, host: str, port: int, table: str,
                        folder: Path) -> Iterator[tuple[TableService, Watcher, Any]]:
    """A 3-seat table's hub on the broker at ``host:port``, a watcher of its topics, and
    seat 1's firmware under MicroPython, once the seat shows its first view: (service,
    watcher, seat). All stopped at the end."""
    from tests.firmware.seats import SeatProcess, write_config

    service = start_service(host, port, table, 3, folder / "data", LedLog())
    watcher = Watcher(host, port, table)
    seat = SeatProcess(micropython, write_config(folder, table, 1, port))
    try:
        lines = service.inspect(lambda session: session.view(1)["lines"])
        seat.wait_output(lambda line: line.get("oled") == lines, timeout=20)
        yield service, watcher, seat
    finally:
        seat.stop()
        watcher.close()
        service.stop()
