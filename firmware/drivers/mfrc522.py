# MFRC522 reader (SPI) for ISO/IEC 14443 A cards: request, anticollision and
# select over cascade levels, giving 4-, 7- or 10-byte UIDs.
#
# Nothing here waits on the card without a bound. Each exchange polls the
# chip's interrupt register until it reports the answer, its own timer running
# out (programmed to 2.5 ms), a deadline on the injected millisecond clock, or a
# fixed number of polls, whichever comes first. A whole read is a handful of
# exchanges, so even a missing or stuck chip costs the event loop a few
# milliseconds, never a hang.
#
# Frame checks done here rather than by the chip: CRC_A on select and its answer,
# and the BCC (XOR of the four UID bytes) of every cascade level.
#
# SPI framing: the address byte is (register << 1) with bit 7 set for a read; a
# read of n registers sends n address bytes and a 0, and each answer byte arrives
# one byte later.

import time

from micropython import const

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

    from machine import SPI, Pin

# Registers
_COMMAND = const(0x01)
_COM_IRQ = const(0x04)
_ERROR = const(0x06)
_FIFO_DATA = const(0x09)
_FIFO_LEVEL = const(0x0A)
_CONTROL = const(0x0C)
_BIT_FRAMING = const(0x0D)
_COLL = const(0x0E)
_MODE = const(0x11)
_TX_CONTROL = const(0x14)
_TX_ASK = const(0x15)
_T_MODE = const(0x2A)
_T_PRESCALER = const(0x2B)
_T_RELOAD_H = const(0x2C)
_T_RELOAD_L = const(0x2D)
_RF_CFG = const(0x26)
_VERSION = const(0x37)

# Commands
_CMD_IDLE = const(0x00)
_CMD_TRANSCEIVE = const(0x0C)
_CMD_SOFT_RESET = const(0x0F)
_POWER_DOWN = const(0x10)

# ComIrqReg bits
_IRQ_RX = const(0x20)
_IRQ_IDLE = const(0x10)
_IRQ_ERR = const(0x02)
_IRQ_TIMER = const(0x01)
_IRQ_CLEAR_ALL = const(0x7F)

# ErrorReg bits
_ERR_BUFFER_OVFL = const(0x10)
_ERR_COLL = const(0x08)
_ERR_PARITY = const(0x02)
_ERR_PROTOCOL = const(0x01)

_START_SEND = const(0x80)
_FLUSH = const(0x80)
_COLL_POS_NOT_VALID = const(0x20)

# ISO 14443-3 A
_REQA = const(0x26)
_WUPA = const(0x52)
_HLTA = const(0x50)
_CASCADE_TAG = const(0x88)
_SAK_INCOMPLETE = const(0x04)
_NVB_SELECT = const(0x70)
_SEL = (0x93, 0x95, 0x97)

# Results
OK = const(0)
NO_CARD = const(1)      # nothing answered in time
COLLISION = const(2)    # collision that could not be resolved
FRAME_ERROR = const(3)  # CRC, BCC, parity, protocol or length wrong
CHIP_ERROR = const(4)   # chip did not respond (never finished or reset failed)

_FIFO_MAX = const(64)

# RFCfgReg's RxGain field (bits 6 to 4) by code: the receiver's gain in dB (MFRC522
# datasheet, RFCfgReg). The reset value, 33 dB, reads cards through a lid less far
# than the 48 dB the field allows.
_RX_GAINS = (18, 23, 18, 23, 33, 38, 43, 48)
RX_GAIN_MAX_DB = const(48)


def reader_found(version: int) -> bool:
    # Whether init() met a chip: a missing or unpowered reader leaves the SPI's MISO
    # line at one level, so VersionReg reads 0x00 or 0xFF (or the reset never ends).
    return version not in (-1, 0x00, 0xFF)


def crc_a(data: "bytes | bytearray | memoryview", n: int = -1) -> int:
    # CRC_A of ISO 14443-3: CRC-16/CCITT reflected, preset 0x6363. Sent low byte first.
    crc = 0x6363
    if n < 0:
        n = len(data)
    for i in range(n):
        crc ^= data[i]
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
    return crc


class MFRC522:
    # spi: machine.SPI-like (write, write_readinto); cs: Pin-like chip select,
    # active low; ticks_ms: millisecond clock (time.ticks_ms on the board).
    def __init__(self, spi: "SPI", cs: "Pin", ticks_ms: "Callable[[], int] | None" = None,
                 exchange_ms: int = 8, max_polls: int = 400) -> None:
        self._spi = spi
        self._cs = cs
        # The stubs give ticks_ms an opaque return type; ticks are ints here.
        self._ticks: "Callable[[], int]" = (
            ticks_ms if ticks_ms is not None else time.ticks_ms)  # type: ignore[assignment]
        self.exchange_ms = exchange_ms
        self.max_polls = max_polls
        self._tx2 = bytearray(2)
        self._rx2 = bytearray(2)
        self._addr = bytearray(_FIFO_MAX + 1)
        self._in = bytearray(_FIFO_MAX + 1)
        self._frame = bytearray(9)
        self._rx = bytearray(_FIFO_MAX)
        self.rx_len = 0
        self.rx_bits = 0  # valid bits in the last received byte, 0 = all 8
        self.coll = 0
        self.uid = bytearray(10)
        self.uid_len = 0
        self.sak = 0
        self.atqa = 0
        cs.value(1)

    # --- registers ---
    def _write(self, reg: int, value: int) -> None:
        tx = self._tx2
        tx[0] = (reg << 1) & 0x7E
        tx[1] = value
        self._cs.value(0)
        self._spi.write(tx)
        self._cs.value(1)

    def _read(self, reg: int) -> int:
        tx = self._tx2
        tx[0] = ((reg << 1) & 0x7E) | 0x80
        tx[1] = 0
        self._cs.value(0)
        self._spi.write_readinto(tx, self._rx2)
        self._cs.value(1)
        return self._rx2[1]

    def _set_bits(self, reg: int, mask: int) -> None:
        self._write(reg, self._read(reg) | mask)

    def _clear_bits(self, reg: int, mask: int) -> None:
        self._write(reg, self._read(reg) & ~mask)

    def _write_fifo(self, data: "bytes | bytearray | memoryview", n: int) -> None:
        self._tx2[0] = (_FIFO_DATA << 1) & 0x7E
        self._cs.value(0)
        self._spi.write(memoryview(self._tx2)[:1])
        self._spi.write(memoryview(data)[:n])
        self._cs.value(1)

    def _read_fifo(self, n: int) -> None:
        addr = self._addr
        a = ((_FIFO_DATA << 1) & 0x7E) | 0x80
        for i in range(n):
            addr[i] = a
        addr[n] = 0
        self._cs.value(0)
        self._spi.write_readinto(memoryview(addr)[:n + 1], memoryview(self._in)[:n + 1])
        self._cs.value(1)
        self._rx[:n] = memoryview(self._in)[1:n + 1]

    # --- set-up ---
    def init(self, rx_gain_db: int = RX_GAIN_MAX_DB) -> int:
        # Resets the chip, sets its timer to give up 2.5 ms after a frame is sent, the
        # receiver's gain (one of _RX_GAINS, dB), turns the antenna on. Returns the chip
        # version (0x91/0x92 for genuine parts, others for clones; see reader_found())
        # or -1 when the chip does not come out of reset.
        self._write(_COMMAND, _CMD_SOFT_RESET)
        start = self._ticks()
        polls = 0
        while self._read(_COMMAND) & _POWER_DOWN:
            polls += 1
            if polls > self.max_polls or _elapsed(self._ticks(), start) > 50:
                return -1
        self._write(_T_MODE, 0x80)       # timer starts when a transmission ends
        self._write(_T_PRESCALER, 0xA9)  # 13.56 MHz / (2 * 169 + 1): 25 us per tick
        self._write(_T_RELOAD_H, 0)
        self._write(_T_RELOAD_L, 100)    # 100 ticks: 2.5 ms
        self._write(_TX_ASK, 0x40)       # 100 % ASK modulation
        self._write(_MODE, 0x3D)         # CRC preset 0x6363
        code = 7
        while _RX_GAINS[code] != rx_gain_db:
            code -= 1
            if code < 0:
                raise ValueError("rx_gain_db")
        self._write(_RF_CFG, (self._read(_RF_CFG) & 0x8F) | (code << 4))  # keep reserved bits
        self._set_bits(_TX_CONTROL, 0x03)
        return self._read(_VERSION)

    # --- one exchange ---
    def _transceive(self, data: "bytes | bytearray | memoryview", n: int,
                    tx_last_bits: int = 0, rx_align: int = 0) -> int:
        self.rx_len = 0
        self.rx_bits = 0
        self._write(_COMMAND, _CMD_IDLE)
        self._write(_COM_IRQ, _IRQ_CLEAR_ALL)
        self._write(_FIFO_LEVEL, _FLUSH)
        self._write_fifo(data, n)
        self._write(_BIT_FRAMING, (rx_align << 4) | tx_last_bits)
        self._write(_COMMAND, _CMD_TRANSCEIVE)
        self._set_bits(_BIT_FRAMING, _START_SEND)
        start = self._ticks()
        result = CHIP_ERROR
        for _ in range(self.max_polls):
            irq = self._read(_COM_IRQ)
            if irq & (_IRQ_RX | _IRQ_IDLE | _IRQ_ERR):
                result = OK
                break
            if irq & _IRQ_TIMER:
                result = NO_CARD
                break
            if _elapsed(self._ticks(), start) > self.exchange_ms:
                break
        self._clear_bits(_BIT_FRAMING, _START_SEND)
        if result != OK:
            self._write(_COMMAND, _CMD_IDLE)
            return result
        err = self._read(_ERROR)
        if err & (_ERR_BUFFER_OVFL | _ERR_PARITY | _ERR_PROTOCOL):
            return FRAME_ERROR
        level = self._read(_FIFO_LEVEL) & 0x7F
        if level > _FIFO_MAX:
            return FRAME_ERROR
        self._read_fifo(level)
        self.rx_len = level
        self.rx_bits = self._read(_CONTROL) & 0x07
        if err & _ERR_COLL:
            self.coll = self._read(_COLL)
            return COLLISION
        return OK

    # --- ISO 14443-3 A steps ---
    def request(self, wake: bool = False) -> int:
        # REQA wakes idle cards; WUPA also wakes halted ones. Answer: ATQA, 2 bytes.
        self._frame[0] = _WUPA if wake else _REQA
        status = self._transceive(self._frame, 1, 7)
        if status == COLLISION:
            # Cards with different ATQAs answered together: still cards present.
            return OK
        if status != OK:
            return status
        if self.rx_len != 2 or self.rx_bits != 0:
            return FRAME_ERROR
        self.atqa = self._rx[0] | (self._rx[1] << 8)
        return OK

    def _anticollision(self, level: int) -> int:
        # Leaves the level's 4 UID bytes and BCC in _frame[2:7]. On a collision the
        # colliding bit is taken as 1 and the search goes on with that bit known,
        # so with several cards the one whose UID is higher at each split wins.
        f = self._frame
        f[0] = _SEL[level]
        for i in range(2, 9):
            f[i] = 0
        known = 0
        for _ in range(33):
            whole = known >> 3
            bits = known & 7
            f[1] = ((2 + whole) << 4) | bits
            status = self._transceive(f, 2 + whole + (1 if bits else 0), bits, bits)
            if status != OK and status != COLLISION:
                return status
            n = self.rx_len
            if n == 0 or 2 + whole + n > 7:
                return FRAME_ERROR
            # The first received byte shares its low `bits` bits with what we sent.
            keep = (1 << bits) - 1
            f[2 + whole] = (f[2 + whole] & keep) | (self._rx[0] & ~keep & 0xFF)
            for i in range(1, n):
                f[2 + whole + i] = self._rx[i]
            if status == OK:
                # A complete answer ends exactly on the BCC byte.
                if 2 + whole + n != 7 or self.rx_bits != 0:
                    return FRAME_ERROR
                if f[2] ^ f[3] ^ f[4] ^ f[5] != f[6]:
                    return FRAME_ERROR
                return OK
            coll = self.coll
            if coll & _COLL_POS_NOT_VALID:
                return COLLISION
            pos = coll & 0x1F
            if pos == 0:
                pos = 32
            # CollPos counts from bit 0 of the first received byte, which is the
            # UID byte the exchange started in.
            new_known = whole * 8 + pos
            if new_known <= known or new_known > 32:
                return COLLISION
            bit = new_known - 1
            f[2 + (bit >> 3)] |= 1 << (bit & 7)
            # Bits above the collision bit in its byte are not known yet.
            f[2 + (bit >> 3)] &= (1 << ((bit & 7) + 1)) - 1
            known = new_known
        return COLLISION

    def _select(self, level: int) -> int:
        # Selects the UID in _frame[2:7]; sets self.sak.
        f = self._frame
        f[0] = _SEL[level]
        f[1] = _NVB_SELECT
        crc = crc_a(f, 7)
        f[7] = crc & 0xFF
        f[8] = crc >> 8
        status = self._transceive(f, 9)
        if status != OK:
            return status
        rx = self._rx
        if self.rx_len != 3 or self.rx_bits != 0:
            return FRAME_ERROR
        crc = crc_a(rx, 1)
        if rx[1] != crc & 0xFF or rx[2] != crc >> 8:
            return FRAME_ERROR
        self.sak = rx[0]
        return OK

    def read_uid(self, wake: bool = True) -> int:
        # Full read of one card: request, then anticollision and select for each
        # cascade level the card needs. On OK the UID is self.uid[:self.uid_len].
        self.uid_len = 0
        status = self.request(wake)
        if status != OK:
            return status
        n = 0
        f = self._frame
        for level in range(3):
            status = self._anticollision(level)
            if status != OK:
                return status
            status = self._select(level)
            if status != OK:
                return status
            if self.sak & _SAK_INCOMPLETE:
                if f[2] != _CASCADE_TAG:
                    return FRAME_ERROR
                self.uid[n:n + 3] = f[3:6]
                n += 3
            else:
                self.uid[n:n + 4] = f[2:6]
                self.uid_len = n + 4
                return OK
        return FRAME_ERROR

    def halt(self) -> int:
        # HLTA: the card goes quiet until a WUPA. Success is silence.
        f = self._frame
        f[0] = _HLTA
        f[1] = 0
        crc = crc_a(f, 2)
        f[2] = crc & 0xFF
        f[3] = crc >> 8
        status = self._transceive(f, 4)
        return OK if status == NO_CARD else FRAME_ERROR


def _elapsed(now: int, start: int) -> int:
    return time.ticks_diff(now, start)


class CardTaps:
    # Turns repeated UID reads into tap events: a card that stays on the reader is
    # one tap. A card counts as gone once no read has seen it for gone_ms, which
    # rides over the odd failed read while it is held. A different card is a new
    # tap at once.
    def __init__(self, reader: "MFRC522", ticks_ms: "Callable[[], int]",
                 gone_ms: int = 400) -> None:
        self._reader = reader
        self._ticks = ticks_ms
        self.gone_ms = gone_ms
        self._last = bytearray(10)
        self._last_len = 0
        self._seen_at = 0
        self.errors = 0

    def poll(self) -> "str | None":
        # One read attempt; returns the UID as lower-case hex on a new tap.
        reader = self._reader
        now = self._ticks()
        status = reader.read_uid(True)
        if status == OK:
            reader.halt()
            n = reader.uid_len
            same = n == self._last_len and reader.uid[:n] == self._last[:n]
            fresh = not same or _elapsed(now, self._seen_at) > self.gone_ms
            self._seen_at = now
            self._last[:n] = reader.uid[:n]
            self._last_len = n
            if fresh:
                return "".join("%02x" % b for b in reader.uid[:n])
            return None
        if status != NO_CARD:
            self.errors += 1
        return None

    async def next_tap(self, period_ms: int = 100) -> str:
        import asyncio

        while True:
            uid = self.poll()
            if uid is not None:
                return uid
            await asyncio.sleep_ms(period_ms)
