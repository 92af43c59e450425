# The strip layer: where the controller's pixels go. Every strip has
#   n    the number of LEDs
#   rgb  a bytearray of 3 * n bytes, R, G, B per LED, that the controller fills
#   show()  sends rgb to the LEDs
# PioStrip drives WS2812 from an RP2040 PIO state machine (the Pico),
# NeoStrip uses the port's neopixel module (any other board), EmulatedStrip
# (the unix port) appends each change as a JSON line to a file the tests read.

import json
import time

from micropython import const

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_WS2812_HZ = const(8_000_000)
_US_PER_LED = const(30)  # 24 bits of 1.25 us
# The chain latches a frame after its data line has been low this long: 50 us
# for the first WS2812B, 280 us for the V5 part; waiting 300 us serves both.
_LATCH_US = const(300)


class Strip:
    n = 0
    rgb = bytearray(0)

    def show(self) -> None:
        raise NotImplementedError


class EmulatedStrip(Strip):
    # Writes {"t": ms, "px": [[index, r, g, b], ...]} for the LEDs that changed
    # since the last show(); the first show() lists every LED.
    def __init__(self, n: int, path: str) -> None:
        self.n = n
        self.rgb = bytearray(3 * n)
        self._shown = bytearray(3 * n)
        self._first = True
        self._out = open(path, "w")

    def show(self) -> None:
        rgb = self.rgb
        shown = self._shown
        changed = []
        for i in range(self.n):
            j = 3 * i
            if self._first or rgb[j] != shown[j] or rgb[j + 1] != shown[j + 1] \
                    or rgb[j + 2] != shown[j + 2]:
                changed.append([i, rgb[j], rgb[j + 1], rgb[j + 2]])
        self._first = False
        if not changed:
            return
        shown[:] = rgb
        self._out.write(json.dumps({"t": time.ticks_ms(), "px": changed}))
        self._out.write("\n")
        self._out.flush()


class NeoStrip(Strip):
    def __init__(self, n: int, pin: int) -> None:
        import machine
        import neopixel
        self.n = n
        self.rgb = bytearray(3 * n)
        self._np = neopixel.NeoPixel(machine.Pin(pin), n)

    def show(self) -> None:
        np = self._np
        rgb = self.rgb
        # neopixel's own buffer is in the strip's wire order; copying through
        # np[i] keeps that order its business.
        for i in range(self.n):
            j = 3 * i
            np[i] = (rgb[j], rgb[j + 1], rgb[j + 2])
        np.write()


# WS2812 bit timing at 8 MHz (125 ns per cycle): a bit is 10 cycles (1.25 us),
# high for 3 cycles, then high (1) or low (0) for 4, then low for 3:
# 0 = 375 ns high / 875 ns low, 1 = 875 / 375. Both sit inside the WS2812B
# datasheet's +-150 ns around 0.4 / 0.85 us and 0.8 / 0.45 us, and inside the
# newer V5 part's limits; tests/leds/test_pio.py runs the program in an RP2040
# PIO emulator and measures it.
def _ws2812_program() -> "Any":
    rp2 = _rp2()

    # The assembler runs this body with the PIO instruction names as its globals.
    def ws2812() -> None:
        wrap_target()  # type: ignore[name-defined]
        label("bit")  # type: ignore[name-defined]
        out(x, 1).side(0)[2]  # type: ignore[name-defined]
        jmp(not_x, "zero").side(1)[2]  # type: ignore[name-defined]
        jmp("bit").side(1)[3]  # type: ignore[name-defined]
        label("zero")  # type: ignore[name-defined]
        nop().side(0)[3]  # type: ignore[name-defined]
        wrap()  # type: ignore[name-defined]

    assemble = rp2.asm_pio(sideset_init=rp2.PIO.OUT_LOW, out_shiftdir=rp2.PIO.SHIFT_LEFT,
                           autopull=True, pull_thresh=24)
    return assemble(ws2812)


# Only the RP2040 port has the rp2 module; nothing imports it elsewhere.
def _rp2() -> "Any":
    import rp2  # type: ignore[import-not-found]
    return rp2


class PioStrip(Strip):
    # pin: a GPIO number, or a Pin object already made.
    def __init__(self, n: int, pin: "int | Any", sm_id: int = 0) -> None:
        import array
        rp2 = _rp2()
        if isinstance(pin, int):
            import machine
            pin = machine.Pin(pin)
        self.n = n
        self.rgb = bytearray(3 * n)
        self._words = array.array("I", bytes(4 * n))
        self._sm = rp2.StateMachine(sm_id, _ws2812_program(), freq=_WS2812_HZ,
                                    sideset_base=pin)
        self._sm.active(1)
        self._frame_us = n * _US_PER_LED + _LATCH_US
        self._sent = time.ticks_us()

    def show(self) -> None:
        rgb = self.rgb
        words = self._words
        # put() returns once the last words are in the FIFO, before they are on
        # the wire; a frame started too soon after would run on into the last
        # one and the chain would never latch. Waiting a whole frame plus the
        # latch time from the last put() is always enough.
        wait = self._frame_us - time.ticks_diff(time.ticks_us(), self._sent)
        if wait > 0:
            time.sleep_us(wait)
        # WS2812 takes green, red, blue, most significant bit first, and the
        # program shifts out from bit 31: words hold GRB in 24 bits and put()
        # shifts them to the top, which keeps them small ints (no big-integer
        # allocation on the Pico).
        for i in range(self.n):
            j = 3 * i
            words[i] = (rgb[j + 1] << 16) | (rgb[j] << 8) | rgb[j + 2]
        self._sm.put(words, 8)
        self._sent = time.ticks_us()
