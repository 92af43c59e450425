# Piezo buzzer on a PWM pin: short cues played by a task.
#
# A cue is a tuple of (pitch, duration ms) steps, the pitch in thousandths of the
# buzzer's own tone (the pinout's freq); pitch 0 is a rest. A piezo is loud only near
# its resonance (the PS1240's rated point is 4 kHz, and it is faint below about 2 kHz),
# so every cue stays within 0.75 to 1.35 times that tone: 2.0 to 3.6 kHz at the seat's
# 2.7 kHz. play() only queues a cue (bounded; extra cues are dropped and counted, a cue
# already playing is never cut), and the task started with run() plays them,
# silencing the pin between steps and at the end.

import asyncio

from micropython import const

TYPE_CHECKING = False
if TYPE_CHECKING:
    from machine import PWM

_QUEUE = const(4)
_HALF_DUTY = const(32768)

_BASE_HZ = const(2700)

TAP = ((1250, 40),)
CONFIRM = ((1000, 60), (1333, 90))  # a rising fourth
ERROR = ((750, 120), (0, 60), (750, 180))  # the lowest pitch, twice
YOUR_TURN = ((1000, 80), (1125, 80), (1333, 140))
DICE = ((1000, 25), (0, 25), (1150, 25), (0, 25), (1300, 40))


class Buzzer:
    def __init__(self, pwm: "PWM", volume: int = _HALF_DUTY, base_hz: int = _BASE_HZ) -> None:
        self._pwm = pwm
        self.volume = volume
        self.base_hz = base_hz
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
                for pitch, ms in cue:
                    if pitch > 0:
                        pwm.freq(self.base_hz * pitch // 1000)
                        pwm.duty_u16(self.volume)
                    else:
                        pwm.duty_u16(0)
                    await asyncio.sleep_ms(ms)
            finally:
                pwm.duty_u16(0)
