"""Buzzer cues: queued, played step by step on a PWM pin, silent between and after."""

from __future__ import annotations

import json

from tests.firmware.drivers.conftest import RunMpy
from tests.support.tools import ROOT


def test_cues_play_in_order_and_end_silent(run_mpy: RunMpy) -> None:
    out = run_mpy(
        """
        import json, asyncio
        from drivers import buzzer

        class FakePWM:
            def __init__(self):
                self.log = []
            def freq(self, f):
                self.log.append(["freq", f])
            def duty_u16(self, d):
                self.log.append(["duty", d])

        pwm = FakePWM()
        bz = buzzer.Buzzer(pwm, volume=1000, base_hz=1000)  # pitches read as Hz

        async def main():
            task = asyncio.create_task(bz.run())
            bz.play(((440, 10), (0, 10), (880, 10)))
            bz.play(buzzer.TAP)
            for cue in range(6):
                bz.play(buzzer.TAP)
            await asyncio.sleep_ms(300)
            task.cancel()
            await asyncio.sleep_ms(0)
            print(json.dumps({"log": pwm.log, "drops": bz.drops}))
        asyncio.run(main())
        """
    )[0]
    log = out["log"]
    assert log[:8] == [
        ["duty", 0],  # silent from the start
        ["freq", 440], ["duty", 1000],
        ["duty", 0],  # rest
        ["freq", 880], ["duty", 1000],
        ["duty", 0],  # end of cue
        ["freq", 1250],
    ]
    assert log[-1] == ["duty", 0]
    # Queue holds 4: the first two cues plus two taps; four taps were dropped.
    assert out["drops"] == 4
    assert sum(1 for entry in log if entry == ["freq", 1250]) == 3


# TDK PS1240P02BT (the seat's piezo): rated at 4 kHz, and its sound pressure curve falls
# away below about 2 kHz; the seat drives it from a 2N3904 switch at 5 V.
PIEZO_BAND_HZ = (2000, 4000)


def test_every_cue_sounds_inside_the_piezos_band_at_the_pinouts_tone(run_mpy: RunMpy) -> None:
    pinout = json.loads((ROOT / "hardware" / "seat-pinout.json").read_text())
    tone = pinout["devices"]["buzzer"]["settings"]["freq"]
    (out,) = run_mpy(
        f"""
        import json
        from drivers import buzzer
        cues = (buzzer.TAP, buzzer.CONFIRM, buzzer.ERROR, buzzer.YOUR_TURN, buzzer.DICE)
        bz = buzzer.Buzzer(type("P", (), {{"duty_u16": lambda self, d: None}})(),
                           base_hz={tone})
        print(json.dumps([[bz.base_hz * pitch // 1000 for pitch, _ in cue if pitch]
                          for cue in cues]))
        """
    )
    low, high = PIEZO_BAND_HZ
    assert all(low <= hz <= high for cue in out for hz in cue), out
    # The error cue is the lowest tone, so it reads as a warning.
    assert min(out[2]) == min(hz for cue in out for hz in cue)
