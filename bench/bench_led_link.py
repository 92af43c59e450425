"""Time the LED link: scene-to-ACK latency and scenes per second over a pty.

The hub's LedLink talks to the real controller firmware running under the
MicroPython unix port on the other side of a pty, as the tests do. A pty has
no baud rate, so the script also prints what the same frames cost on a real
115200 baud line (the Pico's USB CDC serial ignores the baud rate and is
faster still). The unix-port controller on a PC is much faster than a Pico,
so treat the pty figures as the hub's and the protocol's overhead, not the
device's.

    python bench/bench_led_link.py [--scenes 300]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tty
from pathlib import Path

from risktable.hardware.data import load_led_map
from risktable.leds import frames
from risktable.leds.link import LedLink
from risktable.leds.scene import TerritoryLight
from risktable.leds.strip import strip_image

ROOT = Path(__file__).resolve().parents[1]
LEDCTL = ROOT / "firmware" / "ledctl"
BAUD = 115200


def start_controller(workdir: Path) -> tuple[subprocess.Popen[bytes], int, str]:
    micropython = shutil.which("micropython") or str(Path(sys.executable).parent / "micropython")
    master, slave = os.openpty()
    tty.setraw(slave)
    env = dict(os.environ, MICROPYPATH=f".frozen:{LEDCTL}")
    proc = subprocess.Popen(
        [micropython, str(LEDCTL / "main.py"), "--port", f"fd:{master}",
         "--strip", str(workdir / "strip.jsonl"), "--leds", str(load_led_map().led_count)],
        pass_fds=[master], env=env)
    os.close(master)
    return proc, slave, os.ttyname(slave)


def scene(k: int) -> dict[str, TerritoryLight]:
    led_map = load_led_map()
    return {t: TerritoryLight(((k + n) % 200, (k * 3 + n) % 200, n * 5 % 200), 0.8,
                              blink=n == k % 42)
            for n, t in enumerate(sorted(led_map.territories))}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=300)
    parser.add_argument("--quick", action="store_true", help="a smoke run: 20 scenes")
    args = parser.parse_args()
    if args.quick:
        args.scenes = 20
    led_map = load_led_map()

    image = strip_image(scene(1), led_map)
    wire = frames.encode_frame(frames.SCENE, 1, frames.scene_payload(image.rgb, image.blink))
    heartbeat = frames.encode_frame(frames.HEARTBEAT, 1)
    ack = frames.encode_frame(frames.ACK, 1, frames.ack_payload(frames.SCENE, 3))
    line_ms = (len(wire) + len(ack)) * 10 / BAUD * 1000
    print(f"scene frame for {led_map.led_count} LEDs: {len(wire)} bytes on the wire "
          f"(heartbeat {len(heartbeat)}, ACK {len(ack)})")
    print(f"at {BAUD} baud 8N1: {line_ms:.1f} ms per scene + ACK, "
          f"at most {1000 / line_ms:.0f} scenes/s")

    with tempfile.TemporaryDirectory() as tmp:
        proc, slave, port = start_controller(Path(tmp))
        try:
            time.sleep(1.0)  # let the interpreter start
            with LedLink(port, led_map, heartbeat_interval=0.5) as link:
                link.show(scene(0))
                if not link.wait_shown(10.0):
                    raise SystemExit("controller did not answer")
                scenes = [scene(k) for k in range(1, args.scenes + 1)]
                latencies = []
                started = time.perf_counter()
                for s in scenes:
                    t0 = time.perf_counter()
                    link.show(s)
                    if not link.wait_shown(5.0):
                        raise SystemExit("a scene was not acknowledged within 5 s")
                    latencies.append((time.perf_counter() - t0) * 1000)
                elapsed = time.perf_counter() - started
                print(f"pty, one scene at a time ({args.scenes} scenes): "
                      f"{args.scenes / elapsed:.0f} scenes/s, scene-to-ACK "
                      f"p50 {percentile(latencies, 0.5):.2f} ms, "
                      f"p99 {percentile(latencies, 0.99):.2f} ms, "
                      f"max {max(latencies):.2f} ms")

                acks_before = link.stats.acks
                shown = 0
                started = time.perf_counter()
                while time.perf_counter() - started < 2.0:
                    link.show(scenes[shown % len(scenes)])
                    shown += 1
                    time.sleep(0.001)
                link.wait_shown(5.0)
                elapsed = time.perf_counter() - started
                acked = link.stats.acks - acks_before
                print(f"pty, show() every 1 ms for 2 s: {shown} scenes offered, "
                      f"{acked / elapsed:.0f} frames/s acknowledged (the rest coalesced), "
                      f"retransmits {link.stats.retransmits}, NAKs {link.stats.naks}")
        finally:
            proc.kill()
            proc.wait()
            os.close(slave)


if __name__ == "__main__":
    main()
