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


def load(path=None):
    # The (latin, rtl) faces of the font at path, by default the one beside the modules
    # that run: the first folder on sys.path holding fonts/font.bin (an update's slot,
    # the board's root, the tree on the unix port). A face the file lacks is None, and
    # both are when there is no file.
    import os
    import sys

    if path is None:
        for folder in sys.path:
            path = folder + "/" + PATH if folder else PATH
            try:
                os.stat(path)
                break
            except OSError:
                path = None
    try:
        f = open(path or PATH, "rb")
    except OSError:
        # A seat flashed without the font still shows ASCII (and "?" for the rest).
        return None, None
    head = f.read(_HEAD)
    if head[:4] != b"RTFN" or head[4] != 1:
        raise ValueError("font")
    latin = rtl = None
    for _ in range(head[5]):
        rec = f.read(_FACE)
        if rec[:6] == b"latin\0":
            latin = Face(f, rec)
        elif rec[:4] == b"rtl\0":
            rtl = Face(f, rec)
    return latin, rtl


class Face:
    def __init__(self, f, rec):
        self._f = f
        self.height = rec[8]
        stride = rec[9]
        self._count = rec[10] | rec[11] << 8
        self._index = int.from_bytes(rec[12:16], "little")
        self._bitmaps = int.from_bytes(rec[16:20], "little")
        self._size = self.height * stride
        self._buf = bytearray(self._size)
        self._glyph = framebuf.FrameBuffer(self._buf, stride * 8, self.height,
                                           framebuf.MONO_HLSB)
        self._entry = bytearray(_ENTRY)  # code point (2 bytes LE), advance, 0

    def _find(self, cp):
        # The number of cp's glyph (else of "?", else -1), its entry left in
        # self._entry: a binary search of the index, one entry read at a time.
        f = self._f
        e = self._entry
        lo = 0
        hi = self._count - 1
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
        return self._find(_FALLBACK) if cp != _FALLBACK else -1

    def width(self, s):
        # The sum of the advances of s's glyphs, in pixels.
        w = 0
        for ch in s:
            if self._find(ord(ch)) >= 0:
                w += self._entry[2]
        return w

    def draw(self, fb, ch, x, y):
        # Blits ch's glyph with its left edge at x, top at y; returns its advance, 0
        # when the face has neither it nor "?".
        i = self._find(ord(ch))
        if i < 0:
            return 0
        f = self._f
        f.seek(self._bitmaps + i * self._size)
        f.readinto(self._buf)
        fb.blit(self._glyph, x, y, 0)
        return self._entry[2]
