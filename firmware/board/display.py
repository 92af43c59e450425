# The seat's display as its pinout lists it (board/pinout.py): the SSD1306 on its I2C
# bus, set up, behind board/oled.py's Screen. Used by the ESP32 board and by the safe
# mode (seat/safe.py), which draws on it without building the whole board. Kept out of
# board/oled.py: a function more there held 1.8 KiB more after drawing in
# tests/firmware/test_bitfont.py's heap check.

from board.oled import Screen


def open_screen(p: "dict") -> "Screen | None":
    # The display the pinout `p` lists (board/pinout.py), set up and cleared; None when
    # it lists none, or when the display does not answer: it is optional, and a seat
    # built without it (or with it unplugged) runs on its ring alone.
    from board import pinout as pins

    if not pins.has(p, "display"):
        return None
    import machine

    from drivers.ssd1306 import SSD1306

    i2c = machine.I2C(pins.setting(p, "display", "i2c_id", 0),
                      sda=machine.Pin(pins.pin(p, "display", "sda")),
                      scl=machine.Pin(pins.pin(p, "display", "scl")),
                      freq=pins.setting(p, "display", "freq", 400000))
    display = SSD1306(i2c, pins.setting(p, "display", "width", 128),
                      pins.setting(p, "display", "height", 64),
                      pins.setting(p, "display", "address", 0x3C))
    try:
        display.init()
    except OSError as exc:
        from log import log

        log("no display:", repr(exc))
        return None
    return Screen(display)
