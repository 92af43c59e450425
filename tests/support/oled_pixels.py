"""The seat's display as pictures: the firmware's own display code
(``board/oled.py`` over ``drivers/ssd1306.py`` and ``drivers/bitfont.py``) run under
the MicroPython unix port, drawing into a fake SSD1306 controller
(``tests/firmware/drivers/mpy/fakeoled.py``) whose display RAM is read back page
by page and turned into PNGs, so a picture shows exactly the pixels the glass shows.

    >>> pngs = render(["Armies to place", "7"])  # doctest: +SKIP
    >>> len(pngs), pngs[0][:4]  # doctest: +SKIP
    (1, b'\\x89PNG')
"""

from __future__ import annotations

import io
import json
import os
import subprocess
from pathlib import Path

from tests.support.tools import ROOT, micropython_binary

WIDTH, HEIGHT = 128, 64
SCALE = 4
INK = (120, 200, 255)  # the blue-white of a small OLED's lit pixel
GLASS = (0, 0, 0)

_SCRIPT = """
import json, sys
from fakeoled import FakeOledBus
from drivers.ssd1306 import SSD1306
from drivers import bitfont
from board.oled import Screen
bus = FakeOledBus()
oled = SSD1306(bus)
oled.init()
oled._faces = bitfont.load(sys.argv[1] if len(sys.argv) > 1 else None)
screen = Screen(oled)
lines, rtl = json.loads(sys.stdin.read())
pages = screen.text(lines, rtl, 0)
for page in range(pages):
    screen.text(lines, rtl, page)
    print(json.dumps([pages, bytes(bus.ram).hex()]))
"""


def mpy_path() -> str:
    """MICROPYPATH for the firmware tree, its protocol and the fake controller."""
    parts = [".frozen", ROOT / "firmware", ROOT / "protocol",
             ROOT / "tests" / "firmware" / "drivers" / "mpy"]
    return ":".join(str(p) for p in parts)


def display_ram(lines: list[str], rtl: bool = False, font: Path | None = None,
                micropython: str | None = None) -> list[bytes]:
    """The controller's 1024 bytes of display RAM (MONO_VLSB pages) for each page the
    seat shows ``lines`` in (``rtl``: right-to-left display rows), with the
    committed seat font or ``font``."""
    binary = micropython or micropython_binary()
    env = dict(os.environ, MICROPYPATH=mpy_path())
    argv = [binary, "-c", _SCRIPT, *([str(font)] if font else [])]
    done = subprocess.run(argv, input=json.dumps([lines, rtl]), capture_output=True,
                          text=True, env=env, timeout=60, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"micropython exited {done.returncode}: {done.stderr}")
    return [bytes.fromhex(json.loads(line)[1]) for line in done.stdout.splitlines()]


def lit(ram: bytes, x: int, y: int) -> bool:
    """Whether the pixel at (x, y) is lit in a page of display RAM."""
    return bool(ram[(y // 8) * WIDTH + x] >> (y % 8) & 1)


def ascii_art(ram: bytes) -> list[str]:
    """The picture as rows of '#' (lit) and '.', for assertion messages."""
    return ["".join("#" if lit(ram, x, y) else "." for x in range(WIDTH))
            for y in range(HEIGHT)]


def png(ram: bytes, scale: int = SCALE) -> bytes:
    """One page of display RAM as a PNG, ``scale`` times larger, lit pixels OLED blue."""
    from PIL import Image

    image = Image.new("RGB", (WIDTH, HEIGHT), GLASS)
    for y in range(HEIGHT):
        for x in range(WIDTH):
            if lit(ram, x, y):
                image.putpixel((x, y), INK)
    image = image.resize((WIDTH * scale, HEIGHT * scale), Image.Resampling.NEAREST)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False)
    return out.getvalue()


def render(lines: list[str], rtl: bool = False, font: Path | None = None,
           micropython: str | None = None) -> list[bytes]:
    """A PNG for each page the seat shows ``lines`` in (see :func:`display_ram`)."""
    return [png(ram) for ram in display_ram(lines, rtl, font, micropython)]
