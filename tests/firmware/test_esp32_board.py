"""The ESP32 seat board (board/esp32.py) built under the unix port with stand-ins for
``machine``, ``neopixel`` and ``network`` (tests/firmware/mp/esp32/): the display is
drawn through board/oled.py on a fake SSD1306 controller, the ring is capped by the
pinout's power budget, the pinout decides whether there is a Roll button, joining WiFi
feeds the watchdog, the safe mode is drawn, and a display that does not answer is left
out."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path
from typing import Any

from risktable.i18n.layout import visual as shape
from tests.support.tools import ROOT

MP = ROOT / "tests" / "firmware"
PATH = ":".join(
    str(p) for p in (ROOT / "firmware", ROOT / "protocol", MP / "mp" / "esp32",
                     MP / "drivers" / "mpy")
) + ":.frozen"

PRELUDE = """
import sys, json
sys.path.append(".frozen")
import machine, neopixel
from seat import config
from board import esp32
from board.oled import Screen
from drivers.ssd1306 import SSD1306
from fakeoled import FakeOledBus

cfg = config.parse(json.dumps({"table": "t", "seat": 1, "board": "esp32",
                               "broker": {"host": "10.0.0.1"}}))
"""


def run(micropython: str, tmp_path: Path, pinout: dict[str, Any], body: str) -> list[Any]:
    (tmp_path / "seat-pinout.json").write_text(json.dumps(pinout))
    script = tmp_path / "script.py"
    script.write_text(PRELUDE + f"board = esp32.Board(cfg, {str(tmp_path / 'c.json')!r})\n"
                      + textwrap.dedent(body))
    done = subprocess.run(
        [micropython, str(script)], env={"MICROPYPATH": PATH}, capture_output=True,
        text=True, timeout=60, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def shipped_pinout() -> dict[str, Any]:
    pinout: dict[str, Any] = json.loads((ROOT / "hardware" / "seat-pinout.json").read_text())
    return pinout


def test_display_shows_text_and_dice_and_redraws_only_on_change(
    micropython: str, tmp_path: Path
) -> None:
    out = run(
        micropython, tmp_path, shipped_pinout(),
        """
        bus = machine.made["i2c"]
        ref_bus = FakeOledBus()
        ref = SSD1306(ref_bus)
        ref.init()
        screen = Screen(ref)
        board.show_text(["Armies to place", "7"])
        screen.text(["Armies to place", "7"])
        same_text = bytes(bus.ram) == bytes(ref_bus.ram) and sum(bus.ram) > 0
        writes = bus.writes
        board.show_text(["Armies to place", "7"])
        unchanged = bus.writes == writes
        board.show_dice("Rolled", bytearray([2, 5]))
        screen.dice("Rolled", bytearray([2, 5]))
        same_dice = bytes(bus.ram) == bytes(ref_bus.ram)
        board.show_text(["Armies to place", "7"])  # back from dice: drawn again
        print(json.dumps([bus.on, same_text, unchanged, same_dice, bus.writes > writes + 3]))
        """,
    )
    assert out == [[True, True, True, True, True]]


def test_display_pages_right_to_left_rows_and_redraws_on_a_new_page(
    micropython: str, tmp_path: Path
) -> None:
    # Six display rows of a Persian view: two pages of four 16 px rows from the
    # committed font; the board tells the seat the count and draws again only when the
    # page (or the text) changes.
    rows = json.dumps([shape("فارسی")] * 5 + [shape("فارسی فارسی")])
    out = run(
        micropython, tmp_path, shipped_pinout(),
        f"""
        bus = machine.made["i2c"]
        rows = {rows}
        pages = board.show_text(rows, True, 0)
        first = bytes(bus.ram)
        writes = bus.writes
        again = board.show_text(rows, True, 0)
        unchanged = bus.writes == writes
        board.show_text(rows, True, 1)
        second = bytes(bus.ram)
        board.show_text(rows, True, 2)  # page 3 of 2: the first again
        print(json.dumps([pages, again, unchanged, first != second, bytes(bus.ram) == first,
                          sum(first) > 0, sum(second) > 0]))
        """,
    )
    assert out == [[2, 2, True, True, True, True, True]]


def test_ring_is_capped_and_the_roll_button_comes_from_the_pinout(
    micropython: str, tmp_path: Path
) -> None:
    pinout = shipped_pinout()
    body = """
        pixels = bytearray(3 * board.ring_size)
        for i in range(len(pixels)):
            pixels[i] = 255
        board.show_ring(pixels)
        np = neopixel.made[0]
        print(json.dumps([board.ring_size, np.pixels[0], np.writes, board.has_roll_button,
                          board.wifi_up]))
        """
    (with_roll,) = run(micropython, tmp_path, pinout, body)
    settings = pinout["devices"]["led_ring"]["settings"]
    level = int(settings["max_level"] * 255)
    assert with_roll == [settings["count"], [level] * 3, 1, True, False]
    del pinout["devices"]["roll_button"]
    (without,) = run(micropython, tmp_path, pinout, body)
    assert without[3] is False


def test_the_encoder_is_counted_by_the_pulse_counter_else_by_pin_interrupts(
    micropython: str, tmp_path: Path
) -> None:
    # The pulse counter (machine.Encoder, PCNT unit 0) counts every edge of the pinout's
    # encoder pins (4x: four counts a detent, as the pinout's steps_per_detent says);
    # without one (an older MicroPython) pin interrupts decode the same knob, resting
    # where its contacts are open: 11 with the pinout's pull-ups.
    body = f"""
        from drivers.encoder import Encoder
        unit = machine.made["encoder"]
        unit.value(4)
        first = board._encoder.take()
        unit.value(12)
        more = board._encoder.take()
        del machine.Encoder
        fallback = esp32.Board(cfg, {str(tmp_path / "c.json")!r})._encoder
        print(json.dumps([unit.unit, list(unit.pins), unit.phases, unit.filter_ns > 0, first,
                          more, isinstance(fallback, Encoder), fallback._decoder._rest]))
        """
    pinout = shipped_pinout()
    pins = pinout["devices"]["encoder"]["pins"]
    (out,) = run(micropython, tmp_path, pinout, body)
    assert out == [0, [pins["a"], pins["b"]], 4, True, 1, 2, True, 0b11]


def test_a_missing_card_reader_is_said_once_and_never_polled(
    micropython: str, tmp_path: Path
) -> None:
    # The SPI stand-in answers zeros: no chip on the bus. The board runs on without the
    # card task, its gain is the pinout's.
    body = """
        import asyncio

        async def main():
            try:
                await asyncio.wait_for_ms(board.run(), 300)
            except asyncio.TimeoutError:
                pass
            return [board.has_reader, len(board._tasks), board._rx_gain_db]

        print(json.dumps(asyncio.run(main())))
        """
    pinout = shipped_pinout()
    (out,) = run(micropython, tmp_path, pinout, body)
    buttons = sum(1 for name in ("confirm_button", "back_button", "roll_button", "encoder")
                  if name in pinout["devices"])
    # Wi-Fi, encoder, buzzer and each button: no card task.
    assert out == [False, 3 + buttons, pinout["devices"]["nfc_reader"]["settings"]["rx_gain_db"]]


def test_confirm_held_at_power_on_runs_the_self_test_instead_of_the_game(
    micropython: str, tmp_path: Path
) -> None:
    # The Confirm button's pin reads 0 (pressed: its pull-up pulled down) as the board is
    # made: the self-test walks every step (none answered here, each on a short clock),
    # says how it went on the display, and leaves to the REPL.
    pinout = shipped_pinout()
    confirm = pinout["devices"]["confirm_button"]["pins"]["input"]
    body = f"""
        made = machine.Pin.__init__

        def held(self, number, mode=-1, pull=-1):
            made(self, number, mode, pull)
            if number == {confirm}:
                self._level = 0

        machine.Pin.__init__ = held
        from seat import selftest

        walked = []
        real = selftest.on_board

        def spy(board, cfg, path):
            walked.append(real(board, cfg, path))
            return walked[-1]

        selftest.on_board = spy
        quick = config.parse(json.dumps({{"table": "t", "seat": 1, "board": "esp32",
                                          "broker": {{"host": "127.0.0.1", "port": 1}},
                                          "selftest_step_ms": 100}}))
        from board import make

        made = make(quick, {str(tmp_path / "c.json")!r})
        print(json.dumps(["the game" if made is not None else "the REPL", walked]))
        """
    # Every step unanswered: the walk ends failed, and no board is made for a game (the
    # seat goes back to the REPL, as from the safe mode).
    assert run(micropython, tmp_path, pinout, body) == [["the REPL", [False]]]


def test_reset_cause_watchdog_and_reset_on_the_esp32_board(
    micropython: str, tmp_path: Path
) -> None:
    # machine.reset_cause() names the boot's cause (the stand-in says WDT_RESET); a cause
    # the seat kept before resetting itself comes first, once.
    body = f"""
        from board import make

        wdt = board.watchdog()
        wdt.feed()
        path = {str(tmp_path / "c.json")!r}
        board.reset("error")
        again = make(cfg, path)
        after = make(cfg, path)
        print(json.dumps([board.reset_cause, wdt.timeout, wdt.feeds, machine.made["reset"],
                          again.reset_cause, after.reset_cause]))
        """
    (out,) = run(micropython, tmp_path, shipped_pinout(), body)
    assert out == ["watchdog", 8000, 1, True, "error", "watchdog"]


def test_a_board_task_that_ends_ends_the_board_for_the_seat_to_reset(
    micropython: str, tmp_path: Path
) -> None:
    # The card reader's task raises (a driver failure): the board's run() returns, which
    # the seat's supervisor (seat/app.py) answers with a reset.
    body = """
        import asyncio

        async def broken():
            raise OSError("SPI")

        board._cards = broken
        board._reader.init = lambda gain: 0x92  # the SPI stand-in only exchanges bytes

        async def main():
            try:
                await asyncio.wait_for_ms(board.run(), 5000)
                return "ended"
            except asyncio.TimeoutError:
                return "still running"

        print(json.dumps(asyncio.run(main())))
        """
    assert run(micropython, tmp_path, shipped_pinout(), body) == ["ended"]


def test_joining_wifi_feeds_the_watchdog_and_the_safe_mode_is_drawn(
    micropython: str, tmp_path: Path
) -> None:
    # The watchdog is armed before the network: a join that waits for a WiFi that never
    # answers feeds it at every look (the stand-in WLAN never joins), so only a connect
    # that blocks lets it reset the seat. The safe mode draws its lines on the display
    # (as Screen draws them) and returns, leaving the board at the REPL.
    body = """
        import asyncio
        from seat import safe

        wdt = board.watchdog()

        async def main():
            try:
                await asyncio.wait_for_ms(board.join_network(wdt), 1000)
            except asyncio.TimeoutError:
                pass

        asyncio.run(main())
        feeds = wdt.feeds
        returned = safe.enter(PATH, cfg, "bad config")
        bus = machine.made["i2c"]
        ref_bus = FakeOledBus()
        ref = SSD1306(ref_bus)
        ref.init()
        Screen(ref).text(["safe mode", "bad config", "mpremote: fix", "then reset"])
        print(json.dumps([feeds >= 5, returned, bytes(bus.ram) == bytes(ref_bus.ram)]))
        """.replace("PATH", repr(str(tmp_path / "c.json")))
    assert run(micropython, tmp_path, shipped_pinout(), body) == [[True, None, True]]


def test_a_display_that_does_not_answer_leaves_the_seat_running(
    micropython: str, tmp_path: Path
) -> None:
    # MicroPython's machine.I2C raises OSError ENODEV (errno 19) when no device
    # acknowledges its address: the optional display unplugged. The board is built
    # without it (it used to raise at start-up, and the seat reset forever).
    body = """
        class Absent:
            def writeto(self, addr, buf, stop=True):
                raise OSError(19)

            def writevto(self, addr, vector, stop=True):
                raise OSError(19)

        machine.I2C = lambda *args, **kwargs: Absent()
        bare = esp32.Board(cfg, PATH)
        print(json.dumps([bare._screen is None, bare.show_text(["Armies to place"])]))
        """.replace("PATH", repr(str(tmp_path / "c.json")))
    assert run(micropython, tmp_path, shipped_pinout(), body) == [[True, 1]]
