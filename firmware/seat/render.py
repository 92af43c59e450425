# From the hub's view message to the seat's outputs, into a preallocated bytearray of
# 3 bytes (r, g, b) per pixel. Static patterns only: the view's "ring" modes become
#   off       all dark
#   count     the first `value` pixels in the seat colour, the rest dim
#   progress  value/max of the ring in the seat colour, the rest dim
#   pulse     the whole ring in the seat colour (animated by drivers/ring.py on a
#   spin      real ring; not yet wired in)
# and a view without "ring" fills the ring with the seat colour.

from micropython import const

_DIM_SHIFT = const(3)  # dim pixels at 1/8 of the colour


def _put(pixels, i, rgb, level):
    j = 3 * i
    pixels[j] = rgb[0] * level // 255
    pixels[j + 1] = rgb[1] * level // 255
    pixels[j + 2] = rgb[2] * level // 255


def fill(pixels, rgb, level=255):
    for i in range(len(pixels) // 3):
        _put(pixels, i, rgb, level)


def ring(view, pixels, level=255):
    n = len(pixels) // 3
    colour = view["colour"]
    spec = view.get("ring")
    if not isinstance(spec, dict):
        fill(pixels, colour, level)
        return
    mode = spec.get("mode")
    value = spec.get("value", 0)
    if mode == "off":
        fill(pixels, (0, 0, 0))
        return
    if mode == "count":
        lit = value
    elif mode == "progress":
        top = spec.get("max", 0)
        lit = (value * n + top // 2) // top if top else 0
    else:
        lit = n
    for i in range(n):
        _put(pixels, i, colour, level if i < lit else level >> _DIM_SHIFT)


def text(view):
    lines = view.get("lines")
    if isinstance(lines, list):
        return lines
    return [view.get("name", "")]
