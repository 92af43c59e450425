# An emulated MFRC522 with virtual ISO 14443 A cards, behind the same SPI and
# chip-select interface as the real part, for running the reader driver (and the
# whole seat on the emulated board) without hardware.
#
# Modelled: register file, SPI address framing, the 64-byte FIFO and its flush,
# the Idle / Transceive / SoftReset commands with StartSend, ComIrqReg (including
# Set1 semantics), ErrorReg, CollReg, the RxLastBits of ControlReg, and
# BitFramingReg's TxLastBits and RxAlign. A transceive completes at once: either
# the cards' combined answer lands in the FIFO (RxIRq|IdleIRq), or nothing
# answers and the timer interrupt is raised, as the chip's own timer would.
# Not modelled: timing, analogue settings, MIFARE authentication, CRC offload.
#
# Cards follow the ISO 14443-3 A state machine: IDLE, READY (through the cascade
# levels), ACTIVE, HALT. Several cards may be in the field; their anticollision
# answers are combined bit by bit and the first differing bit is a collision.
# CollPos is reported counting from bit 0 of the first received FIFO byte; the
# driver reads it the same way.

from micropython import const

_COMMAND = const(0x01)
_COM_IRQ = const(0x04)
_DIV_IRQ = const(0x05)
_ERROR = const(0x06)
_STATUS2 = const(0x08)
_FIFO_DATA = const(0x09)
_FIFO_LEVEL = const(0x0A)
_CONTROL = const(0x0C)
_BIT_FRAMING = const(0x0D)
_COLL = const(0x0E)
_TX_CONTROL = const(0x14)
_RF_CFG = const(0x26)
_VERSION = const(0x37)

_IDLE = const(0)
_READY = const(1)
_ACTIVE = const(2)
_HALT = const(3)

_SEL = (0x93, 0x95, 0x97)


def _crc(data: "bytes | bytearray | list[int]") -> int:
    # CRC_A computed independently of the driver: a table-free byte-wise form.
    crc = 0x6363
    for byte in data:
        b = (byte ^ (crc & 0xFF)) & 0xFF
        b = (b ^ (b << 4)) & 0xFF
        crc = ((crc >> 8) ^ (b << 8) ^ (b << 3) ^ (b >> 4)) & 0xFFFF
    return crc


def _bits(data: "bytes | bytearray | list[int]") -> "list[int]":
    out = []
    for b in data:
        for i in range(8):
            out.append((b >> i) & 1)
    return out


class Card:
    # uid: 4, 7 or 10 bytes. sak: the final SAK (0x08 MIFARE Classic 1K, 0x00
    # Ultralight/NTAG). Faults for tests: bad_bcc corrupts the level-1 BCC,
    # bad_sak_crc corrupts the CRC of every SAK, leave_after drops the card out of
    # the field after that many frames addressed to it.
    def __init__(self, uid: bytes, sak: int = 0x08, atqa: int = 0x0044,
                 bad_bcc: bool = False, bad_sak_crc: bool = False,
                 leave_after: int = -1) -> None:
        if len(uid) not in (4, 7, 10):
            raise ValueError("uid length")
        self.uid = bytes(uid)
        self.sak = sak
        self.atqa = atqa
        self.bad_bcc = bad_bcc
        self.bad_sak_crc = bad_sak_crc
        self.leave_after = leave_after
        self.present = True
        self.state = _IDLE
        self.level = 0
        self.frames = 0
        self.levels = self._levels()

    def _levels(self) -> "list[bytes]":
        u = self.uid
        if len(u) == 4:
            parts = [u]
        elif len(u) == 7:
            parts = [bytes([0x88]) + u[0:3], u[3:7]]
        else:
            parts = [bytes([0x88]) + u[0:3], bytes([0x88]) + u[3:6], u[6:10]]
        out = []
        for i, p in enumerate(parts):
            bcc = p[0] ^ p[1] ^ p[2] ^ p[3]
            if self.bad_bcc and i == 0:
                bcc ^= 0x01
            out.append(p + bytes([bcc]))
        return out

    def _sak(self, value: int) -> "list[int]":
        crc = _crc([value])
        if self.bad_sak_crc:
            crc ^= 0x0100
        return _bits([value, crc & 0xFF, crc >> 8])

    # Answers one frame: returns (bits, start bit) or None for silence.
    def receive(self, frame: bytes, last_bits: int) -> "tuple[list[int], int] | None":
        if not self.present:
            return None
        self.frames += 1
        if self.leave_after >= 0 and self.frames > self.leave_after:
            self.present = False
            return None
        if last_bits == 7 and len(frame) == 1:
            cmd = frame[0]
            if (cmd == 0x26 and self.state == _IDLE) or \
                    (cmd == 0x52 and self.state in (_IDLE, _HALT)):
                self.state = _READY
                self.level = 0
                return (_bits([self.atqa & 0xFF, self.atqa >> 8]), 0)
            return self._confused()
        if self.state == _ACTIVE and len(frame) == 4 and frame[0] == 0x50 and frame[1] == 0:
            if _crc(frame[:2]) == frame[2] | (frame[3] << 8):
                self.state = _HALT
            return None
        if self.state != _READY or len(frame) < 2 or frame[0] != _SEL[self.level]:
            return self._confused()
        nvb = frame[1]
        cl = self.levels[self.level]
        if nvb == 0x70 and len(frame) == 9 and last_bits == 0:
            if _crc(frame[:7]) != frame[7] | (frame[8] << 8):
                return None  # a corrupted frame is ignored
            if frame[2:7] != cl:
                self.state = _IDLE
                return None
            if self.level + 1 < len(self.levels):
                self.level += 1
                return (self._sak(0x04), 0)
            self.state = _ACTIVE
            return (self._sak(self.sak), 0)
        known = ((nvb >> 4) - 2) * 8 + (nvb & 0x0F)
        if known < 0 or known >= 40:
            return self._confused()
        mine = _bits(cl)
        sent = _bits(frame[2:])[:known]
        if mine[:known] != sent:
            return None  # not this card: it stays READY and silent
        return (mine[known:], known & 7)

    def _confused(self) -> "tuple[list[int], int] | None":
        # An unexpected frame sends a card back to IDLE, or HALT if it was halted.
        if self.state != _HALT:
            self.state = _IDLE
        return None


class _ChipSelect:
    def __init__(self, model: "MFRC522Model") -> None:
        self._model = model
        self._level = 1

    def value(self, v: "int | None" = None) -> int:
        if v is None:
            return self._level
        if self._level and not v:
            self._model._begin()
        self._level = 1 if v else 0
        return self._level

    def __call__(self, v: "int | None" = None) -> int:
        return self.value(v)


class MFRC522Model:
    # Pass model and model.cs to drivers.mfrc522.MFRC522 as its spi and cs.
    def __init__(self, cards: "list[Card] | None" = None, version: int = 0x92) -> None:
        self.cards = cards if cards is not None else []
        self.regs = bytearray(64)
        self.version = version
        self.fifo = bytearray()
        self.cs = _ChipSelect(self)
        self.stuck = False  # when True, commands never complete (a dead chip)
        self.transceives = 0
        self.log: "list[bytes]" = []
        self._first = True
        self._read_reg = -1
        self._write_reg = -1
        self._reset()

    def _reset(self) -> None:
        for i in range(64):
            self.regs[i] = 0
        self.regs[_COMMAND] = 0x20  # RcvOff clear, Idle
        self.regs[_TX_CONTROL] = 0x80
        self.regs[_RF_CFG] = 0x48  # RxGain 33 dB and the reserved bit 3, as after reset
        self.regs[_VERSION] = self.version
        self.fifo = bytearray()

    # --- SPI ---
    def _begin(self) -> None:
        self._first = True
        self._read_reg = -1
        self._write_reg = -1

    def _byte(self, b: int) -> int:
        if self._first:
            self._first = False
            if b & 0x80:
                self._read_reg = (b >> 1) & 0x3F
            else:
                self._write_reg = (b >> 1) & 0x3F
            return 0
        if self._write_reg >= 0:
            self._write(self._write_reg, b)
            return 0
        out = self._read(self._read_reg) if self._read_reg >= 0 else 0
        self._read_reg = (b >> 1) & 0x3F if b & 0x80 else -1
        return out

    def write(self, buf: "bytes | bytearray | memoryview") -> None:
        for b in buf:
            self._byte(b)

    def write_readinto(self, out: "bytes | bytearray | memoryview",
                       into: "bytearray | memoryview") -> None:
        for i in range(len(out)):
            into[i] = self._byte(out[i])

    # --- registers ---
    def _read(self, reg: int) -> int:
        if reg == _FIFO_DATA:
            if not self.fifo:
                return 0
            b = self.fifo[0]
            self.fifo = self.fifo[1:]
            return b
        if reg == _FIFO_LEVEL:
            return len(self.fifo)
        return self.regs[reg]

    def _write(self, reg: int, value: int) -> None:
        regs = self.regs
        if reg == _FIFO_DATA:
            if len(self.fifo) < 64:
                self.fifo.append(value)
            else:
                regs[_ERROR] |= 0x10
            return
        if reg == _FIFO_LEVEL:
            if value & 0x80:
                self.fifo = bytearray()
                regs[_ERROR] &= ~0x10 & 0xFF
            return
        if reg in (_COM_IRQ, _DIV_IRQ):
            if value & 0x80:
                regs[reg] |= value & 0x7F
            else:
                regs[reg] &= ~value & 0x7F
            return
        if reg == _COMMAND:
            cmd = value & 0x0F
            if cmd == 0x0F:
                self._reset()
                return
            regs[_COMMAND] = value
            return
        if reg in (_VERSION, _STATUS2, _ERROR, _COLL):
            return  # read-only
        regs[reg] = value
        if reg == _BIT_FRAMING and value & 0x80 and regs[_COMMAND] & 0x0F == 0x0C:
            self._transceive()

    # --- the radio side ---
    def _transceive(self) -> None:
        if self.stuck:
            return
        regs = self.regs
        frame = bytes(self.fifo)
        self.fifo = bytearray()
        self.transceives += 1
        self.log.append(frame)
        last_bits = regs[_BIT_FRAMING] & 0x07
        regs[_ERROR] = 0
        regs[_COLL] = 0x80
        answers = []
        if regs[_TX_CONTROL] & 0x03:
            for card in self.cards:
                a = card.receive(frame, last_bits)
                if a is not None:
                    answers.append(a)
        if not answers:
            regs[_COM_IRQ] |= 0x01  # timer ran out
            return
        start = answers[0][1]
        length = max(len(a[0]) for a in answers)
        merged = []
        collision = -1
        for i in range(length):
            values = set(a[0][i] for a in answers if i < len(a[0]))
            if len(values) > 1 and collision < 0:
                collision = i
            if collision >= 0 and i > collision:
                merged.append(0)  # ValuesAfterColl = 0: cleared after a collision
            else:
                merged.append(1 if 1 in values else 0)
        total = start + len(merged)
        data = bytearray((total + 7) // 8)
        for i, bit in enumerate(merged):
            pos = start + i
            if bit:
                data[pos >> 3] |= 1 << (pos & 7)
        self.fifo = data
        regs[_CONTROL] = (regs[_CONTROL] & 0xF8) | (total & 7)
        irq = 0x30  # RxIRq | IdleIRq
        if collision >= 0:
            regs[_ERROR] |= 0x08
            irq |= 0x02
            pos = start + collision + 1
            regs[_COLL] = pos & 0x1F if pos <= 32 else 0x20
        regs[_COM_IRQ] |= irq
