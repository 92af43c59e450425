"""The Pico's WS2812 PIO program, run cycle by cycle in an RP2040 PIO emulator.

The controller's own ``strips.PioStrip`` builds the program and the FIFO words
under the unix port, through a stand-in rp2 module that records them
(tests/leds/mpy/rp2.py); tests/leds/pio_asm.py turns the program into machine
code, and ``rp2040-pio-emulator`` (PyPI ``pioemu``) runs it at the clock the
firmware asks for, for two whole frames of the LED map, put back to back as
fast as the controller can. The pin's waveform is measured against the WS2812B
datasheet. Real PIO hardware has not run it yet (hardware/README.md).
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace
from typing import Any

from pioemu import State, emulate

from risktable.hardware.data import LedMap
from tests.leds.conftest import RunMpy
from tests.leds.pio_asm import assemble, sideset_count

# WS2812B datasheet: high time of a 0 and of a 1, and the bit period, each
# nominal +- tolerance, in ns.
T0H = (400 - 150, 400 + 150)
T1H = (800 - 150, 800 + 150)
PERIOD = (1250 - 600, 1250 + 600)
# The low time that latches a frame: 50 us for the first WS2812B, 280 us for
# the V5 part. The stricter one is checked.
RESET_NS = 280_000


def two_frames(run_mpy: RunMpy, led_count: int) -> dict[str, Any]:
    """The program, clock and put()s of a PioStrip showing two different frames at once."""
    (result,) = run_mpy(f"""
        import json
        import strips

        class Pin:
            pass

        pin = Pin()
        n = {led_count}
        strip = strips.PioStrip(n, pin)
        frames = []
        for k in (0, 1):
            rgb = bytes((i * 37 + k * 101) & 0xFF for i in range(3 * n))
            strip.rgb[:] = rgb
            strip.show()
            frames.append(list(rgb))
        sm = strip._sm
        p = sm.program
        print(json.dumps({{
            "options": p.options,
            "instructions": [[i.op, i.args, i.side_value, i.delay] for i in p.instructions],
            "labels": p.labels, "wrap_target": p.wrap_target, "wrap": p.wrap,
            "freq": sm.freq, "puts": sm.puts, "frames": frames, "running": sm.running,
            "pin_given": sm.sideset_base is pin,
        }}))
    """)
    return result  # type: ignore[no-any-return]


def waveform(sm: dict[str, Any]) -> list[tuple[int, int]]:
    """The data pin as (level, cycles) runs, each put()'s words reaching the FIFO
    at the cycle the firmware put them, until the chain has been low a reset time."""
    options = sm["options"]
    opcodes = assemble(sm)
    cycles_per_us = sm["freq"] / 1e6
    first_put = sm["puts"][0][0]
    arrivals = [(round((t - first_put) * cycles_per_us), words) for t, words in sm["puts"]]
    end = arrivals[-1][0] + len(arrivals[-1][1]) * 24 * 10 * 2 + 4000
    config = dict(auto_pull=options["autopull"], pull_threshold=options["pull_thresh"],
                  shift_osr_right=options["out_shiftdir"] == 1, side_set_base=0,
                  side_set_count=sideset_count(options), wrap_target=sm["wrap_target"],
                  wrap_top=sm["wrap"])
    state = State(pin_values=options["sideset_init"])
    levels: list[tuple[int, int]] = []

    def add(level: int, cycles: int) -> None:
        if levels and levels[-1][0] == level:
            levels[-1] = (level, levels[-1][1] + cycles)
        elif cycles:
            levels.append((level, cycles))

    for k, (_at, words) in enumerate(arrivals):
        state = replace(state, transmit_fifo=deque(state.transmit_fifo) + deque(words))
        until = arrivals[k + 1][0] if k + 1 < len(arrivals) else end
        for before, after in emulate(opcodes, stop_when=lambda _op, s, u=until: s.clock >= u,
                                     initial_state=state, **config):
            # Side-set drives the pin from an instruction's first cycle through its delay.
            add(after.pin_values & 1, after.clock - before.clock)
            state = after
    return levels


def frames_on_the_wire(levels: list[tuple[int, int]], ns: float
                       ) -> tuple[list[list[tuple[int, int]]], list[float]]:
    """The (high ns, period ns) of each bit, per frame, and the low gaps between frames."""
    if levels and levels[0][0] == 0:
        levels = levels[1:]  # low before the first bit is idle line, not a bit
    frames: list[list[tuple[int, int]]] = [[]]
    gaps: list[float] = []
    for i in range(0, len(levels), 2):
        (level, high) = levels[i]
        assert level == 1
        low = levels[i + 1][1] if i + 1 < len(levels) else 0
        if low * ns >= 50_000 or i + 1 >= len(levels):
            frames[-1].append((round(high * ns), 0))  # the last bit runs on into the latch
            if i + 1 < len(levels) - 1:
                gaps.append(low * ns)
                frames.append([])
        else:
            frames[-1].append((round(high * ns), round((high + low) * ns)))
    return frames, gaps


def grb_bits(rgb: list[int]) -> list[int]:
    bits = []
    for j in range(0, len(rgb), 3):
        r, g, b = rgb[j : j + 3]
        for byte in (g, r, b):
            bits += [(byte >> k) & 1 for k in range(7, -1, -1)]
    return bits


def test_assembler_matches_the_datasheet_encoding() -> None:
    # Worked from the RP2040 datasheet's instruction table, one side-set pin.
    program = {"options": {"sideset_init": 0}, "labels": {"bit": 0, "zero": 3},
               "instructions": [["out", ["x", 1], 0, 2], ["jmp", ["not_x", "zero"], 1, 1],
                                ["jmp", ["bit"], 1, 4], ["nop", [], 0, 4]]}
    assert assemble(program) == [0x6221, 0x1123, 0x1400, 0xA442]


def test_two_frames_back_to_back_keep_ws2812b_timing_and_latch(
        run_mpy: RunMpy, led_map: LedMap) -> None:
    sm = two_frames(run_mpy, led_map.led_count)
    assert sm["running"] and sm["pin_given"]
    ns = 1e9 / sm["freq"]
    frames, gaps = frames_on_the_wire(waveform(sm), ns)
    assert len(frames) == 2
    # The controller waited long enough after the first put() for the chain to latch.
    assert len(gaps) == 1 and gaps[0] >= RESET_NS
    for bits, rgb in zip(frames, sm["frames"], strict=True):
        assert len(bits) == 24 * led_map.led_count
        decoded = []
        for high, period in bits:
            bit = 1 if high > (T0H[1] + T1H[0]) / 2 else 0
            lo, hi = T1H if bit else T0H
            assert lo <= high <= hi, (bit, high)
            if period:
                assert PERIOD[0] <= period <= PERIOD[1], period
            decoded.append(bit)
        expected = grb_bits(rgb)
        # The first wrong bit, not a diff of thousands (which takes pytest minutes).
        pairs = enumerate(zip(decoded, expected, strict=True))
        wrong = next((i for i, (a, b) in pairs if a != b), None)
        assert wrong is None, f"bit {wrong} (LED {wrong // 24}) is {decoded[wrong]}"
