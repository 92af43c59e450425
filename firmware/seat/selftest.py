# The seat's bring-up self-test: walks whoever built the seat through every part, one at
# a time, and says of each whether it works or, when it does not, the likely wiring fault
# (docs/troubleshooting.md and hardware/README.md's bench checks say the same). It is for
# the maker at the bench, before the seat meets a hub, so it speaks English. Started by
# holding Confirm at power-on (the ESP32 board) or by `risktable seat selftest` (the emulated
# board). Nothing here is imported in a game: its heap is the game's. Confirm held at
# power-on is read by the ESP32 board (its `selftest`), and board.make() runs this then.
#
# Each step shows what to do on the display and lights the ring amber while it waits
# (a seat with no working display still shows that something is asked); a step not
# answered within step_ms fails with its hint. Confirm means yes, Back means no, where a
# step asks what the maker sees.

import asyncio
import time

from micropython import const

from log import log

_STEP_MS = const(20000)
_TURNS = const(3)  # clicks asked each way
_LEVEL = const(64)  # ring brightness for the colour steps
_AMBER = (_LEVEL, _LEVEL // 3, 0)

# The colours the ring shows, as (name, r, g, b); a wrong colour means the pinout's
# colour order is not the ring's.
_COLOURS = (("red", _LEVEL, 0, 0), ("green", 0, _LEVEL, 0), ("blue", 0, 0, _LEVEL),
            ("white", _LEVEL, _LEVEL, _LEVEL))

# Eight full rows, the last two saying what to press (16 characters a row).
_PATTERN = ("Self-test: 8 row", "0123456789abcdef", "ABCDEFGHIJKLMNOP", "################",
            "row 5 of 8", "row 6 of 8", "Confirm: 8 clear", "Back: not clear")


def _fill(board, rgb):
    pixels = bytearray(3 * board.ring_size)
    for i in range(board.ring_size):
        pixels[3 * i] = rgb[0]
        pixels[3 * i + 1] = rgb[1]
        pixels[3 * i + 2] = rgb[2]
    board.show_ring(pixels)


async def _next(board, ms, kinds):
    # The next input of one of `kinds` within ms, or None; others are dropped.
    queue = board.inputs
    deadline = time.ticks_add(time.ticks_ms(), ms)
    while True:
        while len(queue):
            item = queue.get_nowait()
            if item["kind"] in kinds:
                return item
        left = time.ticks_diff(deadline, time.ticks_ms())
        if left <= 0:
            return None
        queue.ready.clear()
        try:
            await asyncio.wait_for_ms(queue.ready.wait(), left)
        except asyncio.TimeoutError:
            return None


class SelfTest:
    def __init__(self, board, cfg, step_ms=_STEP_MS):
        self.board = board
        self.cfg = cfg
        self.step_ms = step_ms
        self.results = []  # (step, passed, hint)

    def _ask(self, *lines):
        self.board.show_text(["Self-test"] + list(lines))
        _fill(self.board, _AMBER)

    def _done(self, step, passed, hint=""):
        self.results.append((step, passed, hint))

    async def _heard(self, step, kinds, hint):
        # The next input of `kinds`; when none comes within step_ms, `step` fails with
        # `hint` and this is None.
        event = await _next(self.board, self.step_ms, kinds)
        if event is None:
            self._done(step, False, hint)
        return event

    async def _confirmed(self):
        # Confirm answers yes; Back, or nothing within step_ms, no.
        event = await _next(self.board, self.step_ms, ("button",))
        return event is not None and event["button"] == "confirm"

    async def display(self):
        self.board.show_text(list(_PATTERN))
        _fill(self.board, _AMBER)
        yes = await self._confirmed()
        self._done("display", yes, "" if yes else (
            "no clear 8 rows: check SDA and SCL (not swapped), 3.3 V, GND and address "
            "0x3C; the display is optional, the other steps go on"))

    async def button(self, name, label):
        self._ask("Press " + label)
        event = await self._heard(name, ("button",), "no press: check the switch between "
                                  "its GPIO and GND (seat-pinout.json), and which two "
                                  "terminals are wired")
        if event is None:
            return
        if event["button"] != name:
            self._done(name, False, "got %s: the two switches' wires are swapped"
                       % event["button"])
        else:
            self._done(name, True)

    async def encoder(self, way, sign):
        self._ask("Turn the knob", "%d clicks %s" % (_TURNS, way))
        total = 0
        while -_TURNS < total < _TURNS:
            event = await _next(self.board, self.step_ms, ("encoder",))
            if event is None:
                break
            total += event["steps"]
        if total * sign >= _TURNS:
            self._done("encoder " + way, True)
        elif total * sign <= -_TURNS:
            self._done("encoder " + way, False, "counted the other way: swap the A and "
                       "B wires (or the pinout's a and b)")
        else:
            self._done("encoder " + way, False, "%d of %d clicks: check A, B and the "
                       "common pin to GND, and the rest state (hardware/README.md)"
                       % (abs(total), _TURNS))

    async def ring(self):
        for name, r, g, b in _COLOURS:
            self.board.show_text(["Self-test", "Are all %d LEDs" % self.board.ring_size,
                                  name + "?", "Confirm: yes", "Back: no"])
            _fill(self.board, (r, g, b))
            if not await self._confirmed():
                self._done("ring " + name, False, "dark: check 5 V at the ring, the "
                           "buffer's VCC and 1OE, the data wire; another colour: the "
                           "pinout's colour order; some LEDs only: the ring's count")
                return
        self._done("ring", True)

    async def card(self):
        if not getattr(self.board, "has_reader", True):
            self._done("card reader", False, "not found: check its 3.3 V, GND and the SPI "
                       "wires (SCK, MOSI, MISO, CS, RST in seat-pinout.json)")
            return
        self._ask("Tap a card")
        event = await self._heard("card reader", ("card",), "no tap read: hold a tagged "
                                  "card flat on the reader; check the SPI wires and the "
                                  "lid's thickness")
        if event is None:
            return
        self.board.show_text(["Self-test", "Card", event["uid"]])
        self._done("card reader", True)

    async def dice(self):
        kind = self.cfg.get("dice", "edice")
        if kind not in ("pixels", "godice"):
            # The seat's own dice roll with its Roll button (tested above) or the knob.
            self._done("dice", True)
            return
        self._ask("Roll a die")
        if await self._heard("dice", ("reading",), "no die heard: roll it to wake it, "
                             "charge it, and keep it within a metre of the seat"):
            self._done("dice", True)

    async def network(self):
        self._ask("Joining Wi-Fi")
        try:
            up = await asyncio.wait_for_ms(self.board.join_network(), self.step_ms)
        except asyncio.TimeoutError:
            up = False
        if not up:
            self._done("wifi", False, "not joined: check wifi_ssid and wifi_password in "
                       "the seat's config.json, and the 2.4 GHz band")
            return
        self._done("wifi", True)
        broker = self.cfg["broker"]
        host, port = broker["host"], broker.get("port", 1883)
        self._ask("Reaching the broker", "%s:%d" % (host, port))
        # A blocking connect with a timeout: asyncio's open_connection() reports a
        # refused connection as made. The other steps are over; nothing waits on it.
        import socket

        sock = socket.socket()
        try:
            sock.settimeout(5)
            sock.connect(socket.getaddrinfo(host, port)[0][-1])
        except OSError:
            sock.close()
            self._done("broker", False, "nothing listens at %s:%d: check --broker-host "
                       "(the hub's address as the seat reaches it) and that the broker "
                       "runs there" % (host, port))
            return
        self._done("broker", True)
        if "ca" in broker:
            self._tls(sock, broker["ca"], host, port)
        else:
            sock.close()

    def _tls(self, sock, ctx, host, port):
        # The handshake a TLS seat makes at every connect, timed (what TLS costs this
        # board), or the fault named from Mbed TLS's words.
        import time

        self._ask("TLS with the broker", host)
        start = time.ticks_ms()
        try:
            sock.settimeout(20)
            sock = ctx.wrap_socket(sock, server_hostname=host)
            self._done("tls", True, "handshake %d ms" % time.ticks_diff(time.ticks_ms(), start))
        except (OSError, ValueError) as exc:
            why = str(exc)
            if "CN" in why or "Common Name" in why:
                hint = ("the broker's certificate does not name %s: give --broker-host a name "
                        "broker config --tls printed, or add it with --tls-name" % host)
            elif "signed" in why or "CA" in why:
                hint = ("the broker's certificate is not from the CA in the config: give the "
                        "seat the ca.crt of this table's broker config --tls (--broker-ca)")
            else:
                hint = "no TLS at %s:%d (%s): is it the broker's TLS port?" % (host, port,
                                                                              why.strip())
            self._done("tls", False, hint)
        finally:
            sock.close()

    async def walk(self):
        board = self.board
        await self.display()
        await self.button("confirm", "Confirm")
        await self.button("back", "Back")
        if board.has_roll_button:
            await self.button("roll", "Roll")
        await self.button("encoder", "the knob")
        await self.encoder("right", 1)
        await self.encoder("left", -1)
        await self.ring()
        await self.card()
        await self.dice()
        await self.network()
        passed = sum(1 for _, ok, _ in self.results if ok)
        failed = [step for step, ok, _ in self.results if not ok]
        # The log (USB serial on a seat) ends with every step's result, together.
        for step, ok, hint in self.results:
            log("selftest:", step, ("ok (" + hint + ")" if hint else "ok") if ok
                else "FAILED: " + hint)
        log("selftest: %d of %d passed" % (passed, len(self.results)))
        board.show_text(["Self-test done", "%d of %d passed" % (passed, len(self.results))]
                        + failed[:6])
        _fill(board, (0, _LEVEL, 0) if not failed else (_LEVEL, 0, 0))
        return not failed


def on_board(board, cfg, config_path):
    # Runs the self-test on a board made for it; whether every step passed. The start it
    # was is not a failed one (board/__init__.py counts them): its count goes.
    async def run():
        task = asyncio.create_task(board.run())
        ok = await SelfTest(board, cfg, cfg.get("selftest_step_ms", _STEP_MS)).walk()
        task.cancel()
        return ok

    ok = asyncio.run(run())
    import os

    try:
        os.remove(config_path + ".starts")
    except OSError:
        pass
    return ok


def main(config_path="config.json"):
    # The self-test on the configured board, from the REPL or `risktable seat selftest`;
    # the exit status (unix port) or the display (a seat) says how it went.
    import sys

    from board import make
    from seat import config

    cfg = config.load(config_path)
    board = make(cfg, config_path)
    if board is None:  # the safe mode (seat/safe.py) said why
        return
    ok = on_board(board, cfg, config_path)
    if sys.platform == "linux":
        sys.exit(0 if ok else 1)
