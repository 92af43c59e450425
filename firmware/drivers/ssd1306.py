# SSD1306 OLED over I2C (128x64 or 128x32), drawn with framebuf.
#
# The whole picture lives in one preallocated buffer in the controller's own
# layout (MONO_VLSB: each byte is 8 vertical pixels of one column, a "page"), so
# show() is a window command plus a single data write, with no copy.
#
# Content helpers for the seat: a prompt of up to 8 lines of the built-in 8x8
# font with word wrapping, a big number scaled up from the same font, and up to
# three dice faces with pips. Characters outside ASCII come from the seat font's
# 8 px "latin" face in the same 8 px cells (so the wrap's columns hold), and
# right-to-left rows, shaped and ordered by the hub, from its 16 px "rtl" face
# (drivers/bitfont.py; the font file is opened at the first such character).
#
# I2C framing: every write starts with a control byte, 0x00 for a run of
# commands, 0x40 for display data.

import framebuf
from micropython import const

# The hub lays its lines out with the same wrap (risktable.i18n.layout).
from riskproto.wrap import wrap

TYPE_CHECKING = False
if TYPE_CHECKING:
    from machine import I2C

    from drivers.bitfont import Face

_SET_MEM_MODE = const(0x20)
_SET_COL_ADDR = const(0x21)
_SET_PAGE_ADDR = const(0x22)
_SET_CONTRAST = const(0x81)
_DISPLAY_OFF = const(0xAE)
_DISPLAY_ON = const(0xAF)
_NORMAL = const(0xA6)
_INVERT = const(0xA7)

_CTRL_CMD = const(0x00)
_CTRL_DATA = const(0x40)

# Power-up sequence after the control byte: off; horizontal addressing; start
# line 0; column 127 at segment 0 and COM scan reversed (the usual module
# mounting); clock; pre-charge; VCOMH; contrast; follow RAM; not inverted;
# charge pump on. Multiplex ratio and COM pin layout depend on the height.
_INIT_HEAD = bytes((_CTRL_CMD, _DISPLAY_OFF, _SET_MEM_MODE, 0x00, 0x40, 0xA1, 0xC8,
                    0xD3, 0x00, 0xD5, 0x80, 0xD9, 0xF1, 0xDB, 0x30, 0x81, 0xCF,
                    0xA4, 0xA6, 0x8D, 0x14))

# Pip positions on a 3x3 grid (row * 3 + column) for faces 1..6.
_PIPS = ((4,), (0, 8), (0, 4, 8), (0, 2, 6, 8), (0, 2, 4, 6, 8), (0, 2, 3, 5, 6, 8))

_FONT = const(8)
_RTL_ROWS = const(4)  # 16 px rows on a 64 px display


class SSD1306:
    def __init__(self, i2c: "I2C", width: int = 128, height: int = 64,
                 addr: int = 0x3C) -> None:
        self._i2c = i2c
        self.width = width
        self.height = height
        self.addr = addr
        self.pages = height // 8
        self.buf = bytearray(width * self.pages)
        self.fb = framebuf.FrameBuffer(self.buf, width, height, framebuf.MONO_VLSB)
        self._cmd = bytearray(4)
        self._cmd[0] = _CTRL_CMD
        self._data = bytes((_CTRL_DATA,))
        self._glyph_buf = bytearray(_FONT)
        self._glyph = framebuf.FrameBuffer(self._glyph_buf, _FONT, _FONT, framebuf.MONO_VLSB)
        # The font's (latin, rtl) faces, loaded when a line first needs them.
        self._faces: "tuple[Face | None, Face | None] | None" = None

    def faces(self) -> "tuple[Face | None, Face | None]":
        if self._faces is None:
            from drivers import bitfont

            self._faces = bitfont.load()
        return self._faces

    def _command(self, a: int, b: int = -1, c: int = -1) -> None:
        cmd = self._cmd
        cmd[1] = a
        n = 2
        if b >= 0:
            cmd[2] = b
            n = 3
        if c >= 0:
            cmd[3] = c
            n = 4
        self._i2c.writeto(self.addr, memoryview(cmd)[:n])

    def init(self) -> None:
        self._i2c.writeto(self.addr, _INIT_HEAD)
        self._command(0xA8, self.height - 1)
        self._command(0xDA, 0x12 if self.height == 64 else 0x02)
        self.fb.fill(0)
        self.show()
        self._command(_DISPLAY_ON)

    def power(self, on: bool) -> None:
        self._command(_DISPLAY_ON if on else _DISPLAY_OFF)

    def contrast(self, level: int) -> None:
        self._command(_SET_CONTRAST, level & 0xFF)

    def invert(self, on: bool) -> None:
        self._command(_INVERT if on else _NORMAL)

    def show(self) -> None:
        self._command(_SET_COL_ADDR, 0, self.width - 1)
        self._command(_SET_PAGE_ADDR, 0, self.pages - 1)
        self._i2c.writevto(self.addr, (self._data, self.buf))

    # --- content ---
    def clear(self) -> None:
        self.fb.fill(0)

    def prompt(self, text: str, top: int = 0) -> int:
        # Word-wrapped text from row `top` (in pixels); returns the next free row.
        y = top
        for line in wrap(text, self.width // _FONT):
            y = self._line(line, y)
        return y

    def rows(self, text: str) -> "list[str]":
        # The text word-wrapped to the display's columns of the 8x8 font.
        return wrap(text, self.width // _FONT)

    def _line(self, s: str, y: int) -> int:
        if y + _FONT <= self.height:
            self.line(s, y)
        return y + _FONT

    def line(self, s: str, y: int) -> None:
        # One row of 8 px cells from column 0. framebuf's text() would draw each byte
        # of a character's UTF-8 as a box: such a character is the latin face's glyph
        # (or "?" when the font has none) in its cell.
        fb = self.fb
        for ch in s:
            if ord(ch) > 126:
                break
        else:
            fb.text(s, 0, y, 1)
            return
        face = self.faces()[0]
        x = 0
        for ch in s:
            if ord(ch) <= 126:
                fb.text(ch, x, y, 1)
            elif face is None or not face.draw(fb, ch, x, y):
                fb.text("?", x, y, 1)
            x += _FONT

    def rtl(self, rows: "list[str]", page: int) -> int:
        # Right-to-left display rows as the hub sent them (visual order), four to a
        # page, each right-aligned; draws page `page` (modulo their count) and returns
        # the count of pages.
        pages = (len(rows) + _RTL_ROWS - 1) // _RTL_ROWS or 1
        face = self.faces()[1]
        if face is None:
            return pages
        fb = self.fb
        first = page % pages * _RTL_ROWS
        y = 0
        for row in rows[first:first + _RTL_ROWS]:
            x = self.width - face.width(row)
            for ch in row:
                x += face.draw(fb, ch, x, y)
            y += face.height
        return pages

    def big_text(self, s: str, x: int, y: int, scale: int = 3) -> int:
        # The 8x8 font blown up `scale` times; returns the x after the last glyph.
        g = self._glyph
        fb = self.fb
        for ch in s:
            g.fill(0)
            g.text(ch, 0, 0, 1)
            for gy in range(_FONT):
                for gx in range(_FONT):
                    if g.pixel(gx, gy):
                        fb.fill_rect(x + gx * scale, y + gy * scale, scale, scale, 1)
            x += _FONT * scale
        return x

    def number(self, n: int, label: str = "") -> None:
        # A count the player must see from across the table, with a caption.
        self.clear()
        s = str(n)
        scale = 4 if len(s) <= 3 else 2
        w = len(s) * _FONT * scale
        self.big_text(s, (self.width - w) // 2, 0, scale)
        if label:
            self.fb.text(label[:self.width // _FONT], 0, self.height - _FONT, 1)

    def die(self, x: int, y: int, size: int, face: int) -> None:
        # One die: rounded square outline and pips; face 0 draws a "?" (unknown).
        fb = self.fb
        fb.rect(x + 1, y, size - 2, size, 1)
        fb.rect(x, y + 1, size, size - 2, 1)
        if not 1 <= face <= 6:
            fb.text("?", x + (size - _FONT) // 2, y + (size - _FONT) // 2, 1)
            return
        pip = max(2, size // 6)
        step = size // 4
        for cell in _PIPS[face - 1]:
            cx = x + step * (1 + cell % 3)
            cy = y + step * (1 + cell // 3)
            fb.fill_rect(cx - pip // 2, cy - pip // 2, pip, pip, 1)

    def dice(self, faces: "list[int]") -> None:
        # Up to three dice side by side, as large as the screen allows.
        self.clear()
        count = min(len(faces), 3)
        if count == 0:
            return
        size = min(self.height, (self.width - 4 * (count + 1)) // count)
        gap = (self.width - count * size) // (count + 1)
        top = (self.height - size) // 2
        for i in range(count):
            self.die(gap + i * (size + gap), top, size, faces[i])
