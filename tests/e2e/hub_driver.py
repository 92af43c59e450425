"""A running ``TableService`` and one MQTT client that plays and watches it.

Used by the hub fuzz test and ``bench/bench_hub_latency.py``. The client
publishes on every seat's topics itself (the test broker has no ACL, and the
hub judges a message by its topic and fields, not by who sent it), so all
seat traffic shares one connection and reaches the hub in publish order:
that is what lets the fuzz test predict every duplicate and stale verdict.

The legal inputs come from :class:`~risktable.table.autopilot.Autopilot`
playing a mirror :class:`~risktable.table.session.TableSession` that is fed
the same events; the hub's session must stay equal to it.

(Kept minimal on purpose: once ``tests/support/virtual_table.py`` lands from
the hub end-to-end work, the playing half belongs there.)
"""

from __future__ import annotations

import json
import random
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from riskproto import messages, topics
from risktable.config import BrokerConfig, HubConfig, LedConfig, TableConfig
from risktable.leds.scene import Scene
from risktable.rules import Config
from risktable.rules.bots import HeuristicBot
from risktable.service.address import BrokerAddress
from risktable.service.table_service import TableService
from risktable.table.autopilot import Autopilot
from risktable.table.session import TableSession

# One enrolled NFC UID per card of the classic deck (7-byte UIDs, upper-case hex).
UIDS: dict[int, str] = {c: f"04C0FFEE{c:06X}" for c in range(44)}
CARDS: dict[str, int] = {uid: c for c, uid in UIDS.items()}


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
                  leds: LedLog) -> TableService:
    """A ``TableService`` for ``seats`` human seats, connected and published."""
    config = HubConfig(
        broker=BrokerConfig(BrokerAddress(host, port)),
        table=TableConfig(id=table, seats=seats),
        leds=LedConfig(enabled=False),
        panel_enabled=False,
        data_dir=data_dir,
    )
    service = TableService(config, card_uids=CARDS, show_leds=leds)
    service.start()
    return service


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
        # Thousands of QoS 1 messages in flight: paho's default window of 20
        # would make the flood wait on round trips, not on the hub.
        self.client.max_inflight_messages_set(200)
        self.client.max_queued_messages_set(0)
        self.client.on_message = self._on_message
        self.client.on_socket_open = _no_delay
        self.client.on_subscribe = lambda *args: self._subscribed.set()
        self.client.connect(host, port, keepalive=30)
        self.client.loop_start()
        base = f"risk/{table}/"
        self.client.subscribe([(base + "seat/+/ack", 1), (base + "seat/+/error", 1),
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

    def publish(self, topic: str, payload: bytes) -> mqtt.MQTTMessageInfo:
        return self.client.publish(topic, payload, qos=1)

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
        self.client.disconnect()
        self.client.loop_stop()


def replies_of(received: list[Received], table: str) -> list[Received]:
    """The hub's answers (acks and errors) among ``received``."""
    base = f"risk/{table}/seat/"
    return [r for r in received if r.topic.startswith(base)
            and r.topic.rsplit("/", 1)[1] in (topics.SEAT_ACK, topics.SEAT_ERROR)]


class Player:
    """Plays every seat of the table as a person would, through the watcher's connection.

    ``next_seq`` is each seat's next sequence number; the fuzz test moves it past
    the numbers its flood spent.
    """

    def __init__(self, watcher: Watcher, seats: int, seed: int) -> None:
        self.watcher = watcher
        self.table = watcher.table
        seat_list = list(range(1, seats + 1))
        self.mirror = TableSession(Config(players=seats), seat_list, CARDS)
        rng = random.Random(seed)
        bots = {seat: HeuristicBot(rng.getrandbits(64)) for seat in seat_list}
        self.pilot = Autopilot(self.mirror, bots, UIDS, random.Random(rng.getrandbits(64)))
        self.next_seq = dict.fromkeys(seat_list, 1)
        self.sent: list[tuple[int, dict[str, Any]]] = []

    def next_event(self) -> tuple[int, dict[str, Any]] | None:
        """The next legal input, numbered with the seat's next seq; None when the game is over."""
        step = self.pilot.next_event()
        if step is None:
            return None
        seat, event = step
        event = dict(event, seq=self.next_seq[seat])
        self.next_seq[seat] += 1
        return seat, event

    def play(self, seat: int, event: dict[str, Any], timeout: float = 10) -> float:
        """Publish one legal input, wait for its ack, apply it to the mirror; returns
        the ``perf_counter`` time it was published."""
        ack_topic = topics.seat(self.table, seat, topics.SEAT_ACK)
        error_topic = topics.seat(self.table, seat, topics.SEAT_ERROR)
        seq = event["seq"]

        found: list[Received] = []
        mark = len(self.watcher.received)

        def answered(received: list[Received]) -> bool:
            nonlocal mark
            for r in received[mark:]:
                if r.doc is not None and r.doc.get("seq") == seq and r.topic in (ack_topic,
                                                                                 error_topic):
                    found.append(r)
                    return True
            mark = len(received)
            return False

        start = time.perf_counter()
        self.watcher.publish(topics.seat(self.table, seat, topics.SEAT_EVENT),
                             messages.encode(event))
        self.watcher.wait_until(answered, timeout)
        last = found[0]
        if last.topic != ack_topic:
            raise AssertionError(f"legal input {event} of seat {seat} refused: {last.doc}")
        outcome = self.mirror.handle(seat, event)
        if outcome.error is not None:
            raise AssertionError(f"the mirror refused what the hub accepted: {outcome.error}")
        self.sent.append((seat, event))
        return start

    def play_until(self, stop: Callable[[TableSession], bool], limit: int) -> int:
        """Play legal inputs until ``stop(mirror)`` or ``limit`` inputs; returns how many."""
        for played in range(limit):
            if stop(self.mirror):
                return played
            step = self.next_event()
            if step is None:
                return played
            self.play(*step)
        return limit
