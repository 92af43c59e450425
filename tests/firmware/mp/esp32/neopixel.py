# Stand-in for `neopixel` on the unix port: keeps the pixels and counts writes.
made = []


class NeoPixel:
    def __init__(self, pin, n):
        self.pixels = [(0, 0, 0)] * n
        self.writes = 0
        made.append(self)

    def __setitem__(self, i, rgb):
        self.pixels[i] = rgb

    def write(self):
        self.writes += 1
