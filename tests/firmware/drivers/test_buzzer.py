"""Buzzer cues: queued, played step by step on a PWM pin, silent between and after."""

from __future__ import annotations

from tests.firmware.drivers.conftest import RunMpy


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
        bz = buzzer.Buzzer(pwm, volume=1000)

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
        ["freq", 2000],
    ]
    assert log[-1] == ["duty", 0]
    # Queue holds 4: the first two cues plus two taps; four taps were dropped.
    assert out["drops"] == 4
    assert sum(1 for entry in log if entry == ["freq", 2000]) == 3
