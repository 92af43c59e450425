# The emulated board for the MicroPython unix port. Outputs are printed to stdout as one
# JSON line per change ({"ring": [[r, g, b], ...]}, {"oled": [...]}, {"net": "up"}, ...);
# inputs arrive as JSON lines on stdin and, when the config sets "control_port", on a
# loopback TCP socket. firmware/README.md lists every line in both directions.
#
# Two ways in: high-level lines ({"button": ...}) become events directly, and pin lines
# ({"pin": ["confirm", 0]}) move fake pins that feed the same drivers the ESP32 board
# uses (board/pinlines.py, imported on the first pin line). Reading lines
# ({"reading": [id, state, face]}, optionally "battery" and "rssi") stand for the smart
# dice the ESP32 board's radio connected to (it has no smart_dice(): no radio to keep
# to the paired dice). The seat's heap is small: nothing here is imported before a line
# needs it, and a ring frame allocates nothing once the first is printed. A method
# costs the class's dict room too: the heap scenario fails with one more.
#
# Resets: the emulated watchdog (watchdog()) is a thread, so it fires even when the
# event loop itself is stuck, and a reset ends the process at once, killed by SIGUSR1
# (as abrupt as a chip reset, and told apart by a supervisor from an exit or a crash),
# after keeping its cause for the next start ("power" when none was kept). Test hooks:
# the line {"stall": true} makes the next ring frame block for good, like a driver
# stuck on its bus: the seat's loops stop and the watchdog resets it; {"stall": "draw"}
# makes every ring frame fail (OSError EIO), a ring that cannot be drawn: every pass of
# the seat's loop fails, and the seat resets itself; the config key "stall": "join"
# blocks joining the network for good, like a driver wedged in wlan.connect().

import asyncio
import json
import os
import sys
import time

from log import BoundedQueue, log

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def wait_ready(stream) -> "Any":
    # Parks the board's task until stdin is readable, as asyncio's streams do, through
    # asyncio's private poller: the one private use in the firmware, in the unix-port
    # stand-in that every firmware test runs (so an upgrade that changes the poller
    # fails the tests at once). asyncio.stream would cost 1.9 KiB of the seat's heap,
    # and polling stdin with a poll object and sleeps costs this module's bytecode
    # some 200 bytes more, which the heap scenario's 66 KiB does not have. The seat's
    # own code, the MQTT client included, uses only asyncio's public API.
    yield asyncio.core._io_queue.queue_read(stream)  # type: ignore[attr-defined]


class Board:
    wifi_up = True  # no WiFi to lose on the unix port (a class attribute: fewer slots)
    # Bytes allocated between collections (gc.threshold; the config's gc_threshold
    # overrides it): tuned on the unix port to pass the heap scenario in 64-66 KiB
    # (firmware/README.md, "Checks"). Collecting that often keeps a small heap in one
    # piece; a collection of a heap this size takes about 6 us on a PC.
    GC_THRESHOLD = 256

    def __init__(self, cfg, config_path="seat.json", kept=None):
        self.config_path = config_path
        self.reset_cause = kept or "power"
        self.watchdog_ms = cfg["watchdog_ms"]
        self._fed: "Any" = 0  # ticks_ms(): the stubs give it an opaque type
        self._stall = cfg.get("stall", False)  # the test hooks above
        self.ring_size = cfg["ring_size"]
        self.control_port = cfg["control_port"]
        self.inputs = BoundedQueue(16)
        # "roll_button": false stands for a board built without one (Confirm rolls).
        self.has_roll_button = cfg.get("roll_button", True)
        self._pins = None  # board/pinlines.start()'s (pins, Event, task): first pin line
        self._last = {}    # the last value printed for each output but the ring
        self._ring = bytearray()  # the last ring printed
        self._line: "bytearray | None" = None  # the ring's output line, rewritten in place

    def _emit(self, key, value):
        # Only changes are printed: the seat may redraw freely, and a reader sees one
        # line per change a person would see. The value itself is kept to compare
        # (the seat does not change what it passed), not a copy of the line.
        if self._last.get(key) != value:
            self._last[key] = value
            print(json.dumps({key: value}))

    def show_ring(self, pixels):
        # The seat draws up to 25 frames a second: a changed frame is written from one
        # line made at the first frame, {"ring": [[100, 100, 100], ...]}, whose values
        # are rewritten in place right-aligned in their 3 columns, instead of lists
        # and a string per frame.
        stall = self._stall
        if stall == "draw":
            raise OSError(5)
        while stall is True:
            time.sleep_ms(1000)
        if pixels == self._ring:
            return
        self._ring[:] = pixels  # the first frame sizes it
        line = self._line
        if line is None:
            line = self._line = bytearray(
                json.dumps({"ring": [[100, 100, 100]] * (len(pixels) // 3)}) + "\n", "utf-8")
        at = 13  # the units column of the first value
        for i in range(len(pixels)):
            v = pixels[i]
            line[at] = 48 + v % 10
            line[at - 1] = 48 + v // 10 % 10 if v > 9 else 32
            line[at - 2] = 48 + v // 100 if v > 99 else 32
            at += 7 if i % 3 == 2 else 5  # past "], [" or ", "
        sys.stdout.buffer.write(line)

    def show_text(self, lines, rtl=False, page=0):
        # {"oled": lines}, with "rtl": true for right-to-left rows and "page": [n, of]
        # when they take more than one page; no wrap here, so a line is a row (a
        # right-to-left page holds 4, a left-to-right one 8). Returns the page count.
        pages = ((len(lines) + 3) // 4 if rtl else (len(lines) + 7) // 8) or 1
        page %= pages
        if rtl or pages > 1:
            shown = {"oled": lines}
            if rtl:
                shown["rtl"] = True
            if pages > 1:
                shown["page"] = [page + 1, pages]
            if self._last.get("oled") != shown:
                self._last["oled"] = shown
                print(json.dumps(shown))
        else:
            self._emit("oled", lines)
        return pages

    def show_dice(self, title, faces, rtl=False):
        # The ESP32 board draws the dice; here they are a line of faces under the title.
        self.show_text([title, " ".join(map(str, faces))], rtl)

    def show_net(self, up):
        self._emit("net", "up" if up else "down")

    def show_hub(self, up):
        self._emit("hub", "up" if up else "down")

    def beep(self, ms, hz):
        self._last.pop("beep", None)  # every beep is heard, even the same one again
        self._emit("beep", [ms, hz])

    def refused(self, why):
        self._last.pop("refused", None)  # every refusal is told, even the same again
        self._emit("refused", why)

    def numbered(self, seq, kind):
        # Every event the seat queued for the hub: what an input line became, so a
        # script knows its line was taken (or, from "refused", that it was not).
        print('{"numbered": [%d, "%s"]}' % (seq, kind))

    def arm_dice(self, roll, count):
        # count 0: disarmed. Typed dice lines are reported for the armed roll.
        self._emit("armed", [roll, count])

    async def join_network(self, wdt=None):
        while self._stall == "join":
            time.sleep_ms(1000)
        return True

    def watchdog(self):
        # machine.WDT's surface is the board's own feed(): not fed for the config's
        # watchdog_ms, a thread resets the board ("watchdog"). The thread allocates
        # nothing while it waits.
        import _thread

        self.feed()
        _thread.start_new_thread(self._watch, ())
        return self

    def feed(self):
        self._fed = time.ticks_ms()

    def _watch(self):
        while time.ticks_diff(time.ticks_ms(), self._fed) < self.watchdog_ms:
            time.sleep(0.05)
        self.reset("watchdog")

    def reset(self, cause):
        log("reset:", cause)
        with open(self.config_path + ".reset", "w") as f:
            f.write(cause)  # for the next start's birth
        os.system("kill -USR1 $PPID")  # the shell's parent: this process
        while True:  # the signal ends the process
            time.sleep_ms(1000)

    async def run(self, reader=None, writer=None):
        # The board's task reads stdin and, with "control_port", serves loopback
        # clients; each client's connection runs here too, with its streams.
        # Stdin is read without asyncio.stream (1.7 KiB of the seat's heap; only the
        # control port needs it): park on asyncio's poller until stdin is readable,
        # then read what is there. A line read in pieces is joined; an empty read is
        # EOF, which ends the task.
        stdin = sys.stdin
        # (asyncio's poller holds the server's task: the board keeps no reference.)
        if reader is None and self.control_port:
            await asyncio.start_server(self.run, "127.0.0.1", self.control_port)
        elif writer is not None:
            log("control", writer.get_extra_info("peername"))
        part = ""
        try:
            while True:
                if reader is not None:
                    line = await reader.readline()
                else:
                    await wait_ready(stdin)
                    line = stdin.readline()
                    if line is None:
                        continue  # nothing there after all
                    if line and line[-1] != "\n":
                        part += line
                        continue
                    if part:
                        line = part + line
                        part = ""
                if not line:
                    if reader is None:
                        # stdin closed: the board's task goes on (it is supervised, and
                        # the control port may still bring inputs).
                        await asyncio.Event().wait()
                    return
                self.take(line)
        finally:
            if writer is not None:
                writer.close()

    def take(self, line):
        # One input line; blank lines are skipped, malformed ones reported on stderr
        # and ignored. A refusal names only the key whose value is wrong (the line is
        # logged with it; firmware/README.md lists the forms): sentences would cost
        # the seat's heap about 75 bytes each. JSON allows the line's own whitespace,
        # so only a refused line is stripped (a copy) for the log.
        if not line or line.isspace():
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
                        # Faces typed for the seat's own dice: their ids are seat/dice.py's,
                        # which the hub's dice statistics tell apart by seat.
                        dice.append({"id": "e%d" % (i + 1), "face": die,
                                     "state": "settled"})
                    else:
                        raise ValueError("dice")
                put({"kind": "dice", "dice": dice})
            elif "reading" in cmd:
                # A smart die's reading as drivers/ble_dice.py reports it: [id, state, face].
                from drivers.dice import STATES

                # Optional "battery" (percent) and "rssi" (dBm), as the radio hears them.
                die_id, state, face = cmd["reading"]
                if state not in STATES or not isinstance(face, int) or not 0 <= face <= 6:
                    raise ValueError("reading")
                put({"kind": "reading", "id": str(die_id), "state": state, "face": face,
                     "battery": cmd.get("battery"), "rssi": cmd.get("rssi")})
            elif "card" in cmd:
                uid = cmd["card"]
                if not isinstance(uid, str) or not uid:
                    raise ValueError("card")
                put({"kind": "card", "uid": uid.upper()})
            elif "stall" in cmd:
                self._stall = cmd["stall"]
            elif "pin" in cmd:
                name, value = cmd["pin"]
                if self._pins is None:
                    from board import pinlines

                    self._pins = pinlines.start(self.inputs)
                pins, moved, _ = self._pins
                pins[name].value(value)
                moved.set()
            else:
                raise ValueError("input")
        except (ValueError, TypeError, KeyError, IndexError) as exc:
            log("bad input line", line.strip(), repr(exc))

