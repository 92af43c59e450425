# The seat's own words (notices, refusal reasons, dice pairing, dice titles) in the
# seat's language, read from texts.bin one entry at a time: the file is never loaded
# whole (docs/seat-texts.md has its format; the hub writes it with
# risktable.i18n.seat_texts). Persian entries are display rows, shaped and in visual
# order already, to be drawn right to left; the others are lines the display wraps.
#
# lines(key, lang, args) -> (rows, rtl). A value in args replaces its placeholder
# (U+E000 the first, U+E001 the second). A language the file lacks gets English (its
# first); a missing file shows the key rather than nothing. Seat.words (seat/app.py)
# loads this module with the first words it shows.

import sys

from micropython import const

_PLACEHOLDER = const(0xE000)

# texts.bin sits beside seat/, in the folder or update slot this module was loaded
# from; frozen into the image (firmware/manifest.py), in the current folder.
_PATH = __file__[:__file__.rfind("seat/")] + "texts.bin"
if _PATH.startswith(".frozen/"):
    _PATH = _PATH[8:]


def lines(key, lang, args=()):
    # The module lets go of itself: once its caller has the words, its heap is the
    # game's again (kept, it costs 600 bytes the heap scenario does not have).
    sys.modules.pop("seat.texts")
    delattr(sys.modules["seat"], "texts")
    try:
        f = open(_PATH, "rb")
    except OSError:
        return [key], False
    head = f.read(6)
    langs = head[4]
    keys = head[5]
    # A code or key is found by one search of its table, which is less code than a
    # loop: each cell ends in a NUL, so a match can only be where a cell begins.
    at = max(0, f.read(3 * langs).find(lang.encode() + b"\0") // 3) * keys
    name = key.encode()
    at += f.read(8 * keys).find(name + bytes(8 - len(name))) // 8
    f.seek(6 + 3 * langs + 8 * keys + 4 * at)
    head = f.read(4)
    f.seek(head[0] | head[1] << 8)
    data = f.read(head[2] | head[3] << 8)
    f.close()
    rows = str(data[1:], "utf-8").split("\n")
    for i in range(len(args)):
        for j in range(len(rows)):
            rows[j] = rows[j].replace(chr(_PLACEHOLDER + i), str(args[i]))
    return rows, data[0] == 1
