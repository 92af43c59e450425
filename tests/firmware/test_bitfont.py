"""The seat font drawn by the firmware (drivers/bitfont.py through drivers/ssd1306.py and
board/oled.py) under the MicroPython unix port: each glyph lands as the font's bitmap,
right-to-left rows are right-aligned, long texts are paged and never cut, and the font
costs the heap little (it stays in its file)."""

from __future__ import annotations

import io
import json
import os
import subprocess
from pathlib import Path

import pytest

from riskproto import messages, topics
from risktable.i18n.font import FONT_PATH, Face, Font, build_font
from risktable.i18n.layout import visual as shape
from risktable.provision.seat_build import build
from tests.firmware.hub import AckingHub
from tests.firmware.seats import SeatProcess, write_config
from tests.support.mosquitto import Mosquitto
from tests.support.oled_pixels import (
    GLASS,
    HEIGHT,
    INK,
    SCALE,
    WIDTH,
    ascii_art,
    display_ram,
    lit,
    mpy_path,
    png,
    render,
)

PERSIAN = ["نوبت شما است", "۳ سرباز در ایران", "حمله کنید؟ (تأیید)", "اروپا، آسیا: ۱۲",
           "سطر پنجم", "سطر ششم"]
LATIN = set("çéşğıİãÇ")


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Font]:
    rtl = {ch for text in PERSIAN for ch in shape(text)}
    path = tmp_path_factory.mktemp("font") / "font.bin"
    path.write_bytes(build_font(LATIN, rtl))
    return path, Font.load(path)


def expected_rtl(face: Face, rows: list[str]) -> list[str]:
    # The page as the font's bitmaps say it must look: each row's glyphs left to right
    # from the column that puts its right edge at the display's.
    grid = [["."] * WIDTH for _ in range(HEIGHT)]
    for i, row in enumerate(rows):
        x = WIDTH - face.width(row)
        for ch in row:
            glyph = face.glyph(ch)
            for gy in range(glyph.height):
                for gx in range(glyph.stride * 8):
                    if glyph.pixel(gx, gy) and 0 <= x + gx < WIDTH:
                        grid[i * face.height + gy][x + gx] = "#"
            x += glyph.advance
    return ["".join(r) for r in grid]


def test_a_latin_glyph_is_drawn_as_the_fonts_bitmap_in_its_cell(
    micropython: str, sample: tuple[Path, Font]
) -> None:
    path, font = sample
    face = font.face("latin")
    (ram,) = display_ram(["açéxğ İ"], font=path, micropython=micropython)
    for column, ch in enumerate("açéxğ İ"):
        if not face.has(ch):
            continue
        glyph = face.glyph(ch)
        cell = [[lit(ram, column * 8 + x, y) for x in range(8)] for y in range(8)]
        assert cell == [[glyph.pixel(x, y) for x in range(8)] for y in range(8)], ch
    # ASCII stays framebuf's: the 'a' and the 'x' are inked in their own cells.
    assert any(lit(ram, x, y) for x in range(8) for y in range(8))
    assert any(lit(ram, 24 + x, y) for x in range(8) for y in range(8))


def test_a_character_the_font_lacks_is_a_question_mark_in_its_cell(
    micropython: str, sample: tuple[Path, Font]
) -> None:
    path, _ = sample
    (lacking,) = display_ram(["a\u00f1b"], font=path, micropython=micropython)  # ñ
    (asked,) = display_ram(["a?b"], font=path, micropython=micropython)
    assert lacking == asked


def test_rtl_rows_are_right_aligned_glyph_for_glyph(
    micropython: str, sample: tuple[Path, Font]
) -> None:
    path, font = sample
    rows = [shape(text) for text in PERSIAN[:4]]
    (ram,) = display_ram(rows, rtl=True, font=path, micropython=micropython)
    picture = ascii_art(ram)
    assert picture == expected_rtl(font.face("rtl"), rows), "\n".join(picture)
    # Every row reaches the right edge (within the last glyph's side bearing).
    for i in range(4):
        band = picture[i * 16:(i + 1) * 16]
        assert max(r.rfind("#") for r in band) >= WIDTH - 3


def test_more_than_four_rtl_rows_are_paged(
    micropython: str, sample: tuple[Path, Font]
) -> None:
    path, font = sample
    rows = [shape(text) for text in PERSIAN]
    pages = display_ram(rows, rtl=True, font=path, micropython=micropython)
    assert len(pages) == 2
    assert ascii_art(pages[1]) == expected_rtl(font.face("rtl"), rows[4:])
    assert png(pages[1])[:4] == b"\x89PNG"


def test_more_than_eight_rows_are_paged_never_cut(micropython: str) -> None:
    lines = [f"line {n}" for n in range(10)]
    pages = display_ram(lines, micropython=micropython)
    assert len(pages) == 2
    first, second = (display_ram(part, micropython=micropython)[0]
                     for part in (lines[:8], lines[8:]))
    assert pages == [first, second]
    # What fits one page is one page, as before.
    assert len(display_ram(["Armies to place", "7", "Confirm: place"],
                           micropython=micropython)) == 1


def test_the_seat_finds_every_glyph_of_the_committed_font(micropython: str) -> None:
    # The firmware's binary search against the hub's reader, over every glyph and a
    # character between each two (absent: no width in the latin face, which has no
    # "?", and the width of "?" in the rtl face), in both faces.
    font = Font.load(FONT_PATH)
    probe = {name: sorted(face.glyphs) for name, face in font.faces.items()}
    absent = {name: [chr(ord(ch) + 1) for ch in chars if chr(ord(ch) + 1) not in chars]
              for name, chars in probe.items()}
    script = f"""
import json
from drivers import bitfont
faces = dict(zip(("latin", "rtl"), bitfont.load()))
probe = json.loads({json.dumps(json.dumps(probe))})
absent = json.loads({json.dumps(json.dumps(absent))})
for name in ("latin", "rtl"):
    face = faces[name]
    print(json.dumps([name, [face.width(c) for c in probe[name]],
                      [face.width(c) for c in absent[name]]]))
"""
    env = dict(os.environ, MICROPYPATH=f".frozen:{FONT_PATH.parents[1]}")
    done = subprocess.run([micropython, "-c", script], capture_output=True, text=True,
                          env=env, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [name for name, _, _ in lines] == ["latin", "rtl"]
    for name, widths, missing in lines:
        face = font.face(name)
        assert widths == [face.glyph(ch).advance for ch in probe[name]], name
        unknown = face.glyph("?").advance if face.has("?") else 0
        assert missing == [unknown] * len(absent[name]), name


HEAP_SCRIPT = """
import gc, json
from drivers.ssd1306 import SSD1306
from board.oled import Screen
class Bus:  # a bus that keeps nothing (the fake controller records every command)
    def writeto(self, addr, buf):
        pass
    def writevto(self, addr, bufs):
        pass
screen = Screen(SSD1306(Bus()))
screen.text(["Armies to place", "7"])
rows = ROWS
before = loaded = drawn = 0  # the globals' room made before measuring
gc.collect()
before = gc.mem_alloc()
screen.display.faces()
gc.collect()
loaded = gc.mem_alloc()
for page in range(6):
    screen.text(rows, True, page)
    screen.text(["A\u00e7\u00e3o"], False, 0)
gc.collect()
drawn = gc.mem_alloc()
print(json.dumps([loaded - before, drawn - loaded]))
"""


def test_the_font_in_use_costs_the_heap_little(micropython: str, tmp_path: Path) -> None:
    # The compiled seat (as deployed): what the font keeps in the heap once loaded is
    # its module and its two faces with their buffers (2.7 KiB on the 64-bit unix
    # port); drawing Persian pages and accented lines keeps nothing more (but what
    # the conservative collector may still see on the C stack).
    out = build(tmp_path / "build").out
    rows = [shape(text) for text in ("فارسی",) * 6]
    env = dict(os.environ, MICROPYPATH=f".frozen:{out}")
    script = HEAP_SCRIPT.replace("ROWS", json.dumps(rows))
    done = subprocess.run([micropython, "-X", "heapsize=66K", "-c", script],
                          capture_output=True, text=True, env=env, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    loaded, drawn = json.loads(done.stdout)
    print(f"heap held by the font: {loaded} bytes; after drawing: {drawn} more")
    assert loaded <= 3072
    assert drawn <= 256  # a leak of one block a draw would be 768


def test_screens_render_to_pngs_of_the_oleds_pixels(
    micropython: str, sample: tuple[Path, Font]
) -> None:
    from PIL import Image

    path, _ = sample
    english = render(["Armies to place", "7"], micropython=micropython)
    persian = render([shape(PERSIAN[0])], rtl=True, font=path, micropython=micropython)
    for pages, ram in ((english, display_ram(["Armies to place", "7"],
                                             micropython=micropython)[0]),
                       (persian, display_ram([shape(PERSIAN[0])], rtl=True, font=path,
                                             micropython=micropython)[0])):
        assert len(pages) == 1
        image = Image.open(io.BytesIO(pages[0])).convert("RGB")
        assert image.size == (WIDTH * SCALE, HEIGHT * SCALE)
        for y in range(HEIGHT):
            for x in range(WIDTH):
                want = INK if lit(ram, x, y) else GLASS
                assert image.getpixel((x * SCALE + 1, y * SCALE + 2)) == want, (x, y)
    # The Persian row ends at the right edge.
    assert max(r.rfind("#") for r in ascii_art(display_ram(
        [shape(PERSIAN[0])], rtl=True, font=path, micropython=micropython)[0])) >= WIDTH - 3


def test_a_persian_refusal_is_shown_as_its_rtl_rows_then_the_view(
    micropython: str, mosquitto: Mosquitto, tmp_path: Path
) -> None:
    # The hub's detail for a Persian seat: display rows joined by newlines
    # (risktable.i18n.seat_view.detail_for); a one-row detail has no newline.
    table = "fw-fa-refusal"
    hub = AckingHub(mosquitto.host, mosquitto.port, table)
    seat = SeatProcess(micropython, write_config(tmp_path, table, 1, mosquitto.port))
    try:
        seat.wait_output(lambda line: line.get("net") == "up", timeout=20)
        view = messages.message("view", seat=1, colour=[0, 255, 16], name="x",
                                lines=["Your move"])
        hub.publish(1, topics.SEAT_VIEW, view)
        seat.wait_output(lambda line: line.get("oled") == ["Your move"])
        rows = [shape("نوبت شما نیست"), shape("صبر کنید")]
        for detail in ("\n".join(rows), rows[0]):
            hub.publish(1, topics.SEAT_ERROR, messages.message(
                "error", code="not_allowed", detail=detail))
            want = {"oled": detail.split("\n"), "rtl": True}
            seat.wait_output(want.__eq__, timeout=10)
            hub.publish(1, topics.SEAT_VIEW, view)  # the next view ends the reason
            seat.wait_output(lambda line: line == {"oled": ["Your move"]})
    finally:
        seat.stop()
        hub.close()


def test_without_the_font_file_the_seat_draws_question_marks(
    micropython: str, tmp_path: Path
) -> None:
    missing = tmp_path / "none.bin"
    (lacking,) = display_ram(["a\u00e7b"], font=missing, micropython=micropython)
    (asked,) = display_ram(["a?b"], font=missing, micropython=micropython)
    assert lacking == asked
    (blank,) = display_ram([shape("فارسی")], rtl=True, font=missing, micropython=micropython)
    assert not any(blank)


_DICE = """
import json, sys
from fakeoled import FakeOledBus
from drivers.ssd1306 import SSD1306
from drivers import bitfont
from board.oled import Screen
bus = FakeOledBus()
oled = SSD1306(bus)
oled.init()
oled._faces = bitfont.load(sys.argv[1])
title, faces, rtl = json.loads(sys.stdin.read())
Screen(oled).dice(title, faces, rtl)
print(bytes(bus.ram).hex())
"""


def test_a_persian_dice_title_is_a_right_aligned_rtl_row_above_the_dice(
    micropython: str, sample: tuple[Path, Font]
) -> None:
    # The ESP32 board's dice screen (seat/dice.py's title from texts.bin): the title in
    # the rtl face on the first 16 rows, as the font's bitmaps say, the dice below.
    path, font = sample
    title = shape(PERSIAN[0])
    done = subprocess.run([micropython, "-c", _DICE, str(path)],
                          input=json.dumps([title, [6, 1], True]), capture_output=True,
                          text=True, env=dict(os.environ, MICROPYPATH=mpy_path()), timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr
    picture = ascii_art(bytes.fromhex(done.stdout.strip()))
    assert picture[:16] == expected_rtl(font.face("rtl"), [title])[:16], "\n".join(picture)
    assert any("#" in row for row in picture[18:]), "no dice under the title"
