"""Consistent Overhead Byte Stuffing: frames that never contain a zero byte.

COBS replaces every zero in a block with the distance to the next zero, so a
zero byte can delimit frames on the serial line and a receiver that starts in
the middle of a frame (a controller that just booted, a byte lost to noise)
finds the next frame boundary at the next zero. The overhead is at most one
byte per 254 bytes of data.

>>> encode(bytes([0x11, 0x22, 0x00, 0x33])).hex(" ")
'03 11 22 02 33'
>>> decode(bytes.fromhex("03 11 22 02 33")).hex(" ")
'11 22 00 33'
"""

from __future__ import annotations

_MAX_RUN = 0xFF


class CobsError(ValueError):
    """A block is not valid COBS (a zero inside, or a code that runs past the end)."""


def encode(data: bytes) -> bytes:
    """Return ``data`` COBS-encoded (no zero bytes; the 0x00 delimiter is not added)."""
    out = bytearray([0])
    code_at = 0
    code = 1
    full_run_last = False
    for byte in data:
        full_run_last = False
        if byte == 0:
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
            continue
        out.append(byte)
        code += 1
        if code == _MAX_RUN:
            # A full run of 254 data bytes carries no implied zero after it.
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
            full_run_last = True
    if full_run_last:
        # Data that ends with a full run needs no empty block after it.
        del out[code_at]
    else:
        out[code_at] = code
    return bytes(out)


def decode(block: bytes) -> bytes:
    """Return the data COBS-encoded in ``block`` (without its 0x00 delimiter)."""
    out = bytearray()
    i = 0
    n = len(block)
    while i < n:
        code = block[i]
        if code == 0:
            raise CobsError(f"zero byte inside a COBS block at offset {i}")
        end = i + code
        if end > n:
            raise CobsError(f"COBS code {code} at offset {i} runs past the end")
        run = block[i + 1 : end]
        if 0 in run:
            raise CobsError("zero byte inside a COBS block")
        out += run
        i = end
        if code != _MAX_RUN and i < n:
            out.append(0)
    return bytes(out)
