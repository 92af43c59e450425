"""LedLink against the real controller firmware (MicroPython) across a real pty."""

from __future__ import annotations

import os
import select
import threading
import time
import tty
from collections.abc import Callable
from pathlib import Path

import pytest
import serial

from risktable.hardware.data import LedMap
from risktable.leds import frames
from risktable.leds.link import LedLink, LedPortError, SerialPort, open_serial
from risktable.leds.scene import Scene, TerritoryLight
from tests.leds.conftest import ControllerProcess, Pixel


def distinct_scene(led_map: LedMap, shift: int = 0, blink: frozenset[str] = frozenset()) -> Scene:
    """Every territory its own colour, dim enough to stay inside the current budget."""
    scene = {}
    for n, territory in enumerate(sorted(led_map.territories)):
        k = n + shift
        rgb = ((k * 37) % 200 + 1, (k * 91) % 200 + 1, (k * 53) % 200 + 1)
        scene[territory] = TerritoryLight(rgb, 0.5, blink=territory in blink, label=str(n))
    return scene


def expected_pixels(scene: Scene, led_map: LedMap, lit_blinkers: bool = True) -> list[Pixel]:
    pixels: list[Pixel] = [(0, 0, 0)] * led_map.led_count
    for territory, place in led_map.territories.items():
        light = scene[territory]
        for led in place.leds:
            pixels[led] = light.scaled() if lit_blinkers or not light.blink else (0, 0, 0)
    return pixels


class StateLog:
    def __init__(self) -> None:
        self.events: list[tuple[bool, str]] = []
        self.lock = threading.Lock()

    def __call__(self, up: bool, why: str) -> None:
        with self.lock:
            self.events.append((up, why))

    def ups(self) -> int:
        with self.lock:
            return sum(1 for up, _ in self.events if up)

    def downs(self) -> list[str]:
        with self.lock:
            return [why for up, why in self.events if not up]


def make_link(controller: ControllerProcess, led_map: LedMap, **kw: object) -> LedLink:
    return LedLink(str(controller.port), led_map, ack_timeout=0.3, heartbeat_interval=0.3,
                   reconnect_interval=0.1, **kw)  # type: ignore[arg-type]


def test_scene_arrives_exactly_and_blinks_locally(
        controller: ControllerProcess, led_map: LedMap) -> None:
    blinkers = frozenset({"alaska", "ukraine", "siam"})
    scene = distinct_scene(led_map, blink=blinkers)
    states = StateLog()
    with make_link(controller, led_map, on_state=states) as link:
        link.show(scene)
        assert link.wait_shown(10.0)
        assert link.up and states.ups() == 1
        on = expected_pixels(scene, led_map)
        off = expected_pixels(scene, led_map, lit_blinkers=False)
        # Both blink phases must appear, each exactly, and nothing else after the scene.
        controller.wait_for(lambda: on in [p for _, p in controller.strip.history()]
                            and off in [p for _, p in controller.strip.history()],
                            5.0, "both blink phases")
        history = controller.strip.history()
        first = next(i for i, (_, p) in enumerate(history) if p in (on, off))
        assert all(p in (on, off) for _, p in history[first:])
        assert link.stats.naks == 0


def test_newest_scene_only(controller: ControllerProcess, led_map: LedMap) -> None:
    release = threading.Event()
    scene_writes: list[bytes] = []

    class HeldPort:
        """Holds the first scene frame on its way out until the test has queued more."""

        def __init__(self, inner: SerialPort) -> None:
            self.inner = inner

        @property
        def in_waiting(self) -> int:
            return self.inner.in_waiting

        def read(self, size: int = 1) -> bytes:
            return self.inner.read(size)

        def write(self, data: bytes, /) -> int | None:
            frame = frames.FrameDecoder().feed(data)[0]
            if frame.kind == frames.SCENE:
                scene_writes.append(data)
                release.wait(10.0)
            return self.inner.write(data)

        def close(self) -> None:
            self.inner.close()

    link = make_link(controller, led_map, opener=lambda p, b: HeldPort(open_serial(p, b)))
    with link:
        link.show(distinct_scene(led_map, 0))
        while not scene_writes:
            threading.Event().wait(0.01)
        for shift in range(1, 21):
            link.show(distinct_scene(led_map, shift))
        release.set()
        assert link.wait_shown(10.0)
        newest = distinct_scene(led_map, 20)
        controller.wait_for(lambda: controller.strip.now() == expected_pixels(newest, led_map),
                            5.0, "the newest scene")
    # The held scene, then only the newest of the twenty queued behind it.
    assert len(scene_writes) == 2


def test_corrupted_frame_is_naked_and_retransmitted(
        controller: ControllerProcess, led_map: LedMap) -> None:
    damaged: list[int] = []

    class NoisyPort:
        """Flips one bit in the first scene frame, as line noise would."""

        def __init__(self, inner: SerialPort) -> None:
            self.inner = inner

        @property
        def in_waiting(self) -> int:
            return self.inner.in_waiting

        def read(self, size: int = 1) -> bytes:
            return self.inner.read(size)

        def write(self, data: bytes, /) -> int | None:
            if not damaged and len(data) > 100:
                damaged.append(len(data))
                data = data[:50] + bytes([data[50] ^ 0x10]) + data[51:]
            return self.inner.write(data)

        def close(self) -> None:
            self.inner.close()

    scene = distinct_scene(led_map, 5)
    with make_link(controller, led_map, opener=lambda p, b: NoisyPort(open_serial(p, b))) as link:
        link.show(scene)
        assert link.wait_shown(10.0)
        controller.wait_for(lambda: controller.strip.now() == expected_pixels(scene, led_map),
                            5.0, "the scene after a retransmission")
        assert damaged
        assert link.stats.naks == 1
        assert link.stats.retransmits == 1


def test_hub_lost_pattern_when_the_hub_stops(
        controller: ControllerProcess, led_map: LedMap) -> None:
    scene = distinct_scene(led_map)
    with make_link(controller, led_map) as link:
        link.show(scene)
        assert link.wait_shown(10.0)
    # Heartbeats stopped with the link: after 1.5 s the controller pulses.

    def pulsing() -> bool:
        lost = [(t, p) for t, p in controller.strip.history()
                if len(set(p)) == 1 and p[0] != (0, 0, 0)]
        return len({p[0] for _, p in lost}) >= 3

    controller.wait_for(pulsing, 10.0, "the hub-lost pulse")
    lost = [p[0] for _, p in controller.strip.history() if len(set(p)) == 1 and p[0] != (0, 0, 0)]
    for r, g, b in lost:
        # Dim amber: red leads, green about half, no blue, never bright.
        assert 0 < r <= 40 and g == r * 9 // 16 and b == 0


def test_heartbeats_keep_the_scene_up(controller: ControllerProcess, led_map: LedMap) -> None:
    scene = distinct_scene(led_map)
    with make_link(controller, led_map) as link:
        link.show(scene)
        assert link.wait_shown(10.0)
        threading.Event().wait(2.5)  # well past the controller's 1.5 s hub-lost timeout
        assert controller.strip.now() == expected_pixels(scene, led_map)
        assert link.stats.frames_sent >= 1 + 2 + 5  # limit, scene, heartbeats


def test_link_reconnects_after_the_controller_restarts(
        controller: ControllerProcess, led_map: LedMap) -> None:
    states = StateLog()
    scene = distinct_scene(led_map, 9)
    with make_link(controller, led_map, on_state=states) as link:
        link.show(scene)
        assert link.wait_shown(10.0)
        controller.stop()
        controller.wait_for(lambda: not link.up, 5.0, "the link to go down", allow_exit=True)
        assert any("lost" in why or "not found" in why for why in states.downs())
        controller.start()
        controller.wait_for(lambda: controller.strip.now() == expected_pixels(scene, led_map),
                            10.0, "the scene on the restarted controller")
        assert link.up
        assert states.ups() == 2
        assert link.stats.opens >= 2


def test_missing_port_is_one_clear_line(tmp_path: Path, led_map: LedMap) -> None:
    port = tmp_path / "ttyACM9"
    with pytest.raises(LedPortError) as info:
        LedLink(str(port), led_map).start()
    message = str(info.value)
    assert str(port) in message and "not found" in message and "\n" not in message


def test_busy_port_is_one_clear_line(controller: ControllerProcess, led_map: LedMap) -> None:
    with serial.Serial(str(controller.port), exclusive=True), \
            pytest.raises(LedPortError) as info:
        LedLink(str(controller.port), led_map).start()
    message = str(info.value)
    assert str(controller.port) in message and "busy" in message and "\n" not in message


def test_not_a_serial_port(tmp_path: Path, led_map: LedMap) -> None:
    plain = tmp_path / "plain-file"
    plain.write_text("")
    with pytest.raises(LedPortError, match="not a serial port"):
        LedLink(str(plain), led_map).start()


class ScriptedController:
    """A stand-in controller in the test process, on the master side of a real pty.

    It ACKs every frame with flags that say what it holds, like the firmware,
    but can be told to forget everything, as a controller that reset behind a
    port that stayed open would.
    """

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.port = os.ttyname(self.slave)
        self.received: list[frames.Frame] = []
        self.forget = threading.Event()
        self.mute = threading.Event()  # while set, frames are read but not answered
        self.ignore_once: set[int] = set()  # frame types to leave unanswered once
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> ScriptedController:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        os.close(self.master)
        os.close(self.slave)

    def kinds(self) -> list[int]:
        return [f.kind for f in list(self.received)]

    def _run(self) -> None:
        decoder = frames.FrameDecoder()
        flags = 0
        while not self._stop.is_set():
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if not ready:
                continue
            for frame in decoder.feed(os.read(self.master, 4096)):
                if frame.kind == frames.HEARTBEAT and self.forget.is_set():
                    self.forget.clear()
                    flags = 0
                flags |= {frames.SCENE: frames.HAS_SCENE,
                          frames.LIMIT: frames.HAS_LIMIT}.get(frame.kind, 0)
                self.received.append(frame)
                if self.mute.is_set() or frame.kind in self.ignore_once:
                    self.ignore_once.discard(frame.kind)
                    continue
                os.write(self.master, frames.encode_frame(
                    frames.ACK, frame.seq, frames.ack_payload(frame.kind, flags)))


def wait_until(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.01)


def test_controller_that_forgot_its_scene_gets_it_again(led_map: LedMap) -> None:
    with ScriptedController() as peer, LedLink(peer.port, led_map, heartbeat_interval=0.1) as link:
        link.show(distinct_scene(led_map, 4))
        assert link.wait_shown(5.0)
        first = [f for f in peer.received if f.kind == frames.SCENE]
        assert peer.kinds()[:2] == [frames.LIMIT, frames.SCENE] and len(first) == 1
        peer.forget.set()
        wait_until(lambda: peer.kinds().count(frames.SCENE) == 2, 5.0, "the scene again")
        resent = [f for f in peer.received if f.kind == frames.SCENE][1]
        assert resent.payload == first[0].payload
        assert peer.kinds().count(frames.LIMIT) == 2


def test_a_failing_state_listener_does_not_stop_the_link(led_map: LedMap) -> None:
    calls: list[bool] = []

    def listener(up: bool, why: str) -> None:
        calls.append(up)
        raise RuntimeError("listener bug")

    with ScriptedController() as peer, \
            LedLink(peer.port, led_map, on_state=listener) as link:
        link.show(distinct_scene(led_map, 1))
        assert link.wait_shown(5.0)
        link.show(distinct_scene(led_map, 2))
        assert link.wait_shown(5.0)
    assert calls == [True]


def test_a_lost_ack_means_a_retransmission(led_map: LedMap) -> None:
    with ScriptedController() as peer:
        peer.ignore_once.add(frames.SCENE)
        with LedLink(peer.port, led_map, ack_timeout=0.2) as link:
            link.show(distinct_scene(led_map, 6))
            assert link.wait_shown(5.0)
            scenes = [f for f in peer.received if f.kind == frames.SCENE]
            # The same frame, sequence number and all, sent twice.
            assert len(scenes) == 2 and scenes[0] == scenes[1]
            assert link.stats.timeouts == 1 and link.stats.retransmits == 1


def test_state_goes_down_when_the_controller_stops_answering(led_map: LedMap) -> None:
    states = StateLog()
    with ScriptedController() as peer, LedLink(
            peer.port, led_map, ack_timeout=0.1, max_retries=2, heartbeat_interval=0.1,
            on_state=states) as link:
        link.show(distinct_scene(led_map, 7))
        assert link.wait_shown(5.0)
        peer.mute.set()
        wait_until(lambda: not link.up, 5.0, "the link to go down")
        assert states.downs() == ["LED controller not answering"]
        peer.mute.clear()
        wait_until(lambda: link.up, 5.0, "the link to come back")
        assert [up for up, _ in states.events] == [True, False, True]


def test_brightness_reaches_the_strip(controller: ControllerProcess, led_map: LedMap) -> None:
    scene = distinct_scene(led_map, 2)
    full = expected_pixels(scene, led_map)
    with make_link(controller, led_map) as link:
        link.show(scene)
        assert link.wait_shown(10.0)
        link.set_brightness(0.25)

        def quartered() -> bool:
            now = controller.strip.now()
            return all(abs(c - f * 64 / 255) <= 1 for px, fx in zip(now, full, strict=True)
                       for c, f in zip(px, fx, strict=True))

        controller.wait_for(quartered, 5.0, "the strip at a quarter brightness")


def test_led_count_mismatch_is_reported(
        micropython: str, tmp_path: Path, led_map: LedMap) -> None:
    ctl = ControllerProcess(micropython, tmp_path, led_map, lost_ms=1500)
    ctl.led_count = led_map.led_count - 1  # firmware configured for a shorter chain
    ctl.start()
    states = StateLog()
    try:
        with make_link(ctl, led_map, on_state=states) as link:
            link.show(distinct_scene(led_map))
            wait_until(lambda: any("LED count" in why for why in states.downs()), 10.0,
                       "the mismatch to be reported")
            assert not link.wait_shown(0.1)
            assert link.stats.naks >= link.max_retries + 1
    finally:
        ctl.stop()
