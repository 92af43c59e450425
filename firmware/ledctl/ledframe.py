# The LED link's frame format, controller side (docs/led-link.md is the spec;
# hub/risktable/leds/frames.py is the hub's own implementation, and
# tests/leds/vectors.json holds the bytes both must agree on).
#
# Raw frame: type (1) | seq (1) | payload | CRC-16/CCITT-FALSE (2, big-endian)
# over type, seq and payload. On the wire: COBS-encoded, then one 0x00.
#
# Everything here works on preallocated buffers: Receiver decodes COBS in
# place (the decoded frame is never longer than its encoding) and the encoder
# writes into a buffer the caller owns, so the frame loop does not allocate.

import array

from micropython import const

SCENE = const(0x01)
LIMIT = const(0x02)
HEARTBEAT = const(0x03)
ACK = const(0x81)
NAK = const(0x82)

NAK_CRC = const(1)
NAK_FORMAT = const(2)
NAK_TYPE = const(3)
NAK_PAYLOAD = const(4)

HAS_SCENE = const(0x01)
HAS_LIMIT = const(0x02)

MAX_PAYLOAD = const(512)
_OVERHEAD = const(4)
# COBS adds one byte per 254 and the first code byte.
_BLOCK_MAX = const(_OVERHEAD + MAX_PAYLOAD + 4)
_FULL_RUN = const(0xFF)


# MicroPython has no binascii.crc_hqx (the hub's CRC): the table is built here, and
# tests/leds/test_codec.py holds this CRC against CPython's crc_hqx.
def _crc_table() -> "array.array[int]":
    table = array.array("H", bytes(512))
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table[byte] = crc & 0xFFFF
    return table


_TABLE = _crc_table()


# CRC-16/CCITT-FALSE of buf[start:end] (poly 0x1021, init 0xFFFF).
def crc16(buf: "bytes | bytearray | memoryview", start: int, end: int) -> int:
    table = _TABLE
    crc = 0xFFFF
    for i in range(start, end):
        crc = ((crc << 8) & 0xFFFF) ^ table[((crc >> 8) ^ buf[i]) & 0xFF]
    return crc


# Decodes the COBS block buf[0:n] in place. Returns the decoded length, or -1
# when the block is not valid COBS.
def cobs_decode(buf: bytearray, n: int) -> int:
    i = 0
    out = 0
    while i < n:
        code = buf[i]
        if code == 0 or i + code > n:
            return -1
        end = i + code
        i += 1
        while i < end:
            byte = buf[i]
            if byte == 0:
                return -1
            buf[out] = byte
            out += 1
            i += 1
        if code != _FULL_RUN and i < n:
            buf[out] = 0
            out += 1
    return out


# COBS-encodes raw[0:n] into out and appends the 0x00 delimiter. Returns the
# number of bytes written; out must hold n + n // 254 + 2 bytes.
def cobs_encode(raw: "bytes | bytearray", n: int, out: bytearray) -> int:
    code_at = 0
    o = 1
    code = 1
    full_last = False
    for i in range(n):
        byte = raw[i]
        full_last = False
        if byte == 0:
            out[code_at] = code
            code_at = o
            o += 1
            code = 1
            continue
        out[o] = byte
        o += 1
        code += 1
        if code == _FULL_RUN:
            out[code_at] = code
            code_at = o
            o += 1
            code = 1
            full_last = True
    if full_last:
        # Data ending in a full run needs no empty block after it.
        o -= 1
    else:
        out[code_at] = code
    out[o] = 0
    return o + 1


# Builds a complete frame in raw (type, seq, payload[0:plen], CRC) and encodes
# it into out. Returns the wire length.
def encode(kind: int, seq: int, payload: "bytes | bytearray", plen: int,
           raw: bytearray, out: bytearray) -> int:
    raw[0] = kind
    raw[1] = seq & 0xFF
    for i in range(plen):
        raw[2 + i] = payload[i]
    crc = crc16(raw, 0, 2 + plen)
    raw[2 + plen] = crc >> 8
    raw[3 + plen] = crc & 0xFF
    return cobs_encode(raw, plen + _OVERHEAD, out)


# Collects bytes up to each delimiter and checks the frame. push() returns 0
# while a frame is incomplete, the frame length (type and seq at buf[0:2],
# payload at buf[2:length - 2]) when a good frame ends, or -reason (a NAK_*
# code) when a bad one does. Oversized blocks are dropped up to their
# delimiter, so the buffer stays fixed in size whatever arrives.
class Receiver:
    def __init__(self) -> None:
        self.buf = bytearray(_BLOCK_MAX)
        self._n = 0
        self._overflow = False
        self.errors = 0

    def push(self, byte: int) -> int:
        if byte != 0:
            if self._n < _BLOCK_MAX:
                self.buf[self._n] = byte
                self._n += 1
            else:
                self._overflow = True
            return 0
        n = self._n
        overflow = self._overflow
        self._n = 0
        self._overflow = False
        if n == 0:
            return 0
        if overflow:
            self.errors += 1
            return -NAK_FORMAT
        return self._check(n)

    def _check(self, n: int) -> int:
        buf = self.buf
        m = cobs_decode(buf, n)
        if m < _OVERHEAD or m > _OVERHEAD + MAX_PAYLOAD:
            self.errors += 1
            return -NAK_FORMAT
        if crc16(buf, 0, m - 2) != (buf[m - 2] << 8) | buf[m - 1]:
            self.errors += 1
            return -NAK_CRC
        return m
