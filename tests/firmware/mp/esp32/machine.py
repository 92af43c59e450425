# Stand-in for the ESP32 `machine` module on the unix port, enough to build the ESP32
# seat board (board/esp32.py): pins, SPI, PWM, and an I2C bus that is the fake SSD1306
# controller of tests/firmware/drivers/mpy/fakeoled.py. Created objects are kept in
# `made` so a test script can look at them.
from fakeoled import FakeOledBus

made = {}


class Pin:
    IN = 1
    OUT = 3
    PULL_UP = 1
    IRQ_FALLING = 1
    IRQ_RISING = 2

    def __init__(self, number, mode=-1, pull=-1):
        self.number = number
        self._level = 1 if pull == Pin.PULL_UP else 0

    def value(self, v=None):
        if v is None:
            return self._level
        self._level = v

    def irq(self, handler=None, trigger=0):
        return None


class SPI:
    def __init__(self, spi_id, baudrate=0, sck=None, mosi=None, miso=None):
        made["spi"] = self

    def write(self, tx):
        pass

    def write_readinto(self, tx, rx):
        for i in range(len(rx)):
            rx[i] = 0


class PWM:
    def __init__(self, pin):
        self.duty = 0
        made["pwm"] = self

    def duty_u16(self, value=None):
        if value is not None:
            self.duty = value
        return self.duty

    def freq(self, hz=None):
        return 0


class Encoder:
    # machine.Encoder (the ESP32's PCNT): the test sets the count with value(n).
    def __init__(self, unit, phase_a=None, phase_b=None, phases=1, filter_ns=0):
        self.unit = unit
        self.pins = (phase_a.number, phase_b.number)
        self.phases = phases
        self.filter_ns = filter_ns
        self.count = 0
        made["encoder"] = self

    def value(self, value=None):
        if value is not None:
            self.count = value
        return self.count


def I2C(bus_id, sda=None, scl=None, freq=400000):
    bus = FakeOledBus()
    made["i2c"] = bus
    return bus


# Reset causes (the values of the ESP32 port), the cause the next reset_cause() gives,
# the watchdog and reset(), recorded in `made`.
PWRON_RESET = 1
HARD_RESET = 2
WDT_RESET = 3
DEEPSLEEP_RESET = 4
SOFT_RESET = 5
cause = WDT_RESET


def reset_cause():
    return cause


class WDT:
    def __init__(self, id=0, timeout=5000):
        self.timeout = timeout
        self.feeds = 0
        made["wdt"] = self

    def feed(self):
        self.feeds += 1


def reset():
    made["reset"] = True
