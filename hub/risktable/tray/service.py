"""``risktable tray``: the tray on the table's broker. It logs in with its own account
(``<table>-tray``), hears what the hub has armed (retained ``tray/armed``), and publishes
each settled roll it reads (``tray/roll``); a source that gives no frames is published as
``no_camera`` and logged, and the tray stops (a camera's service is restarted by its
supervisor)."""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import cv2
import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from riskproto import messages, topics
from risktable.broker_address import BrokerAddress
from risktable.dice_camera.colour import ColourCalibration
from risktable.dice_camera.crops import Image
from risktable.dice_camera.frames import Frame, FrameSourceError
from risktable.dice_camera.reader import DieRead
from risktable.dice_camera.settle import Settler
from risktable.mqtt_tls import use_tls
from risktable.tray import LAST_PHOTO, LAST_READ
from risktable.tray.judge import Armed, roll_message
from risktable.tray.watch import SettledRoll, settled_rolls

log = logging.getLogger(__name__)

# Seconds to wait for the broker's answers (CONNACK, SUBACK, PUBACK) before giving up.
BROKER_WAIT_S = 10.0


class TrayError(Exception):
    """The tray cannot run: no broker, refused login; one line for the person."""


class TrayService:
    """Publishes the rolls read from a frame source. ``read`` is the reader's
    ``DiceReader.read``; ``calibration`` tells the sides apart (None: every sure die is of
    the wrong colour while a battle is armed); ``on_roll(settled, msg)`` is told of each
    published roll; ``keep``: a folder where the last photo read and its read are kept
    (:data:`LAST_PHOTO`, :data:`LAST_READ`) for the board page; ``ca``: the table CA's
    certificate, when the broker speaks TLS."""

    def __init__(self, address: BrokerAddress, table: str, read: Callable[[Image], list[DieRead]],
                 calibration: ColourCalibration | None, *, username: str | None = None,
                 password: str | None = None,
                 on_roll: Callable[[SettledRoll | None, dict[str, Any]], None] | None = None,
                 keep: Path | None = None, ca: Path | None = None) -> None:
        self.table = topics.check_table(table)
        self.read = read
        self.calibration = calibration
        self.on_roll = on_roll
        self.keep = keep
        self.seq = 0
        self._armed = Armed()
        self._lock = threading.Condition()  # over _armed: notified when it changes
        self._subscribed = threading.Event()
        self._address = address
        self._client = mqtt.Client(CallbackAPIVersion.VERSION2,
                                   client_id=username or f"{table}-tray")
        if username is not None:
            self._client.username_pw_set(username, password)
        if ca is not None:
            use_tls(self._client, ca)
        self._client.on_message = self._message
        self._client.on_subscribe = lambda *_a: self._subscribed.set()

    @property
    def armed(self) -> Armed:
        """What the hub wants read now."""
        with self._lock:
            return self._armed

    def wait_armed(self, wanted: Callable[[Armed], bool], timeout: float) -> bool:
        """Wait until what the tray has heard armed is ``wanted``; False on timeout."""
        with self._lock:
            return self._lock.wait_for(lambda: wanted(self._armed), timeout)

    def connect(self) -> None:
        """Log in and take the hub's retained ``tray/armed``; :class:`TrayError` when not."""
        connected = threading.Event()
        refused: list[str] = []

        def on_connect(_c: Any, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
            if reason.is_failure:
                refused.append(str(reason))
            connected.set()

        self._client.on_connect = on_connect
        try:
            self._client.connect(self._address.host, self._address.port, keepalive=30)
        except OSError as exc:
            raise TrayError(f"cannot reach the broker at {self._address}: {exc}") from None
        self._client.loop_start()
        if not connected.wait(BROKER_WAIT_S) or refused:
            self.close()
            raise TrayError(f"the broker at {self._address} refused the tray's login: "
                            f"{refused[0] if refused else 'no answer'}")
        armed = topics.tray(self.table, topics.TRAY_ARMED)
        # The retained message of a filter comes before the broker's answer to a later
        # SUBSCRIBE (it handles one client's packets in order): the second answer marks it in.
        for _ in range(2):
            self._subscribed.clear()
            self._client.subscribe(armed, 1)
            if not self._subscribed.wait(BROKER_WAIT_S):
                self.close()
                raise TrayError("the broker did not accept the tray's subscription")

    def close(self) -> None:
        """Disconnect (the DISCONNECT first, so the network thread ends at once)."""
        self._client.disconnect()
        self._client.loop_stop()

    def run(self, frames: Callable[[], Iterable[Frame]], settler: Settler | None = None) -> int:
        """Read and publish until the source ends; returns how many rolls were published.
        ``frames`` opens the source: a :class:`FrameSourceError`, at the start or later,
        is published as ``no_camera`` and raised again."""
        published = 0
        try:
            for settled in settled_rolls(frames(), self.read, settler):
                self.publish(settled)
                published += 1
        except FrameSourceError as exc:
            log.error("tray: no frames: %s", exc)
            self._send(None, roll_message(self._next(), self.armed, [], None, 0,
                                          problem="no_camera"))
            raise
        return published

    def publish(self, settled: SettledRoll) -> dict[str, Any]:
        """Publish one settled roll (a dark frame as the problem ``dark``)."""
        armed = self.armed
        if settled.dark:
            msg = roll_message(self._next(), armed, [], None, 0, problem="dark")
        else:
            msg = roll_message(self._next(), armed, settled.reads, self.calibration,
                               settled.ms)
        self._send(settled, msg)
        return msg

    def _next(self) -> int:
        self.seq += 1
        return self.seq

    def _send(self, settled: SettledRoll | None, msg: dict[str, Any]) -> None:
        faces = " ".join(f"{d['value']}{'' if d['sure'] else '?'}:{d.get('side', d['colour'])}"
                         for d in msg["dice"])
        log.info("tray: roll %d for armed roll %d: %s%s (%s)", msg["seq"], msg["roll"],
                 faces or "no dice", f"; problem {msg['problem']}" if "problem" in msg else "",
                 settled.frame.name if settled is not None else "no frame")
        info = self._client.publish(topics.tray(self.table, topics.TRAY_ROLL),
                                    messages.encode(msg), qos=1)
        info.wait_for_publish(BROKER_WAIT_S)
        if self.keep is not None and settled is not None:
            self._keep(settled, msg)
        if self.on_roll is not None:
            self.on_roll(settled, msg)

    def _keep(self, settled: SettledRoll, msg: dict[str, Any]) -> None:
        # The photo first, so a page that sees the new read finds its photo; each file
        # replaced whole (written aside, then renamed).
        assert self.keep is not None
        self.keep.mkdir(parents=True, exist_ok=True)
        ok, data = cv2.imencode(".jpg", settled.frame.image, [cv2.IMWRITE_JPEG_QUALITY, 85])
        if not ok:
            log.warning("tray: the photo of read %d could not be encoded", msg["seq"])
            return
        for name, body in ((LAST_PHOTO, data.tobytes()),
                           (LAST_READ, json.dumps(msg).encode("utf-8"))):
            aside = self.keep / f".{name}.tmp"
            aside.write_bytes(body)
            os.replace(aside, self.keep / name)

    def _message(self, _c: Any, _u: Any, message: mqtt.MQTTMessage) -> None:
        if message.topic != topics.tray(self.table, topics.TRAY_ARMED):
            # The demo's embedded broker (amqtt 0.12) hands a new subscription every
            # retained message of the broker, whatever its filter: not the hub's doing.
            log.debug("tray: ignored a message on %s", message.topic)
            return
        try:
            msg = messages.decode(bytes(message.payload))
        except messages.ProtocolError as exc:
            log.warning("tray: the hub's tray/armed could not be read: %s", exc.message)
            return
        if msg["t"] != "tray_armed":
            log.warning("tray: a %s message on tray/armed; ignored", msg["t"])
            return
        armed = Armed.from_message(msg)
        with self._lock:
            self._armed = armed
            self._lock.notify_all()
        log.info("tray: armed roll %d: %d attack, %d defence dice", armed.roll, armed.attack,
                 armed.defence)
