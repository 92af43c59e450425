"""Frames on the LED link: type, sequence number, payload and CRC, COBS-encoded.

The layout is specified in ``docs/led-link.md``; the controller firmware
(``firmware/ledctl/ledframe.py``) has its own implementation of the same
format, and ``tests/leds/vectors.json`` holds byte strings both must agree on.

A frame before encoding is ``type (1) | seq (1) | payload (0..MAX_PAYLOAD) |
CRC-16/CCITT-FALSE of everything before it (2, big-endian)``; on the wire it
is COBS-encoded and followed by one 0x00.

>>> wire = encode_frame(HEARTBEAT, 7)
>>> wire.hex(" ")
'05 03 07 38 bb 00'
>>> decoder = FrameDecoder()
>>> decoder.feed(wire)
[Frame(kind=3, seq=7, payload=b'')]
"""

from __future__ import annotations

import binascii
from dataclasses import dataclass

from risktable.leds import cobs

# Hub to controller.
SCENE = 0x01
LIMIT = 0x02
HEARTBEAT = 0x03
# Controller to hub.
ACK = 0x81
NAK = 0x82

# NAK reasons (the NAK's payload byte).
NAK_CRC = 1
NAK_FORMAT = 2  # not valid COBS, too short or too long
NAK_TYPE = 3  # a frame type the controller does not know
NAK_PAYLOAD = 4  # the payload does not fit its type (wrong LED count, length)

# ACK flags: what the controller holds, so the hub notices a controller that
# restarted behind an open port and sends it the scene again.
HAS_SCENE = 0x01
HAS_LIMIT = 0x02

# 85 LEDs need 3 * 85 + 2 + 11 = 268 bytes; 512 leaves room for 160 LEDs.
MAX_PAYLOAD = 512
_OVERHEAD = 4  # type, seq, CRC
NO_CAP = 0xFFFF


class FrameError(ValueError):
    """A received block is not a valid frame; ``reason`` is the NAK reason code."""

    def __init__(self, reason: int, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def crc16(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final XOR).

    The standard library's ``binascii.crc_hqx`` is this CRC given the 0xFFFF start
    (the controller's MicroPython has no ``crc_hqx``: it keeps its own table).

    >>> hex(crc16(b"123456789"))
    '0x29b1'
    """
    return binascii.crc_hqx(data, crc)


@dataclass(frozen=True)
class Frame:
    """One decoded frame: its type (``kind``), sequence number and payload."""

    kind: int
    seq: int
    payload: bytes = b""


def encode_frame(kind: int, seq: int, payload: bytes = b"") -> bytes:
    """The wire bytes of one frame, delimiter included."""
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")
    body = bytes((kind & 0xFF, seq & 0xFF)) + payload
    crc = crc16(body)
    return cobs.encode(body + bytes((crc >> 8, crc & 0xFF))) + b"\x00"


def decode_block(block: bytes) -> Frame:
    """Decode one COBS block (the bytes between two 0x00 delimiters)."""
    try:
        raw = cobs.decode(block)
    except cobs.CobsError as exc:
        raise FrameError(NAK_FORMAT, str(exc)) from None
    if not _OVERHEAD <= len(raw) <= _OVERHEAD + MAX_PAYLOAD:
        raise FrameError(NAK_FORMAT, f"frame of {len(raw)} bytes")
    if crc16(raw[:-2]) != (raw[-2] << 8) | raw[-1]:
        raise FrameError(NAK_CRC, "CRC mismatch")
    return Frame(raw[0], raw[1], bytes(raw[2:-2]))


class FrameDecoder:
    """Splits a byte stream at 0x00 delimiters and decodes each frame.

    Bad frames are counted in ``errors`` and skipped; a block that grows past
    the largest frame is dropped up to its delimiter, so noise can never make
    the buffer grow without bound.
    """

    _LIMIT = _OVERHEAD + MAX_PAYLOAD + (_OVERHEAD + MAX_PAYLOAD) // 254 + 2

    def __init__(self) -> None:
        self._block = bytearray()
        self._overflow = False
        self.errors = 0

    def feed(self, data: bytes) -> list[Frame]:
        """Add received bytes; return the frames they complete, in order."""
        frames = []
        for chunk_end, part in _split_keep(data):
            if not self._overflow:
                self._block += part
                if len(self._block) > self._LIMIT:
                    self._overflow = True
                    self._block.clear()
            if not chunk_end:
                continue
            block, overflow = bytes(self._block), self._overflow
            self._block.clear()
            self._overflow = False
            if overflow:
                self.errors += 1
                continue
            if not block:
                continue  # back-to-back delimiters: a resync, not an error
            try:
                frames.append(decode_block(block))
            except FrameError:
                self.errors += 1
        return frames


def _split_keep(data: bytes) -> list[tuple[bool, bytes]]:
    # Pieces of data between delimiters, each flagged with whether a delimiter ended it.
    parts = data.split(b"\x00")
    return [(i < len(parts) - 1, part) for i, part in enumerate(parts)]


# Payloads -----------------------------------------------------------------


def scene_payload(rgb: bytes, blink: bytes) -> bytes:
    """SCENE payload: LED count (u16 BE), R,G,B per LED, then the blink bit set.

    Bit ``i % 8`` (least significant first) of byte ``i // 8`` of ``blink``
    makes LED ``i`` blink.
    """
    count, rest = divmod(len(rgb), 3)
    if rest:
        raise ValueError("rgb must hold three bytes per LED")
    if len(blink) != (count + 7) // 8:
        raise ValueError(f"blink must hold {(count + 7) // 8} bytes for {count} LEDs")
    return bytes((count >> 8, count & 0xFF)) + rgb + blink


def parse_scene(payload: bytes) -> tuple[bytes, bytes]:
    """Inverse of :func:`scene_payload`: ``(rgb, blink)``."""
    if len(payload) < 2:
        raise FrameError(NAK_PAYLOAD, "scene payload too short")
    count = (payload[0] << 8) | payload[1]
    if len(payload) != 2 + 3 * count + (count + 7) // 8:
        raise FrameError(NAK_PAYLOAD, f"scene payload length does not fit {count} LEDs")
    return payload[2 : 2 + 3 * count], payload[2 + 3 * count :]


def limit_payload(brightness: int, cap: int) -> bytes:
    """LIMIT payload: master brightness (u8, 255 = full) and channel-sum cap (u16 BE).

    The cap bounds the sum of all channel values the strip shows at once
    (``NO_CAP``: unbounded); the controller scales a brighter image down to it.
    """
    if not 0 <= brightness <= 255 or not 0 <= cap <= NO_CAP:
        raise ValueError("brightness must be 0..255 and cap 0..65535")
    return bytes((brightness, cap >> 8, cap & 0xFF))


def ack_payload(kind: int, flags: int) -> bytes:
    """ACK payload: the type of the frame acknowledged and the controller's flags."""
    return bytes((kind, flags))
