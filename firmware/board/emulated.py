# The emulated board for the MicroPython unix port. Outputs are printed to stdout as one
# JSON line per change ({"ring": [[r, g, b], ...]}, {"oled": [...]}, {"net": "up"}, ...);
# inputs arrive as JSON lines on stdin and, when the config sets "control_port", on a
# loopback TCP socket. firmware/README.md lists every line in both directions.
#
# Two ways in: high-level lines ({"button": ...}) become events directly, and pin lines
# ({"pin": ["confirm", 0]}) move fake pins that feed the same drivers the ESP32 board
# uses (debounce, long press, quadrature decoding); a task here samples the drivers and
# turns their verdicts into events. Reading lines ({"reading": [id, state, face]}) stand
# for the smart dice the ESP32 board hears over BLE.

import asyncio
import json
import sys

from micropython import const

from bounded import BoundedQueue
from drivers.dice import STATES
from log import log

_BUTTONS = ("confirm", "back", "encoder", "roll")
_PIN_BUTTONS = ("confirm", "back", "encoder")
_SAMPLE_MS = const(5)


class Board:
    def __init__(self, cfg):
        self.ring_size = cfg["ring_size"]
        self.control_port = cfg["control_port"]
        self.inputs = BoundedQueue(16)
        # "roll_button": false stands for a board built without one (Confirm rolls).
        self.has_roll_button = cfg.get("roll_button", True)
        self.wifi_up = True
        # The fake pins and their drivers are made on the first pin line: most runs
        # never send one, and the drivers cost heap the seat is short of.
        self.pins = {}
        self._buttons = []
        self._encoder = None
        self._pins_moved = asyncio.Event()
        self._last = {}
        self._tasks = []

    def _make_pins(self):
        # Named fake pins, driven by {"pin": [name, value]} lines, for the drivers.
        # Buttons are active low with pull-ups (released reads 1); the encoder's
        # contacts rest at 00 like the panel encoders drivers/encoder.py expects.
        from board.pins import Pin
        from drivers.buttons import Button
        from drivers.encoder import Encoder

        for name in _PIN_BUTTONS:
            self.pins[name] = Pin(name, Pin.IN, Pin.PULL_UP)
        for name in ("encoder_a", "encoder_b"):
            self.pins[name] = Pin(name, Pin.IN, value=0)
        self._buttons = [
            (name, Button(self.pins[name]))
            for name in _PIN_BUTTONS
        ]
        a = self.pins["encoder_a"]
        b = self.pins["encoder_b"]
        self._encoder = Encoder(a, b)
        self._tasks.append(asyncio.create_task(self._pin_events()))

    def _emit(self, key, value):
        # Only changes are printed: the seat may redraw freely, and a reader sees one
        # line per change a person would see.
        line = json.dumps({key: value})
        if self._last.get(key) != line:
            self._last[key] = line
            sys.stdout.write(line + "\n")

    def show_ring(self, pixels):
        out = []
        for i in range(0, len(pixels), 3):
            out.append([pixels[i], pixels[i + 1], pixels[i + 2]])
        self._emit("ring", out)

    def show_text(self, lines):
        self._emit("oled", lines)

    def show_dice(self, title, faces):
        # The ESP32 board draws the dice; here they are a line of faces under the title.
        self._emit("oled", [title, " ".join([str(f) for f in faces])])

    def show_net(self, up):
        self._emit("net", "up" if up else "down")

    def show_hub(self, up):
        self._emit("hub", "up" if up else "down")

    def beep(self, ms, hz):
        self._last.pop("beep", None)
        self._emit("beep", [ms, hz])

    def arm_dice(self, roll, count):
        # count 0: disarmed. Typed dice lines are reported for the armed roll.
        self._emit("armed", [roll, count])

    async def join_network(self):
        return True

    async def run(self):
        if self.control_port:
            server = await asyncio.start_server(self._client, "127.0.0.1", self.control_port)
            self._tasks.append(server)
        await self._read_lines(asyncio.StreamReader(sys.stdin))

    async def _pin_events(self):
        # Samples the drivers after pin lines instead of awaiting their ThreadSafeFlags
        # (as the ESP32 board does): on the unix port, tasks waiting on ThreadSafeFlags
        # next to several sockets in one poller crashed MicroPython 1.29 (SIGSEGV) once
        # two control clients were connected. The drivers' logic is the same either way.
        from drivers.buttons import LONG_PRESS

        encoder = self._encoder
        while encoder is not None:
            await self._pins_moved.wait()
            self._pins_moved.clear()
            busy = True
            while busy:
                busy = False
                for name, button in self._buttons:
                    event = button.sample()
                    if event is not None:
                        press = "long" if event == LONG_PRESS else "short"
                        self.inputs.put({"kind": "button", "button": name, "press": press})
                    busy = busy or button.logic.busy()
                steps = encoder.take()
                if steps:
                    self.inputs.put({"kind": "encoder", "steps": steps})
                if busy:
                    await asyncio.sleep_ms(_SAMPLE_MS)

    async def _client(self, reader, writer):
        log("control connection", writer.get_extra_info("peername"))
        try:
            await self._read_lines(reader)
        finally:
            writer.close()

    async def _read_lines(self, reader):
        while True:
            line = await reader.readline()
            if not line:
                return
            self._feed_line(line)

    def _feed_line(self, line):
        line = line.strip()
        if line:
            self.feed(line)

    def feed(self, line):
        # One input line; malformed lines are reported on stderr and ignored.
        try:
            self._feed(json.loads(line))
        except (ValueError, TypeError, KeyError, IndexError) as exc:
            log("bad input line", line, repr(exc))

    def _feed(self, cmd):
        if "button" in cmd:
            name = cmd["button"]
            if name not in _BUTTONS or (name == "roll" and not self.has_roll_button):
                raise ValueError("unknown button")
            press = "long" if cmd.get("long") else "short"
            self.inputs.put({"kind": "button", "button": name, "press": press})
        elif "encoder" in cmd:
            steps = cmd["encoder"]
            if not isinstance(steps, int) or not steps:
                raise ValueError("encoder steps must be a non-zero integer")
            self.inputs.put({"kind": "encoder", "steps": steps})
        elif "dice" in cmd:
            dice = []
            for i, die in enumerate(cmd["dice"]):
                if isinstance(die, dict):
                    dice.append(die)
                elif isinstance(die, int) and 1 <= die <= 6:
                    dice.append({"id": "emulated-%d" % (i + 1), "face": die, "state": "settled"})
                else:
                    raise ValueError("a die is a face 1-6 or an object")
            self.inputs.put({"kind": "dice", "dice": dice})
        elif "reading" in cmd:
            # A smart die's reading as drivers/ble_dice.py reports it: [id, state, face].
            die_id, state, face = cmd["reading"]
            if state not in STATES or not isinstance(face, int) or not 0 <= face <= 6:
                raise ValueError("a reading is [id, state, face 0-6]")
            self.inputs.put({"kind": "reading", "id": str(die_id), "state": state,
                             "face": face})
        elif "card" in cmd:
            uid = cmd["card"]
            if not isinstance(uid, str) or not uid:
                raise ValueError("card uid must be a hex string")
            self.inputs.put({"kind": "card", "uid": uid.upper()})
        elif "pin" in cmd:
            name, value = cmd["pin"]
            if not self.pins:
                self._make_pins()
            self.pins[name].value(value)
            self._pins_moved.set()
        else:
            raise ValueError("unknown input")
