"""SSD1306 driver against a fake I2C controller that keeps its own display RAM."""

from __future__ import annotations

from typing import Any

from tests.firmware.drivers.conftest import RunMpy

PRELUDE = """
import json, framebuf
from fakeoled import FakeOledBus
from drivers.ssd1306 import SSD1306, wrap
"""


def run(run_mpy: RunMpy, body: str) -> list[Any]:
    return run_mpy(PRELUDE + body)


def test_init_configures_and_clears_the_panel(run_mpy: RunMpy) -> None:
    out = run(
        run_mpy,
        """
for h in (64, 32):
    bus = FakeOledBus(pages=h // 8)
    for i in range(len(bus.ram)):
        bus.ram[i] = 0xFF  # whatever was on the glass before
    oled = SSD1306(bus, 128, h)
    oled.init()
    cmds = {c[0]: c[1:] for c in bus.commands}
    print(json.dumps([bus.on, bus.mode, cmds[0xA8], cmds[0xDA], cmds[0x8D], sum(bus.ram)]))
""",
    )
    assert out[0] == [True, 0, [63], [0x12], [0x14], 0]
    assert out[1] == [True, 0, [31], [0x02], [0x14], 0]


def test_show_puts_the_frame_buffer_on_the_glass(run_mpy: RunMpy) -> None:
    out = run(
        run_mpy,
        """
bus = FakeOledBus()
oled = SSD1306(bus)
oled.init()
oled.fb.pixel(0, 0, 1)
oled.fb.pixel(127, 63, 1)
oled.fb.pixel(5, 10, 1)
oled.fb.hline(20, 40, 30, 1)
writes = bus.writes
oled.show()
lit = [bus.lit(0, 0), bus.lit(127, 63), bus.lit(5, 10), bus.lit(6, 10), bus.lit(20, 40),
       bus.lit(49, 40), bus.lit(50, 40)]
print(json.dumps([lit, bytes(bus.ram) == bytes(oled.buf), bus.writes - writes]))
""",
    )
    lit, same, writes = out[0]
    assert lit == [1, 1, 1, 0, 1, 1, 0]
    assert same is True
    assert writes == 3  # column window, page window, one data write


def test_wrap_breaks_at_words_and_cuts_long_ones(run_mpy: RunMpy) -> None:
    out = run(
        run_mpy,
        """
print(json.dumps(wrap("Move 3 armies into Ukraine from Ural", 16)))
print(json.dumps(wrap("Afghanistan-Middle-East-India", 16)))
print(json.dumps(wrap("  a   b  ", 16)))
print(json.dumps(wrap("", 16)))
""",
    )
    assert out[0] == ["Move 3 armies", "into Ukraine", "from Ural"]
    assert out[1] == ["Afghanistan-Midd", "le-East-India"]
    assert out[2] == ["a b"]
    assert out[3] == []


def test_prompt_draws_lines_of_the_built_in_font(run_mpy: RunMpy) -> None:
    out = run(
        run_mpy,
        """
bus = FakeOledBus()
oled = SSD1306(bus)
oled.init()
y = oled.prompt("Attack Kamchatka with 3 dice?")
oled.show()
ref = bytearray(128 * 8)
fb = framebuf.FrameBuffer(ref, 128, 64, framebuf.MONO_VLSB)
fb.text("Attack Kamchatka", 0, 0, 1)
fb.text("with 3 dice?", 0, 8, 1)
print(json.dumps([y, bytes(bus.ram) == bytes(ref), sum(bus.ram[128 * 2:])]))
""",
    )
    assert out[0] == [16, True, 0]


def test_big_number_is_the_font_scaled_up(run_mpy: RunMpy) -> None:
    out = run(
        run_mpy,
        """
bus = FakeOledBus()
oled = SSD1306(bus)
oled.init()
oled.number(12, "armies left")
oled.show()
top = sum(bus.lit(x, y) for x in range(128) for y in range(32))
label = sum(bus.lit(x, y) for x in range(128) for y in range(56, 64))
ref = framebuf.FrameBuffer(bytearray(16 * 8), 16, 8, framebuf.MONO_VLSB)
ref.text("12", 0, 0, 1)
glyph = sum(ref.pixel(x, y) for x in range(16) for y in range(8))
print(json.dumps([top, glyph, label > 0]))
""",
    )
    top, glyph, label = out[0]
    assert top == glyph * 16  # scale 4: each font pixel becomes a 4x4 block
    assert label is True


def test_dice_faces_show_the_right_number_of_pips(run_mpy: RunMpy) -> None:
    out = run(
        run_mpy,
        """
bus = FakeOledBus()
oled = SSD1306(bus)
oled.init()
faces = [1, 6, 3]
oled.dice(faces)
oled.show()
# Dice are size 37 with gaps of 4, vertically centred; pips are 6x6 squares.
size, gap, top = 37, 4, 13
counts = []
for i in range(3):
    x = gap + i * (size + gap)
    inside = sum(bus.lit(px, py) for px in range(x + 2, x + size - 2)
                 for py in range(top + 2, top + size - 2))
    edge = bus.lit(x + size // 2, top) and bus.lit(x, top + size // 2)
    counts.append([inside, bool(edge)])
centre = bus.lit(gap + 18, top + 18)
print(json.dumps([counts, centre]))
""",
    )
    counts, centre = out[0]
    assert counts == [[36, True], [6 * 36, True], [3 * 36, True]]
    assert centre == 1


def test_unknown_face_shows_question_mark_and_controls_reach_panel(run_mpy: RunMpy) -> None:
    out = run(
        run_mpy,
        """
bus = FakeOledBus()
oled = SSD1306(bus)
oled.init()
oled.dice([0])
oled.show()
lit = sum(bus.ram)
oled.contrast(0x20)
oled.invert(True)
oled.power(False)
print(json.dumps([lit > 0, bus.contrast, bus.inverted, bus.on]))
try:
    SSD1306(FakeOledBus(addr=0x3D)).init()
except OSError:
    print(json.dumps("no ack"))
""",
    )
    assert out == [[True, 0x20, True, False], "no ack"]
