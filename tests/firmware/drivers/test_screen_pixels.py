"""The screen catalogue shows what a seat really draws.

``docs/screens.md`` lays the screens out with the firmware's display code under
CPython, where a stand-in surface keeps each text run and big number instead of
pixels. Here every distinct screen of two autopiloted games (physical and
hub-dealt cards) and every refusal's reason is drawn by the firmware under the
MicroPython unix port into the display RAM of a fake controller, and compared
pixel for pixel with those runs drawn with MicroPython's own font alone.
"""

from __future__ import annotations

import json

from tests.firmware.drivers.conftest import RunMpy
from tests.support.oled_text import glass_runs, refusal_lines
from tests.support.preset_games import PresetGames
from tests.table.test_screen_catalogue import Catalogue, _game

SCRIPT = """
import json, framebuf
from fakeoled import FakeOledBus
from drivers.ssd1306 import SSD1306
from board.oled import Screen
bus = FakeOledBus()
oled = SSD1306(bus)
oled.init()
screen = Screen(oled)
ref = framebuf.FrameBuffer(bytearray(128 * 64 // 8), 128, 64, framebuf.MONO_VLSB)
glyph = framebuf.FrameBuffer(bytearray(8), 8, 8, framebuf.MONO_VLSB)
for lines, texts, bigs in json.loads(SCREENS):
    screen.text(lines)
    ref.fill(0)
    for y, x, s in texts:
        ref.text(s, x, y, 1)
    for y, x, s, k in bigs:  # a glyph blown up k times
        for ch in s:
            glyph.fill(0)
            glyph.text(ch, 0, 0, 1)
            for gy in range(8):
                for gx in range(8):
                    if glyph.pixel(gx, gy):
                        ref.fill_rect(x + gx * k, y + gy * k, k, k, 1)
            x += 8 * k
    lit = wrong = 0
    for y in range(64):
        for x in range(128):
            on = bus.lit(x, y)
            lit += on
            wrong += on != ref.pixel(x, y)
    print(json.dumps([lit, wrong]))
"""


def test_the_catalogues_layout_is_the_firmwares_pixels(run_mpy: RunMpy,
                                                       preset_games: PresetGames) -> None:
    catalogue = Catalogue()
    _game(preset_games("classic_1993"), catalogue)
    _game(preset_games("classic_1993", hub_cards=True), catalogue)  # hands, the trade menu
    screens = [lines for _, lines in catalogue.screens.values()]
    screens += [refusal_lines(error) for _, error in catalogue.refusals.values()]
    screens.append(["Armies left", "12"])  # a big number, as the count screens show it
    assert len(screens) > 40
    drawn = [[lines, *glass_runs(lines)] for lines in screens]
    out = run_mpy(f"SCREENS = {json.dumps(json.dumps(drawn))}\n" + SCRIPT)
    assert len(out) == len(screens)
    for lines, (lit, wrong) in zip(screens, out, strict=True):
        assert lit > 0 and wrong == 0, (lines, lit, wrong)
