"""A protocol-level seat for tests: what a seat controller says and hears, without firmware.

:class:`SeatClient` speaks the seat side of ``protocol/README.md`` over a real
broker with paho-mqtt 2.x: a Last Will and a retained birth carrying ``boot``,
the seat's subscriptions, events numbered by :class:`riskproto.sequence.Outbox`
and retransmitted (at once, after ``retry_ms``, then backing off; all at once
when a new hub birth is seen) until the hub answers each one with an ack or an
error naming its seq. It records every view, command and answer, so a test can
drive a table through it and check what each seat was told.

    seat = SeatClient("127.0.0.1", port, "den", 1).start()
    answer = seat.request({"kind": "button", "button": "confirm", "press": "short"})
    assert answer.ack, answer
    seat.close()
"""

from __future__ import annotations

import json
import random
import socket
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from riskproto import messages, topics
from riskproto.sequence import Outbox
from risktable.service.mqtt_loop import MqttLoop

CAPS = ("ring", "encoder", "buttons", "nfc", "dice_manual")
# mosquitto leaves Nagle's algorithm on by default: it then holds an ack back behind
# the view sent just before it until the seat's delayed ACK (40 ms), per event.
BROKER_NO_DELAY = "set_tcp_nodelay true\n"


@dataclass(frozen=True)
class Answer:
    """The hub's first answer to one event: an ack, or an error with its code."""

    seq: int
    code: str | None = None  # None: acknowledged
    detail: str = ""

    @property
    def ack(self) -> bool:
        return self.code is None


class SeatClient:
    """One seat ``seat`` of table ``table`` on the broker at ``host:port``.

    ``boot`` is the number drawn at power-on (random unless given);
    ``retry_ms`` and ``max_retry_ms`` set the outbox's retransmission backoff
    (the protocol's 500 ms and 8 s by default); ``username`` and ``password`` log
    in to a broker with accounts (``risktable broker config``). All public methods are
    thread-safe; callbacks run on paho's network thread.
    """

    def __init__(self, host: str, port: int, table: str, seat: int, *,
                 boot: int | None = None, retry_ms: int = 500, max_retry_ms: int = 8000,
                 keepalive: int = 15, capacity: int = 16, username: str | None = None,
                 password: str | None = None, lang: str | None = None) -> None:
        self.host, self.port = host, port
        self.lang = lang  # the language its birth names (None: none, the hub's)
        self.caps: tuple[str, ...] = CAPS  # what its birth says it has
        self.table = topics.check_table(table)
        self.seat = topics.check_seat(seat)
        rng = random.Random()
        self.boot = boot if boot is not None else rng.getrandbits(30)
        self._session = rng.getrandbits(29)
        self.outbox = Outbox(seat, capacity=capacity, retry_ms=retry_ms,
                             max_retry_ms=max_retry_ms)
        self.views: list[dict[str, Any]] = []
        self.commands: list[dict[str, Any]] = []
        self.answers: dict[int, Answer] = {}
        self.late_answers: list[Answer] = []  # answers to seqs no longer waiting
        self.sends: dict[int, int] = {}  # seq -> times published
        # seq -> perf_counter just before its first publish: where a benchmark starts
        # the clock, as the network floor's does, after the seat's own bookkeeping.
        self.first_published: dict[int, float] = {}
        self.hub_sessions: list[int] = []  # every new hub birth seen, in order
        self.received: list[tuple[str, dict[str, Any]]] = []  # (leaf or "hub", msg) in order
        self.hub_online = False
        self._cond = threading.Condition()
        self._closing = False
        self._client = mqtt.Client(
            callback_api_version=CallbackAPIVersion.VERSION2,
            client_id=f"{table}-seat{seat}", protocol=mqtt.MQTTv311, clean_session=True,
        )
        # The hub's network loop: an event is written flushed, from the publishing
        # thread, as a seat device writes its own packets, instead of waiting for a
        # network thread to get the interpreter in a test process full of other clients
        # (what bench_hub_latency.py times from). paho's loop_start reconnect delays.
        # Callbacks run under the loop's lock: this class takes it before self._cond.
        self._loop = MqttLoop(self._client, min_delay=1, max_delay=120,
                              name=f"seat{seat}-mqtt")
        self._keepalive = keepalive
        if username is not None:
            self._client.username_pw_set(username, password)
        self._client.on_connect = self._on_connect
        self._client.on_message = self._on_message
        self._client.on_socket_open = _no_delay
        self._connected = threading.Event()
        self._pump = threading.Thread(target=self._retransmit, name=f"seat{seat}-outbox",
                                      daemon=True)

    # -- life cycle ----------------------------------------------------------

    def start(self, timeout: float = 10.0) -> SeatClient:
        """Connect with a Will, subscribe, publish the birth; return once the broker
        holds the birth."""
        self._session = (self._session + 1) % messages.MAX_COUNTER
        self._client.will_set(topics.seat(self.table, self.seat, topics.SEAT_STATUS),
                              messages.encode(self._status(False)), qos=1, retain=True)
        self._loop.connect(self.host, self.port, self._keepalive)
        if not self._connected.wait(timeout):
            raise TimeoutError(f"seat {self.seat}: no connection to {self.host}:{self.port}")
        self._pump.start()
        return self

    def connected(self) -> bool:
        """True while the client's connection to the broker is up."""
        return bool(self._client.is_connected())

    def close(self) -> None:
        """Stop retransmitting and disconnect cleanly (the broker drops the Will)."""
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        if self._pump.is_alive():
            self._pump.join(timeout=5)
        self._loop.stop()

    def __enter__(self) -> SeatClient:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- events --------------------------------------------------------------

    def send(self, event: Mapping[str, Any], *, wait_broker: bool = True) -> int:
        """Queue ``event`` (an event message or just its ``kind`` and fields; any
        ``seat`` and ``seq`` are replaced), publish it and return its seq. With
        ``wait_broker`` it returns once the broker has taken it (PUBACK)."""
        fields = {k: v for k, v in event.items() if k not in ("v", "t", "seat", "seq")}
        with self._loop.lock, self._cond:
            seq = self.outbox.add(messages.message("event", **fields))
            infos = self._flush()
            self._cond.notify_all()
        if wait_broker:
            for info in infos:
                info.wait_for_publish(timeout=10)
        return seq

    def answer(self, seq: int, timeout: float = 30.0) -> Answer:
        """Wait for the hub's first answer to ``seq`` (retransmitting meanwhile)."""
        with self._cond:
            if not self._cond.wait_for(lambda: seq in self.answers, timeout):
                raise TimeoutError(f"seat {self.seat}: no answer to event {seq} in {timeout} s "
                                   f"(sent {self.sends.get(seq, 0)} times)")
            return self.answers[seq]

    def request(self, event: Mapping[str, Any], timeout: float = 30.0) -> Answer:
        """Send ``event`` and wait for its answer."""
        return self.answer(self.send(event), timeout)

    def pending(self) -> int:
        """Events not answered yet."""
        with self._cond:
            return len(self.outbox)

    # -- what the seat was told ------------------------------------------------

    @property
    def view(self) -> dict[str, Any] | None:
        """The latest view received, or ``None``."""
        with self._cond:
            return self.views[-1] if self.views else None

    def wait_for_view(self, predicate: Callable[[dict[str, Any]], bool],
                      timeout: float = 10.0) -> dict[str, Any]:
        """Wait until the latest view satisfies ``predicate``; return it."""
        with self._cond:
            ok = self._cond.wait_for(lambda: bool(self.views) and predicate(self.views[-1]),
                                     timeout)
            if not ok:
                raise TimeoutError(f"seat {self.seat}: latest view {self.views[-1:]} does not "
                                   "match")
            return self.views[-1]

    def wait_for_hub_birth(self, after: int, timeout: float = 15.0) -> int:
        """Wait until more than ``after`` hub births were seen; return the newest session."""
        with self._cond:
            if not self._cond.wait_for(lambda: len(self.hub_sessions) > after, timeout):
                raise TimeoutError(f"seat {self.seat}: no new hub birth in {timeout} s")
            return self.hub_sessions[-1]

    # -- internals -------------------------------------------------------------

    def _status(self, online: bool) -> dict[str, Any]:
        if not online:
            return messages.message("seat_status", seat=self.seat, online=False,
                                    session=self._session)
        birth = messages.message("seat_status", seat=self.seat, online=True,
                                 session=self._session, boot=self.boot, fw="test-seat",
                                 caps=list(self.caps))
        if self.lang is not None:
            birth["lang"] = self.lang
        return birth

    def _now(self) -> int:
        return int(time.monotonic() * 1000)

    def _flush(self) -> list[mqtt.MQTTMessageInfo]:
        # Called with the loop's lock and self._cond held: publish whatever the outbox
        # says is due.
        topic = topics.seat(self.table, self.seat, topics.SEAT_EVENT)
        infos = []
        now = self._now()
        payload = self.outbox.due(now)
        while payload is not None:
            seq = json.loads(payload)["seq"]  # the events sent may be invalid ones
            self.sends[seq] = self.sends.get(seq, 0) + 1
            self.first_published.setdefault(seq, time.perf_counter())
            info = self._loop.publish(topic, payload, qos=1, flush=True)
            if info is not None:  # None: the loop reconnects, and sends it after
                infos.append(info)
            payload = self.outbox.due(now)
        return infos

    def _retransmit(self) -> None:
        while True:
            with self._loop.lock, self._cond:
                if self._closing:
                    return
                self._flush()
            with self._cond:
                if self._closing:
                    return
                # Polled, as a seat does (the outbox does not say when its next entry
                # is due); send() flushes at once, so this only paces resends.
                self._cond.wait(0.02 if len(self.outbox) else 0.5)

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                    properties: Any) -> None:
        if reason.is_failure:
            return
        for topic in topics.seat_subscriptions(self.table, self.seat):
            client.subscribe(topic, qos=1)
        client.publish(topics.seat(self.table, self.seat, topics.SEAT_STATUS),
                       messages.encode(self._status(True)), qos=1, retain=True)
        with self._cond:
            self.outbox.reconnected()
            self._cond.notify_all()
        self._connected.set()

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            doc = messages.validate(json.loads(msg.payload))
        except (ValueError, messages.ProtocolError):
            return  # a real seat ignores what it cannot decode
        parsed = topics.parse_seat_topic(msg.topic)
        leaf = parsed[2] if parsed is not None else None
        with self._cond:
            self.received.append((leaf or "hub", doc))
            if msg.topic == topics.hub_status(self.table):
                self._hub_status(doc)
            elif leaf == topics.SEAT_VIEW:
                self.views.append(doc)
            elif leaf == topics.SEAT_CMD:
                self.commands.append(doc)
            elif leaf in (topics.SEAT_ACK, topics.SEAT_ERROR) and "seq" in doc:
                answer = Answer(doc["seq"], doc.get("code"), doc.get("detail", ""))
                if self.outbox.answered(answer.seq) and answer.seq not in self.answers:
                    self.answers[answer.seq] = answer
                else:
                    self.late_answers.append(answer)
            self._cond.notify_all()

    def _hub_status(self, doc: dict[str, Any]) -> None:
        session = doc["session"]
        current = self.hub_sessions[-1] if self.hub_sessions else None
        if doc["online"]:
            if session != current or not self.hub_online:
                # A hub (re)birth: everything unanswered is due at once (protocol README).
                self.hub_sessions.append(session)
                self.outbox.reconnected()
                self._flush()
            self.hub_online = True
        elif session == current:
            self.hub_online = False  # a late Will of an older hub session counts for nothing


def _no_delay(client: mqtt.Client, userdata: Any, sock: Any) -> None:
    # An event is one small packet and the seat waits for its answer: Nagle's
    # algorithm would hold the next packet back for the broker's delayed ACK.
    if hasattr(sock, "setsockopt"):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


__all__ = ["BROKER_NO_DELAY", "CAPS", "Answer", "SeatClient"]
