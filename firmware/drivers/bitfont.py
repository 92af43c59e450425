# The seat's bitmap font (fonts/font.bin, built by the hub: docs/fonts.md), drawn one
# glyph at a time into a framebuf.
#
# The file stays on flash: a glyph is found by a binary search of its face's index,
# one 4-byte entry read at a time, and its bitmap read into the face's one buffer,
# which a MONO_HLSB FrameBuffer over it blits onto the display with 0 as the
# transparent colour. So drawing allocates nothing, and the heap holds per face only
# its buffer (at most 16 rows of the widest glyph) and two small objects.
#
# Faces: "latin" (8 px cells: the characters outside ASCII that left-to-right
# languages use; ASCII is framebuf's own font) and "rtl" (16 px rows of shaped
# Persian and ASCII, variable widths). A character a face lacks is drawn as its "?",
# or as nothing when it has none; the hub measures rows the same way.

import framebuf
from micropython import const

PATH = "fonts/font.bin"
_HEAD = const(8)
_FACE = const(20)
_ENTRY = const(4)
_FALLBACK = const(63)  # "?"


def find(path=PATH):
    # The font beside the modules that run: the first folder on sys.path holding it
    # (an update's slot, the board's root, the tree on the unix port).
    import os
    import sys

    for folder in sys.path:
        at = folder + "/" + path if folder else path
        try:
            os.stat(at)
            return at
        except OSError:
            pass
    return None


class Face:
    def __init__(self, f, rec):
        self._f = f
        self.height = rec[8]
        stride = rec[9]
        self.count = rec[10] | rec[11] << 8
        self._index = int.from_bytes(rec[12:16], "little")
        self._bitmaps = int.from_bytes(rec[16:20], "little")
        self._size = self.height * stride
        self._buf = bytearray(self._size)
        self._glyph = framebuf.FrameBuffer(self._buf, stride * 8, self.height,
                                           framebuf.MONO_HLSB)
        self._entry = bytearray(_ENTRY)  # code point (2 bytes LE), advance, 0

    def _find(self, cp):
        # The glyph's number, its entry left in self._entry; -1 when absent.
        f = self._f
        e = self._entry
        lo = 0
        hi = self.count - 1
        while lo <= hi:
            mid = (lo + hi) >> 1
            f.seek(self._index + mid * _ENTRY)
            f.readinto(e)
            c = e[0] | e[1] << 8
            if c == cp:
                return mid
            if c < cp:
                lo = mid + 1
            else:
                hi = mid - 1
        return -1

    def _lookup(self, ch):
        i = self._find(ord(ch))
        return i if i >= 0 else self._find(_FALLBACK)

    def has(self, ch):
        return self._find(ord(ch)) >= 0

    def width(self, s):
        # The sum of the advances of s's glyphs, in pixels.
        w = 0
        for ch in s:
            if self._lookup(ch) >= 0:
                w += self._entry[2]
        return w

    def draw(self, fb, ch, x, y):
        # Blits ch's glyph with its left edge at x, top at y; returns its advance.
        i = self._lookup(ch)
        if i < 0:
            return 0
        advance = self._entry[2]
        f = self._f
        f.seek(self._bitmaps + i * self._size)
        f.readinto(self._buf)
        fb.blit(self._glyph, x, y, 0)
        return advance


class Font:
    def __init__(self, path):
        f = self._f = open(path, "rb")
        head = f.read(_HEAD)
        if head[:4] != b"RTFN" or head[4] != 1:
            raise ValueError("font")
        self.latin = None
        self.rtl = None
        for _ in range(head[5]):
            rec = f.read(_FACE)
            if rec[:6] == b"latin\0":
                self.latin = Face(f, rec)
            elif rec[:4] == b"rtl\0":
                self.rtl = Face(f, rec)

    def close(self):
        self._f.close()
