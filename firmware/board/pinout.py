# The seat's pin assignment, read from hardware/seat-pinout.json (copied next to the
# config by `risktable seat build`). The ESP32 board looks pins up by device and name:
#   led_ring.data                 WS2812 data
#   encoder.a, encoder.b, encoder.switch
#   confirm_button.input, back_button.input, roll_button.input
#   nfc_reader.{sck, mosi, miso, cs, rst}    settings spi_id, baudrate
#   display.{sda, scl}            settings i2c_id, address, width, height, freq
#   buzzer.pwm
# A missing pin is an error that names it; a missing setting takes the default given.

import json


class PinoutError(ValueError):
    pass


def beside(config_path, name):
    # `name` relative to the folder holding the config file.
    cut = config_path.rfind("/")
    return name if cut < 0 or name.startswith("/") else config_path[: cut + 1] + name


def load(path):
    try:
        with open(path) as f:
            data = json.loads(f.read())
    except (OSError, ValueError) as exc:
        raise PinoutError("cannot read pinout %s: %r" % (path, exc))
    if not isinstance(data, dict) or not isinstance(data.get("devices"), dict):
        raise PinoutError("pinout %s has no devices" % path)
    return data


def pin(pinout, device, name):
    try:
        value = pinout["devices"][device]["pins"][name]
    except (KeyError, TypeError):
        raise PinoutError("pinout has no pin %s.%s" % (device, name))
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise PinoutError("pin %s.%s must be a GPIO number" % (device, name))
    return value


def has(pinout, device):
    return device in pinout["devices"]


def setting(pinout, device, key, default):
    dev = pinout["devices"].get(device) or {}
    return (dev.get("settings") or {}).get(key, default)
