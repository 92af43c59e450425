"""A small paho-mqtt test client that records what it receives."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion


class Recorder:
    """Connects, subscribes and records ``(topic, payload, retain)`` triples."""

    def __init__(self, host: str, port: int, client_id: str, **will: Any) -> None:
        self.messages: list[tuple[str, bytes, bool]] = []
        self._cond = threading.Condition()
        self.client = mqtt.Client(
            callback_api_version=CallbackAPIVersion.VERSION2,
            client_id=client_id,
            protocol=mqtt.MQTTv311,
        )
        if will:
            self.client.will_set(**will)
        self.client.on_message = self._on_message
        self.client.connect(host, port, keepalive=5)
        self.client.loop_start()

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        with self._cond:
            self.messages.append((msg.topic, bytes(msg.payload), bool(msg.retain)))
            self._cond.notify_all()

    def subscribe(self, topic: str) -> None:
        result, _mid = self.client.subscribe(topic, qos=1)
        assert result == mqtt.MQTT_ERR_SUCCESS

    def publish(self, topic: str, payload: bytes | str, retain: bool = False) -> None:
        self.client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(5)

    def wait_for(
        self, predicate: Callable[[str, dict[str, Any] | None, bool], bool], timeout: float = 10
    ) -> tuple[str, dict[str, Any] | None, bool]:
        """Wait for a message (topic, decoded JSON or None, retain) matching ``predicate``."""
        deadline = time.monotonic() + timeout
        seen = 0
        with self._cond:
            while True:
                for topic, payload, retain in self.messages[seen:]:
                    try:
                        decoded = json.loads(payload) if payload else None
                    except ValueError:
                        decoded = None
                    if predicate(topic, decoded, retain):
                        return topic, decoded, retain
                seen = len(self.messages)
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    got = [(t, p[:120]) for t, p, _ in self.messages[-10:]]
                    raise AssertionError(f"no matching message within {timeout} s; last: {got}")
                self._cond.wait(remaining)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
