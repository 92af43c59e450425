# Fake pins with the subset of machine.Pin the drivers use, for the emulated board and
# for tests: value(), value(v), calling the pin, irq(handler, trigger), IRQ_RISING and
# IRQ_FALLING. Setting a value runs the handler on a matching edge, the way a pin
# interrupt would, so drivers written for the ESP32 run unchanged on the unix port.


class Pin:
    IN = 1
    OUT = 3
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_RISING = 1
    IRQ_FALLING = 2

    def __init__(self, id=None, mode=-1, pull=-1, value=None):
        self.id = id
        self._value = 1 if pull == Pin.PULL_UP else 0
        if value is not None:
            self._value = 1 if value else 0
        self._handler = None
        self._trigger = 0

    def value(self, v=None):
        if v is None:
            return self._value
        old = self._value
        self._value = 1 if v else 0
        handler = self._handler
        if handler is not None and old != self._value:
            edge = Pin.IRQ_RISING if self._value else Pin.IRQ_FALLING
            if self._trigger & edge:
                handler(self)
        return None

    def __call__(self, v=None):
        return self.value(v)

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)

    def irq(self, handler=None, trigger=3):
        self._handler = handler
        self._trigger = trigger
        return None
