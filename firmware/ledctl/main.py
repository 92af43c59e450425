# LED controller firmware: shows the hub's scenes on the territory LED chain.
#
# The hub sends COBS frames over USB serial (docs/led-link.md): SCENE (a colour
# and a blink bit per LED), LIMIT (master brightness and a current cap) and
# HEARTBEAT. Every good frame is ACKed with the controller's flags, every bad
# one NAKed with a reason. Blinking is done here, so the hub sends a scene
# only when it changes. When no good frame has arrived for lost_ms, the chain
# shows the "hub lost" pattern: every LED pulsing slowly in dim amber.
#
# On the Pico (sys.platform "rp2") the link is the USB serial console and the
# chain hangs off a PIO state machine. On the unix port (tests, demos):
#   micropython main.py --port fd:N|PATH --strip OUT.jsonl [--leds 85] [--lost-ms 3000]
# where --port is an inherited file descriptor or a device path (a pty), and
# the emulated strip appends its changes to OUT.jsonl.
#
# Copy this folder's .py files (and hardware/led-map.json, for the LED count
# and data pin) to the Pico's root.

import select
import sys
import time

from micropython import const

import ledframe as lf

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    from strips import Strip

    class Link(Protocol):
        def readinto(self, buf: bytearray) -> "int | None": ...

        def write(self, buf: bytearray, n: int) -> "int | None": ...

_LEDS = const(85)  # used when led-map.json is absent
_DATA_GPIO = const(2)
_LOST_MS = const(3000)
_BLINK_HALF_MS = const(400)
_TICK_MS = const(20)
_PULSE_MS = const(4000)
_PULSE_MIN = const(4)
_PULSE_SPAN = const(28)
# Bytes taken from the link per tick at most, so a flood cannot stop the
# blinking or the hub-lost pattern.
_RX_PER_TICK = const(1024)
_FULL = const(256)  # 8-bit fixed-point scale of 1.0


class Controller:
    def __init__(self, strip: "Strip", lost_ms: int = _LOST_MS) -> None:
        n = strip.n
        self.strip = strip
        self.n = n
        self.lost_ms = lost_ms
        self.rx = lf.Receiver()
        self.scene = bytearray(3 * n)
        self.blink = bytearray((n + 7) // 8)
        self._scene_len = 2 + 3 * n + (n + 7) // 8
        if self._scene_len > lf.MAX_PAYLOAD:
            raise ValueError("too many LEDs for one scene frame")
        # Fixed views of where a scene's colours and blink bits sit in the
        # receive buffer, so applying a scene copies without allocating.
        frame = memoryview(self.rx.buf)
        self._scene_src = frame[4:4 + 3 * n]
        self._blink_src = frame[4 + 3 * n:2 + self._scene_len]
        self._raw = bytearray(8)
        self.reply = bytearray(12)
        self._payload = bytearray(2)
        self.flags = 0
        self.blinks = False
        self.total = 0
        self.bright = _FULL
        self.cap = 0xFFFF
        self.k = _FULL
        self.lost = False
        self._lost_since = 0
        self._blink_from = 0
        self._last_rx = time.ticks_ms()
        self._dirty = True
        self._shown = -1  # blink phase or pulse level last shown
        self.acks = 0
        self.naks = 0

    # Feeds one received byte; returns the length of a reply in self.reply
    # (0: nothing to send yet).
    def receive(self, byte: int, now: int) -> int:
        r = self.rx.push(byte)
        if r == 0:
            return 0
        if r < 0:
            return self._nak(-r)
        buf = self.rx.buf
        kind = buf[0]
        plen = r - 4
        if kind == lf.SCENE:
            if plen != self._scene_len or ((buf[2] << 8) | buf[3]) != self.n:
                return self._nak(lf.NAK_PAYLOAD)
            self._apply_scene(now)
        elif kind == lf.LIMIT:
            if plen != 3:
                return self._nak(lf.NAK_PAYLOAD)
            self.bright = (buf[2] * _FULL + 127) // 255
            self.cap = (buf[3] << 8) | buf[4]
            self.flags |= lf.HAS_LIMIT
            self._rescale()
        elif kind != lf.HEARTBEAT:
            return self._nak(lf.NAK_TYPE)
        self._last_rx = now
        if self.lost:
            self.lost = False
            self._dirty = True
        p = self._payload
        p[0] = kind
        p[1] = self.flags
        self.acks += 1
        return lf.encode(lf.ACK, buf[1], p, 2, self._raw, self.reply)

    def _nak(self, reason: int) -> int:
        self._payload[0] = reason
        self.naks += 1
        # A bad frame's sequence number cannot be trusted, so a NAK carries 0.
        return lf.encode(lf.NAK, 0, self._payload, 1, self._raw, self.reply)

    def _apply_scene(self, now: int) -> None:
        self.scene[:] = self._scene_src
        # Blinking restarts lit with each scene, so a moved cursor shows at once.
        self._blink_from = now
        self.blink[:] = self._blink_src
        blinks = False
        for b in self.blink:
            if b:
                blinks = True
        self.blinks = blinks
        self.total = sum(self.scene)
        self.flags |= lf.HAS_SCENE
        self._rescale()

    def _rescale(self) -> None:
        # The hub keeps scenes inside the budget already; the cap is a second
        # fence for a hub that does not, and it holds under any brightness.
        k = self.bright
        if self.total * k > self.cap * _FULL:
            k = self.cap * _FULL // self.total
        self.k = k
        self._dirty = True

    # Advances the display to time now; shows the strip when anything changed.
    def tick(self, now: int) -> None:
        if not self.lost and time.ticks_diff(now, self._last_rx) > self.lost_ms:
            self.lost = True
            self._lost_since = now
        if self.lost:
            self._pulse(now)
            return
        phase = 0
        if self.blinks:
            phase = (time.ticks_diff(now, self._blink_from) // _BLINK_HALF_MS) & 1
        if not self._dirty and phase == self._shown:
            return
        self._dirty = False
        self._shown = phase
        out = self.strip.rgb
        scene = self.scene
        blink = self.blink
        k = self.k
        for i in range(self.n):
            j = 3 * i
            if phase and (blink[i >> 3] >> (i & 7)) & 1:
                out[j] = 0
                out[j + 1] = 0
                out[j + 2] = 0
            else:
                out[j] = (scene[j] * k) >> 8
                out[j + 1] = (scene[j + 1] * k) >> 8
                out[j + 2] = (scene[j + 2] * k) >> 8
        self.strip.show()

    def _pulse(self, now: int) -> None:
        t = time.ticks_diff(now, self._lost_since) % _PULSE_MS
        rise = t if t < _PULSE_MS // 2 else _PULSE_MS - t
        level = _PULSE_MIN + rise * _PULSE_SPAN // (_PULSE_MS // 2)
        # Pulse levels (4..32) never equal a blink phase (0, 1), and receive()
        # marks the scene dirty when the hub returns, so leaving redraws.
        if level == self._shown:
            return
        self._shown = level
        out = self.strip.rgb
        green = level * 9 // 16  # amber: red with a little over half as much green
        for j in range(0, 3 * self.n, 3):
            out[j] = level
            out[j + 1] = green
            out[j + 2] = 0
        self.strip.show()


def _ready(poll: "select.poll") -> bool:
    for _ in poll.ipoll(0):
        return True
    return False


# Runs the controller on a link: src is polled and read a byte at a time (a
# stream's readinto waits for a full buffer), replies go to dst.
def serve(ctl: Controller, src: "Link", dst: "Link") -> None:
    poll = select.poll()
    poll.register(src, select.POLLIN)
    one = bytearray(1)
    while True:
        for _ in poll.ipoll(_TICK_MS):
            break
        now = time.ticks_ms()
        budget = _RX_PER_TICK
        while budget and _ready(poll):
            budget -= 1
            try:
                got = src.readinto(one)
            except OSError:
                got = 0
            if not got:
                # The far end hung up (the hub closed the port): keep
                # showing, and wait for it to come back.
                time.sleep_ms(_TICK_MS)
                break
            m = ctl.receive(one[0], now)
            if m:
                dst.write(ctl.reply, m)
        ctl.tick(time.ticks_ms())


def _device_config() -> "tuple[int, int]":
    try:
        import json
        with open("led-map.json") as f:
            data = json.load(f)
        return int(data["led_count"]), int(data["controller"]["data_gpio"])
    except (OSError, ValueError, KeyError):
        return _LEDS, _DATA_GPIO


def _device() -> None:
    import micropython
    # Frame bytes include 0x03, which would otherwise raise KeyboardInterrupt.
    micropython.kbd_intr(-1)
    n, pin = _device_config()
    if sys.platform == "rp2":
        from strips import PioStrip
        strip: "Strip" = PioStrip(n, pin)
    else:
        from strips import NeoStrip
        strip = NeoStrip(n, pin)
    serve(Controller(strip), sys.stdin.buffer, sys.stdout.buffer)


def _arg(args: "list[str]", name: str, default: "str | None") -> str:
    if name in args:
        return args[args.index(name) + 1]
    if default is None:
        raise SystemExit("main.py: " + name + " is required")
    return default


def _unix(args: "list[str]") -> None:
    from strips import EmulatedStrip
    port = _arg(args, "--port", None)
    strip = EmulatedStrip(int(_arg(args, "--leds", str(_LEDS))), _arg(args, "--strip", None))
    lost_ms = int(_arg(args, "--lost-ms", str(_LOST_MS)))
    link = open(int(port[3:]) if port.startswith("fd:") else port, "r+b")
    serve(Controller(strip, lost_ms), link, link)


if __name__ == "__main__":
    if sys.platform == "linux" or sys.platform == "darwin":
        _unix(sys.argv[1:])
    else:
        _device()
