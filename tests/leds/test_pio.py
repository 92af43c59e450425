"""The Pico's WS2812 PIO program, assembled by a stand-in rp2 module and simulated here.

This checks the program's logic and the word packing (colour order, bit
order, timing in cycles) against the WS2812B datasheet; it cannot check
the real PIO hardware, which has not been tried yet.
"""

from __future__ import annotations

from typing import Any

from tests.leds.conftest import RunMpy

RGB = [0xFF, 0x00, 0x81, 0x12, 0x34, 0x56, 0x00, 0x01, 0x80]

# WS2812B datasheet (V5) limits in ns: high and low time of a 0 bit and a 1 bit.
T0H, T0L = (220, 380), (580, 1000)
T1H, T1L = (580, 1000), (220, 420)


def assembled(run_mpy: RunMpy) -> dict[str, Any]:
    (result,) = run_mpy(f"""
        import json
        import strips

        class Pin:
            pass

        pin = Pin()
        strip = strips.PioStrip(3, pin)
        strip.rgb[:] = bytes({RGB!r})
        strip.show()
        sm = strip._sm
        p = sm.program
        print(json.dumps({{
            "options": p.options,
            "instructions": [[i.op, i.args, i.side_value, i.delay] for i in p.instructions],
            "labels": p.labels, "wrap_target": p.wrap_target, "wrap": p.wrap,
            "freq": sm.freq, "fifo": sm.fifo, "running": sm.running,
            "pin_given": sm.sideset_base is pin,
        }}))
    """)
    return result  # type: ignore[no-any-return]


def simulate(sm: dict[str, Any]) -> list[int]:
    """Pin level for every PIO cycle until the program stalls on an empty FIFO."""
    options = sm["options"]
    assert options["autopull"] and options["out_shiftdir"] == 0  # shift left: MSB first
    fifo = list(sm["fifo"])
    osr, shifted = 0, 32  # an empty output shift register
    x, pc = 0, 0
    pin = options["sideset_init"]
    levels: list[int] = []
    program = sm["instructions"]
    while True:
        op, args, side, delay = program[pc]
        if op == "out":
            if shifted >= options["pull_thresh"]:
                if not fifo:
                    return levels
                osr, shifted = fifo.pop(0), 0
            dest, bits = args
            value = osr >> (32 - bits)
            osr = (osr << bits) & 0xFFFFFFFF
            shifted += bits
            assert dest == "x"
            x = value
        if side is not None:
            pin = side
        levels += [pin] * (1 + delay)
        if op == "jmp":
            *cond, target = args
            if not cond or (cond == ["not_x"] and x == 0):
                pc = sm["labels"][target]
                continue
        pc = sm["wrap_target"] if pc == sm["wrap"] else pc + 1


def runs(levels: list[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for level in levels:
        if out and out[-1][0] == level:
            out[-1] = (level, out[-1][1] + 1)
        else:
            out.append((level, 1))
    return out


def test_pio_program_sends_grb_with_ws2812_timing(run_mpy: RunMpy) -> None:
    sm = assembled(run_mpy)
    assert sm["running"] and sm["pin_given"]
    ns = 1e9 / sm["freq"]
    pulses = runs(simulate(sm))
    if pulses[0][0] == 0:
        pulses = pulses[1:]  # low before the first bit is the reset time, not a bit
    bits = []
    for i in range(0, len(pulses), 2):
        (high_level, high), low = pulses[i], pulses[i + 1] if i + 1 < len(pulses) else None
        assert high_level == 1
        bit = 1 if high * ns > T0H[1] else 0
        lo, hi = T1H if bit else T0H
        assert lo <= high * ns <= hi
        if low is not None:  # the last bit's low time runs on into the reset
            lo, hi = T1L if bit else T0L
            assert lo <= low[1] * ns <= hi
        bits.append(bit)
    expected = []
    for j in range(0, len(RGB), 3):
        r, g, b = RGB[j : j + 3]
        for byte in (g, r, b):
            expected += [(byte >> k) & 1 for k in range(7, -1, -1)]
    assert bits == expected
