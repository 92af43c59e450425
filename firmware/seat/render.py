# From the hub's view message to the seat's outputs. The ring is a preallocated bytearray
# of 3 bytes (r, g, b) per pixel. A view may carry "ring" (one [r, g, b] per pixel) for
# full control; otherwise the whole ring shows the seat colour. The OLED shows the
# view's "lines" when present, else its "name".


def _scale(c, brightness):
    return c * brightness // 255


def fill(pixels, rgb, brightness=255):
    r = _scale(rgb[0], brightness)
    g = _scale(rgb[1], brightness)
    b = _scale(rgb[2], brightness)
    for i in range(0, len(pixels), 3):
        pixels[i] = r
        pixels[i + 1] = g
        pixels[i + 2] = b


def ring(view, pixels, brightness=255):
    given = view.get("ring")
    if isinstance(given, list) and given:
        n = len(pixels) // 3
        for i in range(n):
            rgb = given[i % len(given)]
            j = 3 * i
            pixels[j] = _scale(rgb[0], brightness)
            pixels[j + 1] = _scale(rgb[1], brightness)
            pixels[j + 2] = _scale(rgb[2], brightness)
    else:
        fill(pixels, view["colour"], brightness)


def text(view):
    lines = view.get("lines")
    if isinstance(lines, list):
        return [str(x) for x in lines]
    return [str(view.get("name", ""))]
