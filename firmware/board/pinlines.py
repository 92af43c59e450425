# The emulated board's pin lines ({"pin": [name, value]}): named fake pins feeding the
# same drivers the ESP32 board uses (debounce, long press, quadrature decoding), and a
# task that samples the drivers after pin lines and turns their verdicts into events.
# board/emulated.py imports this on the first pin line: most runs never send one, and
# the drivers cost heap the seat is short of.
#
# It samples instead of awaiting the drivers' ThreadSafeFlags (as the ESP32 board
# does): on the unix port, tasks waiting on ThreadSafeFlags next to several sockets in
# one poller crashed MicroPython 1.29 (SIGSEGV) once two control clients were
# connected. The drivers' logic is the same either way.

import asyncio

from micropython import const

from board.pins import Pin
from drivers.buttons import LONG_PRESS, Button
from drivers.encoder import Encoder

_SAMPLE_MS = const(5)


def start(inputs):
    # Returns (the pins by name, an Event to set after moving a pin, the sampling task).
    # Buttons are active low with pull-ups (released reads 1); the encoder's contacts
    # rest at 00 like the panel encoders drivers/encoder.py expects.
    pins = {}  # type: dict  # fake pins, standing in for machine.Pin
    buttons = []
    for name in ("confirm", "back", "encoder"):
        pins[name] = Pin(name, Pin.IN, Pin.PULL_UP)
        buttons.append((name, Button(pins[name])))
    for name in ("encoder_a", "encoder_b"):
        pins[name] = Pin(name, Pin.IN, value=0)
    moved = asyncio.Event()
    encoder = Encoder(pins["encoder_a"], pins["encoder_b"])
    return pins, moved, asyncio.create_task(_sample(inputs, buttons, encoder, moved))


async def _sample(inputs, buttons, encoder, moved):
    while True:
        await moved.wait()
        moved.clear()
        busy = True
        while busy:
            busy = False
            for name, button in buttons:
                event = button.sample()
                if event is not None:
                    press = "long" if event == LONG_PRESS else "short"
                    inputs.put({"kind": "button", "button": name, "press": press})
                busy = busy or button.logic.busy()
            steps = encoder.take()
            if steps:
                inputs.put({"kind": "encoder", "steps": steps})
            if busy:
                await asyncio.sleep_ms(_SAMPLE_MS)
