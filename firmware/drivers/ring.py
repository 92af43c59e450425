# The seat's LED ring: what it shows, as a pure function of the view the hub sent
# (plus the local link state and the time) into a preallocated RGB buffer.
#
# Layout, pixel 0 at the top, going clockwise:
#   pixel 0       the phase: white setup, seat colour reinforce, red attack, blue
#                 fortify, dark while waiting for others.
#   pixels 1..    armies still to place, one pixel each at full seat colour (the
#                 last pixel blinks white when there are more than fit); or, while
#                 an attack is being chosen, the odds bar: the share of the ring
#                 that is green is the chance of winning the whole battle.
#   background    the seat colour, dim; it breathes while it is this seat's turn.
# Overrides, strongest first:
#   error flash   three red flashes after the hub refused something.
#   link lost     shown locally, because the hub cannot say it: a blue comet while
#                 Wi-Fi is down, an amber comet while the broker is unreachable, a
#                 slow red breath while the broker is up but the hub is offline.
#
# The buffer is 3 bytes per pixel in R, G, B order; the board layer copies it to
# the LED strip in whatever order the strip wants. Nothing here allocates.

from micropython import const

LINK_UP = const(0)
LINK_NO_WIFI = const(1)
LINK_NO_BROKER = const(2)
LINK_NO_HUB = const(3)

_ERROR_MS = const(900)
_FLASH_MS = const(150)
_BREATH_MS = const(2000)
_COMET_MS = const(1000)
_BLINK_MS = const(500)
_DIM = const(16)     # background level out of 255
_BRIGHT = const(64)  # top of the turn breath
_FULL = const(255)

_PHASES = ("setup", "reinforce", "attack", "fortify", "wait")


class RingView:
    # Fields the hub's seat view fills in; link is set by the seat itself.
    def __init__(self) -> None:
        self.colour = (255, 0, 0)
        self.my_turn = False
        self.phase = "wait"
        self.count = 0
        self.odds = -1       # percent 0..100, -1 when no battle is being chosen
        self.error_at = -1   # ticks_ms when the last error arrived, -1 for none
        self.link = LINK_UP


def _set(buf: "bytearray | memoryview", i: int, r: int, g: int, b: int, level: int) -> None:
    # level 255 keeps the colour exactly, 0 turns it off.
    level += 1
    j = i * 3
    buf[j] = (r * level) >> 8
    buf[j + 1] = (g * level) >> 8
    buf[j + 2] = (b * level) >> 8


def _fill(buf: "bytearray | memoryview", n: int, r: int, g: int, b: int, level: int) -> None:
    for i in range(n):
        _set(buf, i, r, g, b, level)


def _triangle(now: int, period: int, low: int, high: int) -> int:
    # A level going low -> high -> low once per period.
    t = now % period
    half = period >> 1
    if t >= half:
        t = period - t
    return low + (high - low) * t // half


def _comet(buf: "bytearray | memoryview", n: int, now: int, r: int, g: int, b: int) -> None:
    _fill(buf, n, 0, 0, 0, 0)
    head = (now % _COMET_MS) * n // _COMET_MS
    level = _FULL
    for k in range(min(4, n)):
        _set(buf, (head - k) % n, r, g, b, level)
        level = (level + 1) // 2 - 1


def render(view: "RingView", now: int, buf: "bytearray | memoryview", n: int) -> None:
    # now: a millisecond clock (ticks_ms); only differences and phases of it are used.
    if view.error_at >= 0:
        since = now - view.error_at
        if 0 <= since < _ERROR_MS:
            on = (since // _FLASH_MS) % 2 == 0
            _fill(buf, n, 255, 0, 0, _FULL if on else 0)
            return
    link = view.link
    if link == LINK_NO_WIFI:
        _comet(buf, n, now, 0, 0, 255)
        return
    if link == LINK_NO_BROKER:
        _comet(buf, n, now, 255, 140, 0)
        return
    if link == LINK_NO_HUB:
        _fill(buf, n, 255, 0, 0, _triangle(now, _BREATH_MS, 4, _BRIGHT))
        return

    r, g, b = view.colour
    level = _triangle(now, _BREATH_MS, _DIM, _BRIGHT) if view.my_turn else _DIM
    _fill(buf, n, r, g, b, level)

    phase = view.phase
    if phase == "setup":
        _set(buf, 0, 255, 255, 255, _FULL)
    elif phase == "reinforce":
        _set(buf, 0, r, g, b, _FULL)
    elif phase == "attack":
        _set(buf, 0, 255, 0, 0, _FULL)
    elif phase == "fortify":
        _set(buf, 0, 0, 0, 255, _FULL)
    else:
        _set(buf, 0, 0, 0, 0, 0)

    slots = n - 1
    if view.odds >= 0:
        green = (min(view.odds, 100) * slots + 50) // 100
        for i in range(slots):
            if i < green:
                _set(buf, 1 + i, 0, 255, 0, _FULL >> 1)
            else:
                _set(buf, 1 + i, 255, 0, 0, _FULL >> 2)
    elif view.count > 0:
        shown = min(view.count, slots)
        for i in range(shown):
            _set(buf, 1 + i, r, g, b, _FULL)
        if view.count > slots and (now // _BLINK_MS) % 2 == 0:
            _set(buf, slots, 255, 255, 255, _FULL)
