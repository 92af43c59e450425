"""The controller's frame handling and display logic, under MicroPython with a recording strip.

Frames come from the hub's codec; time is passed in, so blink phases and
the hub-lost timeout are checked at exact instants.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from risktable.hardware.data import hardware_file, load_led_map
from risktable.leds import frames
from tests.leds.conftest import RunMpy

N = 12  # a short chain keeps the output readable; the firmware takes any length

SCRIPT = """
import json
import time
import main

class Strip:
    def __init__(self, n):
        self.n = n
        self.rgb = bytearray(3 * n)
        self.shows = 0
    def show(self):
        self.shows += 1

def unhex(s):
    return bytes(int(s[i:i + 2], 16) for i in range(0, len(s), 2))

strip = Strip(%(n)d)
ctl = main.Controller(strip, lost_ms=1000)
base = time.ticks_ms()
for step in %(steps)r:
    at = time.ticks_add(base, step[1])
    if step[0] == "send":
        reply = []
        for b in unhex(step[2]):
            m = ctl.receive(b, at)
            if m:
                reply.append("".join("%%02x" %% x for x in ctl.reply[:m]))
        print(json.dumps(["reply", reply]))
    else:
        ctl.tick(at)
        print(json.dumps(["show", list(strip.rgb), strip.shows]))
"""


def scene_wire(seq: int, rgb: list[int], blink_leds: set[int], count: int = N) -> str:
    blink = bytearray((count + 7) // 8)
    for led in blink_leds:
        blink[led // 8] |= 1 << (led % 8)
    return frames.encode_frame(frames.SCENE, seq, frames.scene_payload(bytes(rgb),
                                                                        bytes(blink))).hex()


def run(run_mpy: RunMpy, steps: list[list[Any]]) -> list[Any]:
    return run_mpy(SCRIPT % {"n": N, "steps": steps})


def replies(entry: list[Any]) -> list[frames.Frame]:
    assert entry[0] == "reply"
    return [f for wire in entry[1] for f in frames.FrameDecoder().feed(bytes.fromhex(wire))]


def pixels(entry: list[Any]) -> list[tuple[int, ...]]:
    assert entry[0] == "show"
    flat = entry[1]
    return [tuple(flat[i : i + 3]) for i in range(0, len(flat), 3)]


RGB = [(7 * i + 40) % 256 for i in range(3 * N)]
COLOURS = [tuple(RGB[i : i + 3]) for i in range(0, 3 * N, 3)]


def test_scene_is_acked_shown_and_blinks(run_mpy: RunMpy) -> None:
    out = run(run_mpy, [["send", 0, scene_wire(5, RGB, {1, 9})],
                        ["tick", 10], ["tick", 410], ["tick", 500], ["tick", 810]])
    (ack,) = replies(out[0])
    assert ack == frames.Frame(frames.ACK, 5, bytes([frames.SCENE, frames.HAS_SCENE]))
    lit, dark = pixels(out[1]), pixels(out[2])
    assert lit == COLOURS
    assert dark == [(0, 0, 0) if i in (1, 9) else COLOURS[i] for i in range(N)]
    # No redraw within a phase; the next phase is lit again.
    assert out[3][2] == out[2][2]
    assert pixels(out[4]) == COLOURS


def test_brightness_and_cap(run_mpy: RunMpy) -> None:
    bright = [250] * (3 * N)
    out = run(run_mpy, [
        ["send", 0, scene_wire(1, RGB, set())],
        ["send", 0, frames.encode_frame(frames.LIMIT, 2, frames.limit_payload(128, 0xFFFF)).hex()],
        ["tick", 10],
        ["send", 20, frames.encode_frame(frames.LIMIT, 3, frames.limit_payload(255, 2000)).hex()],
        ["send", 20, scene_wire(4, bright, set())],
        ["tick", 30],
    ])
    (ack,) = replies(out[1])
    assert ack.payload == bytes([frames.LIMIT, frames.HAS_SCENE | frames.HAS_LIMIT])
    half = pixels(out[2])
    for got, full in zip(half, COLOURS, strict=True):
        for g, f in zip(got, full, strict=True):
            assert f * 128 / 255 - 1 <= g <= f * 128 / 255 + 0.5
    capped = [v for px in pixels(out[5]) for v in px]
    assert sum(bright) > 2000 >= sum(capped) > 1500
    assert len(set(capped)) == 1


def test_bad_frames_are_naked_and_change_nothing(run_mpy: RunMpy) -> None:
    good = scene_wire(1, RGB, set())
    raw_bad_crc = bytearray(bytes.fromhex(good))
    raw_bad_crc[40] = raw_bad_crc[40] ^ 0x01 or 0x02  # stays non-zero: same framing
    out = run(run_mpy, [
        ["send", 0, good],
        ["tick", 10],
        ["send", 20, raw_bad_crc.hex()],
        ["send", 20, scene_wire(2, [1] * (3 * (N + 1)), set(), count=N + 1)],
        ["send", 20, frames.encode_frame(0x55, 3, b"").hex()],
        ["send", 20, frames.encode_frame(frames.LIMIT, 4, b"\x01").hex()],
        ["tick", 30],
    ])
    expected_reasons = [frames.NAK_CRC, frames.NAK_PAYLOAD, frames.NAK_TYPE, frames.NAK_PAYLOAD]
    for entry, reason in zip(out[2:6], expected_reasons, strict=True):
        (nak,) = replies(entry)
        assert nak == frames.Frame(frames.NAK, 0, bytes([reason]))
    assert pixels(out[6]) == COLOURS
    assert out[6][2] == out[1][2]  # not even redrawn


def test_hub_lost_pulse_and_recovery(run_mpy: RunMpy) -> None:
    heartbeat = frames.encode_frame(frames.HEARTBEAT, 9).hex()
    out = run(run_mpy, [
        ["send", 0, scene_wire(1, RGB, set())],
        ["tick", 990],  # within the 1000 ms timeout
        ["send", 990, heartbeat],
        ["tick", 1900],  # 910 ms after the heartbeat: still fine
        ["tick", 2100],  # 1110 ms: lost
        ["tick", 3600],
        ["tick", 5600],
        ["send", 5700, heartbeat],
        ["tick", 5710],
    ])
    assert pixels(out[1]) == COLOURS
    assert replies(out[2])[0].payload == bytes([frames.HEARTBEAT, frames.HAS_SCENE])
    assert pixels(out[3]) == COLOURS
    pulse = [pixels(out[i]) for i in (4, 5, 6)]
    for image in pulse:
        assert len(set(image)) == 1
        r, g, b = image[0]
        assert 0 < r <= 40 and g == r * 9 // 16 and b == 0
    # Rising then falling: the pulse moves.
    assert pulse[0][0][0] < pulse[1][0][0] > pulse[2][0][0]
    assert pixels(out[8]) == COLOURS


def test_frame_loop_does_not_allocate(run_mpy: RunMpy) -> None:
    wires = [scene_wire(k, [(k + i) % 256 for i in range(3 * N)], {k % N}) for k in range(20)]
    wires.append(frames.encode_frame(frames.LIMIT, 99, frames.limit_payload(100, 300)).hex())
    wires.append(frames.encode_frame(frames.HEARTBEAT, 7).hex())
    wires.append("0102030400")  # a bad frame: NAK
    out = run_mpy(f"""
        import gc
        import json
        import time
        import main

        class Strip:
            def __init__(self, n):
                self.n = n
                self.rgb = bytearray(3 * n)
            def show(self):
                pass

        def unhex(s):
            return bytes(int(s[i:i + 2], 16) for i in range(0, len(s), 2))

        ctl = main.Controller(Strip({N}), lost_ms=1000)
        streams = [unhex(w) for w in {wires!r}]
        base = time.ticks_ms()

        # Index loops: enumerate() would allocate in the harness itself.
        def run(offset):
            replies = 0
            n = 0
            while n < len(streams):
                at = time.ticks_add(base, offset + 50 * n)
                for b in streams[n]:
                    if ctl.receive(b, at):
                        replies += 1
                ctl.tick(at)
                n += 1
            ctl.tick(time.ticks_add(base, offset + 5000))  # hub lost: the pulse
            return replies

        # Measured inside a function: new module globals would grow the
        # module's dict and be counted.
        def measure():
            run(0)  # warm up
            gc.collect()
            gc.disable()
            before = gc.mem_alloc()
            replies = run(10000)
            after = gc.mem_alloc()
            gc.enable()
            return [replies, after - before, ctl.acks, ctl.naks]

        print(json.dumps(measure()))
    """)
    replies, allocated, acks, naks = out[0]
    assert replies == len(wires)
    assert (acks, naks) == (2 * (len(wires) - 1), 2)
    assert allocated == 0


def test_device_reads_chain_length_and_pin_from_the_led_map(run_mpy: RunMpy,
                                                             tmp_path: Path) -> None:
    led_map = load_led_map()
    (tmp_path / "led-map.json").write_text(hardware_file("led-map.json").read_text())
    found = run_mpy("""
        import json
        import main
        print(json.dumps(main._device_config()))
    """)
    assert found == [[led_map.led_count, led_map.controller_data_gpio]]
    (tmp_path / "led-map.json").unlink()
    fallback = run_mpy("""
        import json
        import main
        print(json.dumps(main._device_config()))
    """)
    assert fallback == [[85, 2]]
