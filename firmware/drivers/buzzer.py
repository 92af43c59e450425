# Piezo buzzer on a PWM pin: short cues played by a task.
#
# A cue is a tuple of (frequency Hz, duration ms) steps; frequency 0 is a rest.
# play() only queues a cue (bounded; extra cues are dropped and counted, a cue
# already playing is never cut), and the task started with run() plays them,
# silencing the pin between steps and at the end.

import asyncio

from micropython import const

TYPE_CHECKING = False
if TYPE_CHECKING:
    from machine import PWM

_QUEUE = const(4)
_HALF_DUTY = const(32768)

TAP = ((2000, 40),)
CONFIRM = ((1318, 60), (1760, 90))
ERROR = ((220, 120), (0, 60), (220, 180))
YOUR_TURN = ((880, 80), (1175, 80), (1568, 140))
DICE = ((1200, 25), (0, 25), (1500, 25), (0, 25), (1800, 40))


class Buzzer:
    def __init__(self, pwm: "PWM", volume: int = _HALF_DUTY) -> None:
        self._pwm = pwm
        self.volume = volume
        self._queue: "list[tuple[tuple[int, int], ...]]" = []
        self.drops = 0
        self._flag = asyncio.ThreadSafeFlag()
        pwm.duty_u16(0)

    def play(self, cue: "tuple[tuple[int, int], ...]") -> None:
        if len(self._queue) >= _QUEUE:
            self.drops += 1
            return
        self._queue.append(cue)
        self._flag.set()

    async def run(self) -> None:
        pwm = self._pwm
        while True:
            while not self._queue:
                await self._flag.wait()
            cue = self._queue.pop(0)
            try:
                for freq, ms in cue:
                    if freq > 0:
                        pwm.freq(freq)
                        pwm.duty_u16(self.volume)
                    else:
                        pwm.duty_u16(0)
                    await asyncio.sleep_ms(ms)
            finally:
                pwm.duty_u16(0)
