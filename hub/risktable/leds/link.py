"""The serial link to the LED controller: newest scene first, acknowledged, self-healing.

:class:`LedLink` owns one writer thread. :meth:`LedLink.show` hands it a
scene and returns at once; the thread sends only the newest scene (a scene
replaced before it went out is never sent), waits for the controller's ACK,
retransmits on a NAK or a timeout, sends heartbeats while nothing changes so
the controller knows the hub is alive, and reopens the port when the USB
device goes away and comes back. Link state changes reach ``on_state``.

Usage::

    link = LedLink("/dev/serial/by-id/usb-MicroPython_Board-if00",
                   on_state=lambda up, why: print("LED link", up, why))
    link.start()            # LedPortError with a one-line fix when the port is unusable
    link.show(scene)
    ...
    link.stop()
"""

from __future__ import annotations

import contextlib
import errno
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import serial

from risktable.hardware.data import LedMap, load_led_map
from risktable.leds import frames
from risktable.leds.scene import Scene
from risktable.leds.strip import StripImage, channel_cap, strip_image

__all__ = ["LedLink", "LedPortError", "LinkStats", "SerialPort", "open_serial"]

StateCallback = Callable[[bool, str], None]

_log = logging.getLogger(__name__)


class LedPortError(Exception):
    """The LED controller's port cannot be opened; the message names the port and the fix."""


class SerialPort(Protocol):
    """What the link needs of a serial port (a ``serial.Serial`` has it all)."""

    @property
    def in_waiting(self) -> int: ...

    def read(self, size: int = 1) -> bytes: ...

    def write(self, data: bytes, /) -> int | None: ...

    def close(self) -> None: ...


def open_serial(port: str, baudrate: int = 115200) -> SerialPort:
    """Open ``port`` exclusively, or raise :class:`LedPortError` saying how to fix it."""
    try:
        return serial.Serial(port, baudrate, timeout=0.01, write_timeout=1.0, exclusive=True)
    except (serial.SerialException, OSError) as exc:
        raise LedPortError(_port_problem(port, exc)) from None


def _errno_of(exc: BaseException | None) -> int | None:
    # pyserial keeps the errno on some failures and only chains the OSError
    # or termios.error (errno as its first argument) on others.
    while exc is not None:
        code = getattr(exc, "errno", None)
        if isinstance(code, int):
            return code
        if exc.args and isinstance(exc.args[0], int):
            return exc.args[0]
        exc = exc.__cause__ or exc.__context__
    return None


def _port_problem(port: str, exc: BaseException) -> str:
    code = _errno_of(exc)
    if code in (errno.ENOENT, errno.ENXIO, errno.ENODEV):
        return (f"LED controller port {port} not found: plug in the LED controller "
                "or give its port (see ls /dev/serial/by-id/)")
    if code in (errno.EAGAIN, errno.EBUSY):
        return (f"LED controller port {port} is busy: another program (a serial "
                "monitor, mpremote, ModemManager) has it open; close that program")
    if code in (errno.EACCES, errno.EPERM):
        return (f"no permission to open LED controller port {port}: add the user to "
                "the dialout group (sudo usermod -aG dialout $USER) and log in again")
    if code == errno.ENOTTY:
        return f"{port} is not a serial port: give the LED controller's port"
    return f"cannot open LED controller port {port}: {exc}"


@dataclass
class LinkStats:
    """Counters since the link started; read them for diagnostics and benchmarks."""

    frames_sent: int = 0
    retransmits: int = 0
    acks: int = 0
    naks: int = 0
    timeouts: int = 0
    opens: int = 0
    rx_errors: int = 0


class LedLink:
    """Keeps the LED controller on ``port`` showing the newest scene.

    ``led_map`` lays scenes out along the chain and sets the current budget
    (``hardware/led-map.json`` when not given). ``brightness`` (0..1) is the
    master brightness the controller applies. ``ack_timeout`` is how long a
    frame may wait for its ACK before it is sent again; after ``max_retries``
    retransmissions the link counts as down until an ACK arrives.
    ``heartbeat_interval`` must stay well below the controller's hub-lost
    timeout (3 s by default). ``opener`` opens the port (tests wrap
    :func:`open_serial` to damage bytes on the way).
    """

    def __init__(
        self,
        port: str,
        led_map: LedMap | None = None,
        *,
        baudrate: int = 115200,
        brightness: float = 1.0,
        ack_timeout: float = 0.25,
        max_retries: int = 3,
        heartbeat_interval: float = 1.0,
        reconnect_interval: float = 0.5,
        on_state: StateCallback | None = None,
        opener: Callable[[str, int], SerialPort] = open_serial,
    ) -> None:
        self.port = port
        self.led_map = led_map or load_led_map()
        self.baudrate = baudrate
        self.ack_timeout = ack_timeout
        self.max_retries = max_retries
        self.heartbeat_interval = heartbeat_interval
        self.reconnect_interval = reconnect_interval
        self.stats = LinkStats()
        self._on_state = on_state
        self._opener = opener
        self._cap = channel_cap(self.led_map)
        self._brightness = _brightness_byte(brightness)
        self._cond = threading.Condition()
        self._image: StripImage | None = None
        self._version = 0  # of the newest scene handed to show()
        self._acked_version = 0  # of the newest scene the controller confirmed
        self._limit_version = 1  # likewise for the LIMIT (brightness and cap)
        self._limit_acked = 0
        self._stopping = False
        self._up = False
        self._last_why = ""
        self._serial: SerialPort | None = None
        self._thread: threading.Thread | None = None
        self._decoder = frames.FrameDecoder()
        self._seq = 0
        self._last_tx = 0.0

    # Public API ---------------------------------------------------------

    def start(self) -> None:
        """Open the port and start the link thread.

        Raises :class:`LedPortError` when the port cannot be opened now; once
        started, the link reopens a port that goes away by itself.
        """
        if self._thread is not None:
            raise RuntimeError("LedLink already started")
        self._serial = self._opener(self.port, self.baudrate)
        self.stats.opens += 1
        self._thread = threading.Thread(target=self._run, name="led-link", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the link thread and close the port (the controller then shows hub lost)."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self._close()

    def __enter__(self) -> LedLink:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def show(self, scene: Scene) -> None:
        """Make ``scene`` the one to show; any scene not yet sent is dropped for it."""
        image = strip_image(scene, self.led_map)
        with self._cond:
            self._image = image
            self._version += 1
            self._cond.notify_all()

    def set_brightness(self, level: float) -> None:
        """Set the master brightness, 0..1 (the budget still applies at 1)."""
        with self._cond:
            self._brightness = _brightness_byte(level)
            self._limit_version += 1
            self._cond.notify_all()

    def wait_shown(self, timeout: float) -> bool:
        """Wait until the controller has acknowledged the newest scene; False on timeout."""
        deadline = time.monotonic() + timeout
        with self._cond:
            target = self._version
            while self._acked_version < target:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            return True

    @property
    def up(self) -> bool:
        """Whether the controller answered the last frame sent."""
        return self._up

    # The link thread ----------------------------------------------------

    def _run(self) -> None:
        while not self._stopped():
            if self._serial is None and not self._reopen():
                continue
            job = self._next_job()
            if job is None:
                continue
            try:
                self._exchange(*job)
            except (serial.SerialException, OSError) as exc:
                self._close()
                self._set_state(False, f"port lost: {exc}")

    def _stopped(self) -> bool:
        with self._cond:
            return self._stopping

    def _reopen(self) -> bool:
        try:
            self._serial = self._opener(self.port, self.baudrate)
        except LedPortError as exc:
            self._set_state(False, str(exc))
            with self._cond:
                if not self._stopping:
                    self._cond.wait(self.reconnect_interval)
            return False
        self.stats.opens += 1
        self._decoder = frames.FrameDecoder()
        with self._cond:
            # A port that comes back may belong to a controller that restarted.
            self._forget_controller()
        return True

    def _next_job(self) -> tuple[int, bytes, int] | None:
        """The frame to send now as (type, payload, scene version), or None after waiting."""
        with self._cond:
            if self._stopping:
                return None
            if self._limit_acked < self._limit_version:
                payload = frames.limit_payload(self._brightness, self._cap)
                return frames.LIMIT, payload, self._limit_version
            if self._image is not None and self._acked_version < self._version:
                image = self._image
                payload = frames.scene_payload(image.rgb, image.blink)
                return frames.SCENE, payload, self._version
            idle = time.monotonic() - self._last_tx
            if idle >= self.heartbeat_interval:
                return frames.HEARTBEAT, b"", 0
            self._cond.wait(self.heartbeat_interval - idle)
            return None

    def _exchange(self, kind: int, payload: bytes, version: int) -> None:
        self._seq = (self._seq + 1) & 0xFF
        wire = frames.encode_frame(kind, self._seq, payload)
        nak_reason = 0
        for attempt in range(self.max_retries + 1):
            if attempt:
                if self._superseded(kind, version):
                    return  # stopping, or a newer scene waits: send that instead
                self.stats.retransmits += 1
            assert self._serial is not None
            self._serial.write(wire)
            self._last_tx = time.monotonic()
            self.stats.frames_sent += 1
            answer = self._await_answer(self._seq)
            if answer is None:
                self.stats.timeouts += 1
                nak_reason = 0
                continue
            if answer.kind == frames.NAK:
                self.stats.naks += 1
                nak_reason = answer.payload[0] if answer.payload else 0
                continue
            self._acked(kind, version, answer)
            return
        self._set_state(False, _failure(nak_reason))
        # Pause before the next round, so a controller that refuses every
        # frame is not flooded with them.
        with self._cond:
            if not self._stopping:
                self._cond.wait(self.reconnect_interval)

    def _superseded(self, kind: int, version: int) -> bool:
        with self._cond:
            return self._stopping or (kind == frames.SCENE and self._version != version)

    def _await_answer(self, seq: int) -> frames.Frame | None:
        assert self._serial is not None
        deadline = time.monotonic() + self.ack_timeout
        while time.monotonic() < deadline:
            data = self._serial.read(max(1, self._serial.in_waiting))
            if not data:
                continue
            before = self._decoder.errors
            received = self._decoder.feed(data)
            self.stats.rx_errors += self._decoder.errors - before
            for frame in received:
                if frame.kind == frames.NAK or (frame.kind == frames.ACK and frame.seq == seq):
                    return frame
                # Anything else is a late answer to a frame already given up on.
        return None

    def _acked(self, kind: int, version: int, answer: frames.Frame) -> None:
        self.stats.acks += 1
        flags = answer.payload[1] if len(answer.payload) >= 2 else 0
        with self._cond:
            if kind == frames.LIMIT:
                self._limit_acked = max(self._limit_acked, version)
            if kind == frames.SCENE:
                self._acked_version = max(self._acked_version, version)
            # A controller that holds no limit, or no scene though it was
            # sent one, restarted behind an open port: give it both again.
            if not flags & frames.HAS_LIMIT or (
                    not flags & frames.HAS_SCENE and self._acked_version > 0):
                self._forget_controller()
            self._cond.notify_all()
        self._set_state(True, "LED controller answering")

    def _forget_controller(self) -> None:
        # Called with the condition held.
        self._limit_acked = 0
        if self._image is not None:
            self._acked_version = min(self._acked_version, self._version - 1)

    def _set_state(self, up: bool, why: str) -> None:
        # Every change is reported; a link that stays down is reported again
        # only when the reason changes, so a missing port does not flood.
        if up == self._up and (up or why == self._last_why):
            return
        self._up = up
        self._last_why = why
        if self._on_state is None:
            return
        try:
            self._on_state(up, why)
        except Exception:
            # A faulty listener must not take the LED board down with it.
            _log.exception("LED link state callback failed")

    def _close(self) -> None:
        if self._serial is not None:
            # A port whose device vanished may fail to close; it is gone either way.
            with contextlib.suppress(serial.SerialException, OSError):
                self._serial.close()
            self._serial = None


_NAK_REASONS = {
    frames.NAK_CRC: "frames arrive damaged (CRC); check the USB cable",
    frames.NAK_FORMAT: "frames arrive garbled",
    frames.NAK_TYPE: "it does not know our frame types; update its firmware",
    frames.NAK_PAYLOAD: "it refuses the scene; does its LED count match led-map.json?",
}


def _failure(nak_reason: int) -> str:
    if not nak_reason:
        return "LED controller not answering"
    return f"LED controller rejects frames: {_NAK_REASONS.get(nak_reason, f'NAK {nak_reason}')}"


def _brightness_byte(level: float) -> int:
    if not 0.0 <= level <= 1.0:
        raise ValueError(f"brightness must be between 0 and 1, got {level}")
    return round(level * 255)
