# Test doubles for the MicroPython driver tests: a Pin with the machine.Pin subset
# the drivers use, whose level the test script sets and whose interrupt handler
# fires on matching edges, and a hand-advanced millisecond clock.


class FakePin:
    IRQ_FALLING = 1
    IRQ_RISING = 2

    def __init__(self, level=0):
        self._level = level
        self._handler = None
        self._trigger = 0

    def value(self, v=None):
        if v is None:
            return self._level
        self.set(v)

    def __call__(self, v=None):
        return self.value(v)

    def irq(self, handler=None, trigger=3):
        self._handler = handler
        self._trigger = trigger

    def set(self, v):
        v = 1 if v else 0
        if v == self._level:
            return
        self._level = v
        edge = self.IRQ_RISING if v else self.IRQ_FALLING
        if self._handler is not None and self._trigger & edge:
            self._handler(self)


class FakeClock:
    def __init__(self, start=0):
        self.now = start

    def __call__(self):
        return self.now

    def advance(self, ms):
        self.now += ms
