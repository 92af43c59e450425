"""Machine code for a PIO program recorded by the stand-in rp2 module (tests/leds/mpy/rp2.py).

Encodes the instructions the controller's WS2812 program uses, following the
RP2040 datasheet's instruction table (section 3.4), so the program can run in
an RP2040 PIO emulator. An instruction outside that set is an error, not a guess.
"""

from __future__ import annotations

from typing import Any

_OUT_DEST = {"pins": 0, "x": 1, "y": 2, "null": 3, "pindirs": 4, "pc": 5, "isr": 6, "exec": 7}
_JMP_COND = {None: 0, "not_x": 1, "x_dec": 2, "not_y": 3, "y_dec": 4, "x_not_y": 5,
             "pin": 6, "not_osre": 7}
_SET_DEST = {"pins": 0, "x": 1, "y": 2, "pindirs": 4}
_MOV_Y_Y = (0b101 << 13) | (2 << 5) | 2  # nop is "mov y, y"


def sideset_count(options: dict[str, Any]) -> int:
    """Side-set pins of a program: one per value given as ``sideset_init``."""
    init = options.get("sideset_init")
    if init is None:
        return 0
    return len(init) if isinstance(init, list | tuple) else 1


def assemble(program: dict[str, Any]) -> list[int]:
    """16-bit opcodes of ``program`` (instructions as [op, args, side, delay], labels)."""
    count = sideset_count(program["options"])
    delay_bits = 5 - count
    opcodes = []
    for op, args, side, delay in program["instructions"]:
        if not 0 <= delay < (1 << delay_bits):
            raise ValueError(f"{op}: delay {delay} does not fit in {delay_bits} bits")
        if count and side is None:
            raise ValueError(f"{op}: no side-set value, and side-set is not optional")
        if side is not None and not 0 <= side < (1 << count):
            raise ValueError(f"{op}: side-set {side} does not fit in {count} pins")
        field = ((side or 0) << delay_bits) | delay
        if op == "out":
            dest, bits = args
            if not 1 <= bits <= 32:
                raise ValueError(f"out: bit count {bits}")
            code = (0b011 << 13) | (_OUT_DEST[dest] << 5) | (bits % 32)
        elif op == "jmp":
            *cond, target = args
            code = (0b000 << 13) | (_JMP_COND[cond[0] if cond else None] << 5) \
                | program["labels"][target]
        elif op == "set":
            dest, value = args
            code = (0b111 << 13) | (_SET_DEST[dest] << 5) | value
        elif op == "nop":
            code = _MOV_Y_Y
        else:
            raise ValueError(f"no encoding here for PIO instruction {op!r}")
        opcodes.append(code | (field << 8))
    return opcodes
