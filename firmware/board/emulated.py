# The emulated board for the MicroPython unix port. Outputs are printed to stdout as one
# JSON line per change ({"ring": [[r, g, b], ...]}, {"oled": [...]}, {"net": "up"}, ...);
# inputs arrive as JSON lines on stdin and, when the config sets "control_port", on a
# loopback TCP socket. firmware/README.md lists every line in both directions.
#
# Two ways in: high-level lines ({"button": ...}) become events directly, and pin lines
# ({"pin": ["confirm", 0]}) move fake pins that feed the same drivers the ESP32 board
# uses (board/pinlines.py, imported on the first pin line). Reading lines
# ({"reading": [id, state, face]}) stand for the smart dice the ESP32 board hears over
# BLE. The seat's heap is small: nothing here is imported before a line needs it, and
# a ring frame that did not change allocates nothing.

import asyncio
import json
import sys

from log import BoundedQueue, log
from net.mqtt import wait_ready


class Board:
    def __init__(self, cfg):
        self.ring_size = cfg["ring_size"]
        self.control_port = cfg["control_port"]
        self.inputs = BoundedQueue(16)
        # "roll_button": false stands for a board built without one (Confirm rolls).
        self.has_roll_button = cfg.get("roll_button", True)
        self.wifi_up = True
        self.pins = {}
        self._pins_moved = None
        self._last = {}
        self._ring = None  # the last ring printed, as bytes: the seat draws every frame
        self._tasks = []

    def _emit(self, key, value):
        # Only changes are printed: the seat may redraw freely, and a reader sees one
        # line per change a person would see.
        line = json.dumps({key: value})
        if self._last.get(key) != line:
            self._last[key] = line
            sys.stdout.write(line + "\n")

    def show_ring(self, pixels):
        if self._ring is None:
            self._ring = bytearray(len(pixels))
        elif pixels == self._ring:
            return
        self._ring[:] = pixels
        line = json.dumps({"ring": [[pixels[i], pixels[i + 1], pixels[i + 2]]
                                    for i in range(0, len(pixels), 3)]})
        sys.stdout.write(line + "\n")

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

    async def run(self, reader=None, writer=None):
        # The board's task reads stdin and, with "control_port", serves loopback
        # clients; each client's connection runs here too, with its streams.
        if reader is None:
            if self.control_port:
                self._tasks.append(
                    await asyncio.start_server(self.run, "127.0.0.1", self.control_port))
            await self._read_stdin()
            return
        if writer is not None:
            log("control connection", writer.get_extra_info("peername"))
        try:
            while True:
                line = await reader.readline()
                if not line:
                    return
                self.feed(line)
        finally:
            if writer is not None:
                writer.close()

    async def _read_stdin(self):
        # What asyncio.StreamReader(sys.stdin).readline() does, without importing
        # asyncio.stream (1.7 KiB of the seat's heap; only the control port needs it):
        # park on asyncio's poller until stdin is readable, then read what is there.
        # A line read in pieces is joined; an empty read is EOF, which ends the task.
        stdin = sys.stdin
        part = ""
        while True:
            await wait_ready(stdin)
            got = stdin.readline()
            if got is None:
                continue  # nothing there after all
            if got and got[-1] != "\n":
                part += got
                continue
            line = part + got if part else got
            part = ""
            if not line:
                return
            self.feed(line)

    def feed(self, line):
        # One input line; blank lines are skipped, malformed ones reported on stderr
        # and ignored. A refusal names only the key whose value is wrong (the line is
        # logged with it; firmware/README.md lists the forms): sentences would cost
        # the seat's heap about 75 bytes each.
        line = line.strip()
        if not line:
            return
        put = self.inputs.put
        try:
            cmd = json.loads(line)
            if "button" in cmd:
                name = cmd["button"]
                if name not in ("confirm", "back", "encoder", "roll") or (
                        name == "roll" and not self.has_roll_button):
                    raise ValueError("button")
                put({"kind": "button", "button": name,
                     "press": "long" if cmd.get("long") else "short"})
            elif "encoder" in cmd:
                steps = cmd["encoder"]
                if not isinstance(steps, int) or not steps:
                    raise ValueError("encoder")
                put({"kind": "encoder", "steps": steps})
            elif "dice" in cmd:
                dice = []
                for i, die in enumerate(cmd["dice"]):
                    if isinstance(die, dict):
                        dice.append(die)
                    elif isinstance(die, int) and 1 <= die <= 6:
                        dice.append({"id": "emulated-%d" % (i + 1), "face": die,
                                     "state": "settled"})
                    else:
                        raise ValueError("dice")
                put({"kind": "dice", "dice": dice})
            elif "reading" in cmd:
                # A smart die's reading as drivers/ble_dice.py reports it: [id, state, face].
                from drivers.dice import STATES

                die_id, state, face = cmd["reading"]
                if state not in STATES or not isinstance(face, int) or not 0 <= face <= 6:
                    raise ValueError("reading")
                put({"kind": "reading", "id": str(die_id), "state": state, "face": face})
            elif "card" in cmd:
                uid = cmd["card"]
                if not isinstance(uid, str) or not uid:
                    raise ValueError("card")
                put({"kind": "card", "uid": uid.upper()})
            elif "pin" in cmd:
                name, value = cmd["pin"]
                if self._pins_moved is None:
                    from board import pinlines

                    self.pins, self._pins_moved, task = pinlines.start(self.inputs)
                    self._tasks.append(task)
                self.pins[name].value(value)
                self._pins_moved.set()
            else:
                raise ValueError("input")
        except (ValueError, TypeError, KeyError, IndexError) as exc:
            log("bad input line", line, repr(exc))
