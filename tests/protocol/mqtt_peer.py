"""A blocking paho-mqtt 2.x client for tests: connect, subscribe, publish and wait."""

from __future__ import annotations

import queue
import threading
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.reasoncodes import ReasonCode

TIMEOUT = 10.0


class Peer:
    """One MQTT v5 connection with a username; received messages land in ``inbox``."""

    def __init__(
        self,
        port: int,
        username: str | None,
        password: str | None,
        name: str,
        will: tuple[str, bytes] | None = None,
        websockets: bool = False,
    ) -> None:
        """``name`` is the client id asked for; ``will`` a retained QoS 1 Last Will."""
        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=name,
            protocol=mqtt.MQTTv5,
            transport="websockets" if websockets else "tcp",
        )
        if username is not None:
            self.client.username_pw_set(username, password)
        if will is not None:
            self.client.will_set(will[0], will[1], qos=1, retain=True)
        self.disconnected = threading.Event()
        self.port = port
        self.inbox: queue.Queue[tuple[str, bytes, bool]] = queue.Queue()
        self._connected = threading.Event()
        self.connect_reason: ReasonCode | None = None
        self._subacks: queue.Queue[list[ReasonCode]] = queue.Queue()
        self._pubacks: dict[int, ReasonCode] = {}
        self._puback_seen = threading.Condition()
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.on_subscribe = self._on_subscribe
        self.client.on_publish = self._on_publish
        self.client.on_disconnect = self._on_disconnect

    def _on_connect(self, _c: Any, _u: Any, _f: Any, reason: ReasonCode, _p: Any) -> None:
        self.connect_reason = reason
        self._connected.set()

    def _on_disconnect(self, _c: Any, _u: Any, _f: Any, _reason: ReasonCode, _p: Any) -> None:
        self.disconnected.set()

    def _on_message(self, _c: Any, _u: Any, msg: mqtt.MQTTMessage) -> None:
        self.inbox.put((msg.topic, msg.payload, bool(msg.retain)))

    def _on_subscribe(
        self, _c: Any, _u: Any, _mid: int, reasons: list[ReasonCode], _p: Any
    ) -> None:
        self._subacks.put(reasons)

    def _on_publish(self, _c: Any, _u: Any, mid: int, reason: ReasonCode, _p: Any) -> None:
        with self._puback_seen:
            self._pubacks[mid] = reason
            self._puback_seen.notify_all()

    def connect(self) -> ReasonCode:
        """Connect and wait for the broker's answer; returns its reason code."""
        # No automatic reconnect: a test must see a connection the broker closed.
        self.client.reconnect_delay_set(3600, 3600)
        self.client.connect("127.0.0.1", self.port, keepalive=30)
        self.client.loop_start()
        if not self._connected.wait(TIMEOUT):
            raise TimeoutError("no CONNACK")
        assert self.connect_reason is not None
        return self.connect_reason

    def subscribe(self, topic: str) -> ReasonCode:
        """Subscribe at QoS 1 and wait for the SUBACK; returns its reason code."""
        self.client.subscribe(topic, qos=1)
        return self._subacks.get(timeout=TIMEOUT)[0]

    def publish(self, topic: str, payload: bytes, retain: bool = False) -> ReasonCode:
        """Publish at QoS 1 and wait for the PUBACK; returns its reason code."""
        info = self.client.publish(topic, payload, qos=1, retain=retain)
        with self._puback_seen:
            if not self._puback_seen.wait_for(lambda: info.mid in self._pubacks, TIMEOUT):
                raise TimeoutError("no PUBACK")
            return self._pubacks.pop(info.mid)

    def next_message(self) -> tuple[str, bytes, bool]:
        return self.inbox.get(timeout=TIMEOUT)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
