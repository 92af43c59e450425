# The seat's LED ring: what it shows, as a pure function of the view the hub sent
# (plus the local link state, the local dice and the time) into a preallocated RGB
# buffer.
#
# Layout, pixel 0 at the top, going clockwise:
#   pixel 0       the phase: white setup, seat colour reinforce, red attack, blue
#                 fortify, dark otherwise (waiting, game over; left in the seat
#                 colour when the view has no ring).
#   pixels 1..    the view's ring mode:
#                   count     `value` pixels at full seat colour (the last pixel
#                             blinks white when there are more than fit);
#                   progress  value/max of the pixels lit; in the attack phase this
#                             is the odds bar: green the chance of winning, the
#                             rest red;
#                   pulse     the whole ring breathes in the seat colour, quickly;
#                   spin      a comet in the seat colour goes round;
#                   off       the whole ring is dark;
#                   (none)    a view without a ring: the whole ring in the seat
#                             colour, steady, so a seat shows whose it is.
#   background    the seat colour, dim; it breathes while it is this seat's turn.
# Overrides, strongest first:
#   flash         the ring blinks one colour for a while: red after the hub refused
#                 something, white to identify the seat.
#   link lost     shown locally, because the hub cannot say it: a blue comet while
#                 Wi-Fi is down, an amber comet while the broker is unreachable, a
#                 slow red breath while the broker is up but the hub is offline (or
#                 not heard yet).
#   dice          the seat's own dice or typed faces: one die at a time, its face
#                 as that many white pixels from pixel 0, a short dark gap between
#                 dice so two equal faces read as two.
#
# The buffer is 3 bytes per pixel in R, G, B order; the board layer copies it to
# the LED strip in whatever order the strip wants. Nothing here allocates.

from micropython import const

LINK_UP = const(0)
LINK_NO_WIFI = const(1)
LINK_NO_BROKER = const(2)
LINK_NO_HUB = const(3)

MODE_NONE = const(0)  # the view has no ring: the seat colour and the phase pixel
MODE_OFF = const(1)
MODE_COUNT = const(2)
MODE_PROGRESS = const(3)
MODE_PULSE = const(4)
MODE_SPIN = const(5)

ERROR_MS = const(900)
_FLASH_MS = const(150)
_BREATH_MS = const(2000)
_PULSE_MS = const(800)
_COMET_MS = const(1000)
_BLINK_MS = const(500)
_DIE_MS = const(900)
_DIE_GAP_MS = const(150)
_DIM = const(16)     # background level out of 255
_BRIGHT = const(64)  # top of the turn breath
_FULL = const(255)


class RingView:
    # Fields the hub's seat view fills in; link, flash and dice are the seat's own.
    def __init__(self) -> None:
        self.colour = (255, 0, 0)
        self.my_turn = False
        self.phase = ""
        self.mode = MODE_OFF
        self.value = 0
        self.max = 0
        self.level = _FULL   # brightness, applied last
        self.flash = (255, 0, 0)
        self.flash_at = -1   # ticks_ms when a flash began, -1 for none
        self.flash_ms = 0
        self.link = LINK_UP
        self.dice = bytearray(3)
        self.dice_n = 0      # faces in `dice` to show; 0: no dice on the ring


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
    # One function, not one per layer: each function costs the seat's small heap.
    since = now - view.flash_at
    link = view.link
    r, g, b = view.colour
    mode = view.mode
    if view.flash_at >= 0 and 0 <= since < view.flash_ms:
        r, g, b = view.flash
        _fill(buf, n, r, g, b, _FULL if (since // _FLASH_MS) % 2 == 0 else 0)
    elif link == LINK_NO_WIFI:
        _comet(buf, n, now, 0, 0, 255)
    elif link == LINK_NO_BROKER:
        _comet(buf, n, now, 255, 140, 0)
    elif link == LINK_NO_HUB:
        _fill(buf, n, 255, 0, 0, _triangle(now, _BREATH_MS, 4, _BRIGHT))
    elif view.dice_n:
        # One die at a time, a short dark gap between dice so two equal faces read
        # as two.
        _fill(buf, n, 0, 0, 0, 0)
        t = now % (_DIE_MS * view.dice_n)
        if t % _DIE_MS >= _DIE_GAP_MS or view.dice_n == 1:
            for i in range(min(view.dice[t // _DIE_MS], n)):
                _set(buf, i, 255, 255, 255, _FULL)
    elif mode == MODE_OFF:
        _fill(buf, n, 0, 0, 0, 0)
    elif mode == MODE_SPIN:
        _comet(buf, n, now, r, g, b)
    elif mode == MODE_PULSE:
        _fill(buf, n, r, g, b, _triangle(now, _PULSE_MS, _DIM, _FULL))
    else:
        if mode == MODE_NONE:
            level = _FULL
        elif view.my_turn:
            level = _triangle(now, _BREATH_MS, _DIM, _BRIGHT)
        else:
            level = _DIM
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
        elif mode != MODE_NONE:
            _set(buf, 0, 0, 0, 0, 0)

        slots = n - 1
        value = view.value
        if mode == MODE_PROGRESS:
            top = view.max
            lit = (min(value, top) * slots + top // 2) // top if top > 0 else 0
            odds = phase == "attack"
            for i in range(slots):
                if odds:
                    if i < lit:
                        _set(buf, 1 + i, 0, 255, 0, _FULL >> 1)
                    else:
                        _set(buf, 1 + i, 255, 0, 0, _FULL >> 2)
                elif i < lit:
                    _set(buf, 1 + i, r, g, b, _FULL)
        elif mode == MODE_COUNT and value > 0:
            for i in range(min(value, slots)):
                _set(buf, 1 + i, r, g, b, _FULL)
            if value > slots and (now // _BLINK_MS) % 2 == 0:
                _set(buf, slots, 255, 255, 255, _FULL)
    level = view.level
    if level < _FULL:
        level += 1
        for j in range(3 * n):
            buf[j] = (buf[j] * level) >> 8
