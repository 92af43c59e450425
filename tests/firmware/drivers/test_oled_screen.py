"""What the ESP32 board's display shows (board/oled.py over drivers/ssd1306.py), checked
on the glass of a fake I2C controller that keeps its own display RAM."""

from __future__ import annotations

from typing import Any

from tests.firmware.drivers.conftest import RunMpy

PRELUDE = """
import json, framebuf
from fakeoled import FakeOledBus
from drivers.ssd1306 import SSD1306
from board.oled import Screen
bus = FakeOledBus()
oled = SSD1306(bus)
oled.init()
screen = Screen(oled)

def text_pixels(s, scale=1):
    ref = framebuf.FrameBuffer(bytearray(8 * len(s)), 8 * len(s), 8, framebuf.MONO_VLSB)
    ref.text(s, 0, 0, 1)
    return sum(ref.pixel(x, y) for x in range(8 * len(s)) for y in range(8)) * scale * scale

def lit(x0, y0, x1, y1):
    return sum(bus.lit(x, y) for x in range(x0, x1) for y in range(y0, y1))
"""


def run(run_mpy: RunMpy, body: str) -> list[Any]:
    return run_mpy(PRELUDE + body)


def test_prompt_lines_wrap_and_a_digits_line_is_a_big_number(run_mpy: RunMpy) -> None:
    out = run(
        run_mpy,
        """
screen.text(["Place your armies now", "12"])
# 16 characters per row: wrapped to two rows; then the number at three times the
# font size from row 16, centred (the 48-pixel-wide "12" starts at column 40).
rows = [lit(0, 0, 128, 8), lit(0, 8, 128, 16)]
number = lit(0, 16, 128, 40)
print(json.dumps([rows[0] == text_pixels("Place your"), rows[1] == text_pixels("armies now"),
                  number == text_pixels("12", 3), lit(0, 40, 128, 64),
                  lit(0, 16, 40, 40) + lit(88, 16, 128, 40)]))
""",
    )
    assert out == [[True, True, True, 0, 0]]


def test_dice_show_under_their_title(run_mpy: RunMpy) -> None:
    out = run(
        run_mpy,
        """
screen.dice("Rolled", bytearray([6, 1]))
title = lit(0, 0, 128, 8) == text_pixels("Rolled")
# Two dice below the title: 54 pixels square, 6 pixels apart from the edges and each other.
size = 54
gap = (128 - 2 * size) // 3
top = 10
inside = []
for i in range(2):
    x = gap + i * (size + gap)
    inside.append(lit(x + 2, top + 2, x + size - 2, top + size - 2))
pip = max(2, size // 6) ** 2
print(json.dumps([title, inside[0] // pip, inside[1] // pip, lit(0, 8, 128, 10)]))
""",
    )
    assert out == [[True, 6, 1, 0]]


def test_a_new_screen_replaces_the_old_one(run_mpy: RunMpy) -> None:
    out = run(
        run_mpy,
        """
screen.dice("Die 1 of 3", [4])
screen.text(["ok"])
print(json.dumps([lit(0, 0, 128, 8) == text_pixels("ok"), lit(0, 8, 128, 64)]))
""",
    )
    assert out == [[True, 0]]
