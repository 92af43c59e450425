# A fake I2C bus with an SSD1306 on it that interprets the command stream the way
# the controller does (addressing mode, column and page windows, display on/off,
# contrast, inversion) and keeps its own display RAM, so tests check what would
# be on the glass rather than what the driver meant to send.

_ARGS = {0x20: 1, 0x21: 2, 0x22: 2, 0x81: 1, 0x8D: 1, 0xA8: 1, 0xD3: 1, 0xD5: 1,
         0xD9: 1, 0xDA: 1, 0xDB: 1}


class FakeOledBus:
    def __init__(self, addr=0x3C, width=128, pages=8):
        self.addr = addr
        self.width = width
        self.pages = pages
        self.ram = bytearray(width * pages)
        self.on = False
        self.inverted = False
        self.contrast = 0x7F
        self.mode = 2  # page addressing until told otherwise, as at power-up
        self.col_lo, self.col_hi = 0, width - 1
        self.page_lo, self.page_hi = 0, pages - 1
        self.col = 0
        self.page = 0
        self.commands = []
        self.writes = 0
        self._pending = []

    def writeto(self, addr, buf, stop=True):
        self.writevto(addr, (buf,), stop)

    def writevto(self, addr, vector, stop=True):
        if addr != self.addr:
            raise OSError(19)  # ENODEV: nobody acknowledged
        data = b"".join(bytes(v) for v in vector)
        self.writes += 1
        ctrl = data[0]
        if ctrl == 0x40:
            for b in data[1:]:
                self._data(b)
        elif ctrl == 0x00:
            for b in data[1:]:
                self._command(b)
        else:
            raise ValueError("control byte", ctrl)

    def _command(self, b):
        if self._pending:
            self._pending.append(b)
        else:
            self._pending = [b]
        need = _ARGS.get(self._pending[0], 0)
        if len(self._pending) < need + 1:
            return
        cmd = self._pending
        self._pending = []
        self.commands.append(cmd)
        op = cmd[0]
        if op == 0xAE:
            self.on = False
        elif op == 0xAF:
            self.on = True
        elif op == 0xA6:
            self.inverted = False
        elif op == 0xA7:
            self.inverted = True
        elif op == 0x81:
            self.contrast = cmd[1]
        elif op == 0x20:
            self.mode = cmd[1]
        elif op == 0x21:
            self.col_lo, self.col_hi = cmd[1], cmd[2]
            self.col = cmd[1]
        elif op == 0x22:
            self.page_lo, self.page_hi = cmd[1], cmd[2]
            self.page = cmd[1]

    def _data(self, b):
        self.ram[self.page * self.width + self.col] = b
        if self.col < self.col_hi:
            self.col += 1
            return
        self.col = self.col_lo
        if self.mode == 0:  # horizontal: wrap to the next page of the window
            self.page = self.page + 1 if self.page < self.page_hi else self.page_lo

    def lit(self, x, y):
        return (self.ram[(y // 8) * self.width + x] >> (y % 8)) & 1

    def rows(self, x0, y0, w, h):
        out = []
        for y in range(y0, y0 + h):
            out.append("".join("#" if self.lit(x, y) else "." for x in range(x0, x0 + w)))
        return out
