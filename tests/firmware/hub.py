"""A small test-side hub: records seat events and acknowledges them by sequence."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from riskproto import messages, topics


class AckingHub:
    """Subscribes to every seat's events; applies each sequence number once and acks it.

    ``ack`` decides whether an event is acknowledged (to test retransmission);
    ``received`` keeps every delivery including duplicates, ``applied`` one per sequence.
    At every connection it says it is online under ``session`` (retained), as the hub
    does; ``session=None``: a hub that says nothing of itself.
    """

    def __init__(self, host: str, port: int, table: str, session: int | None = 1) -> None:
        self.table = table
        self.session = session
        self.received: list[dict[str, Any]] = []
        self.applied: dict[int, dict[str, Any]] = {}
        self.ack = True
        self.subscribed = 0  # SUBACKs: one per connection
        self._lock = threading.Lock()
        self._connected = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2)
        self.client.on_connect = self._on_connect
        self.client.on_subscribe = self._on_subscribe
        self.client.on_message = self._on_message
        self.client.reconnect_delay_set(min_delay=1, max_delay=1)
        self.client.connect(host, port, keepalive=5)
        self.client.loop_start()
        if not self._connected.wait(10):
            raise AssertionError("hub could not connect")

    def _on_connect(self, client: Any, userdata: Any, flags: Any, rc: Any, props: Any) -> None:
        client.subscribe(topics.seat_filter(self.table, topics.SEAT_EVENT), qos=1)
        if self.session is not None:
            status = messages.message("hub_status", online=True, session=self.session)
            client.publish(topics.hub_status(self.table), messages.encode(status), qos=1,
                           retain=True)
        self._connected.set()

    def _on_subscribe(self, *args: Any) -> None:
        with self._lock:
            self.subscribed += 1

    def wait_subscribed(self, count: int, timeout: float = 20.0) -> None:
        """Wait until the broker has acknowledged ``count`` subscriptions (one per
        connection: after a broker restart, the hub hears events again at the next)."""
        deadline = time.monotonic() + timeout
        while self.subscribed < count:
            assert time.monotonic() < deadline, f"hub subscribed {self.subscribed} times"
            time.sleep(0.01)

    def _on_message(self, client: Any, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        event = messages.decode(msg.payload)
        with self._lock:
            self.received.append(event)
            if not self.ack:
                return
            self.applied.setdefault(event["seq"], event)
        ack = messages.encode(messages.message("ack", seq=event["seq"]))
        client.publish(topics.seat(self.table, event["seat"], topics.SEAT_ACK), ack, qos=1)

    def inputs(self) -> list[dict[str, Any]]:
        """Applied events other than resync, in sequence order, without seat/seq/v/t."""
        with self._lock:
            events = [self.applied[s] for s in sorted(self.applied)]
        skip = {"v", "t", "seat", "seq"}
        return [
            {k: v for k, v in e.items() if k not in skip} for e in events if e["kind"] != "resync"
        ]

    def wait_inputs(self, count: int, timeout: float = 20.0) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = self.inputs()
            if len(got) >= count:
                return got
            time.sleep(0.05)
        raise AssertionError(f"hub applied {self.inputs()} , wanted {count} inputs")

    def wait_received(self, count: int, timeout: float = 20.0) -> None:
        """Wait until ``count`` distinct sequence numbers have arrived, answered or not."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if len({e["seq"] for e in self.received}) >= count:
                    return
            time.sleep(0.05)
        raise AssertionError(f"hub received {len(self.received)} events, wanted {count}")

    def deliveries(self, seq: int) -> int:
        with self._lock:
            return sum(1 for e in self.received if e["seq"] == seq)

    def publish(self, seat: int, leaf: str, msg: dict[str, Any], retain: bool = False) -> None:
        self.client.publish(
            topics.seat(self.table, seat, leaf), json.dumps(msg), qos=1, retain=retain
        ).wait_for_publish(10)

    def close(self) -> None:
        # DISCONNECT first: the network thread sends it and ends at once; stopped
        # first, the thread would finish its select() timeout (up to 1 s) before
        # disconnect() wrote the packet from this thread.
        self.client.disconnect()
        self.client.loop_stop()
