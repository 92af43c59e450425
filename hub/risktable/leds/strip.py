"""A scene laid out along the LED chain, within the board's current budget.

The controller knows nothing of territories: the hub turns a scene into one
colour per LED (through ``hardware/led-map.json``) and a blink bit per LED,
and scales the whole image down when it would draw more current than the
board's ``electrical.budget_ma`` allows.

>>> from risktable.hardware.data import load_led_map
>>> from risktable.leds.scene import TerritoryLight
>>> board = load_led_map()
>>> image = strip_image({"alaska": TerritoryLight((255, 0, 0), 1.0, blink=True)}, board)
>>> image.rgb[:6].hex(" "), image.blink[0], image.scale
('ff 00 00 ff 00 00', 3, 1.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from risktable.hardware.data import LedMap
from risktable.leds.frames import NO_CAP
from risktable.leds.scene import Scene


@dataclass(frozen=True)
class StripImage:
    """R, G, B bytes for every LED in chain order, the blink bit set, and the budget scale."""

    rgb: bytes
    blink: bytes
    scale: float


def strip_image(scene: Scene, led_map: LedMap) -> StripImage:
    """The scene as the LED chain shows it, scaled down to the current budget if needed.

    Territories missing from the scene are dark. ``scale`` is 1.0 unless
    the budget forced the image dimmer.
    """
    count = led_map.led_count
    rgb = bytearray(3 * count)
    blink = bytearray((count + 7) // 8)
    for territory, place in led_map.territories.items():
        light = scene.get(territory)
        if light is None:
            continue
        colour = bytes(light.scaled())
        for led in place.leds:
            rgb[3 * led : 3 * led + 3] = colour
            if light.blink:
                blink[led // 8] |= 1 << (led % 8)
    scale = budget_scale(led_map, sum(rgb))
    if scale < 1.0:
        # Rounding down keeps the scaled image within the budget.
        rgb = bytearray(math.floor(value * scale) for value in rgb)
    return StripImage(bytes(rgb), bytes(blink), scale)


def budget_scale(led_map: LedMap, channel_sum: int) -> float:
    """Factor that brings an image whose channels sum to ``channel_sum`` within budget."""
    allowed = _channel_allowance(led_map)
    if channel_sum <= allowed:
        return 1.0
    return allowed / channel_sum


def channel_cap(led_map: LedMap) -> int:
    """The largest sum of all channel values (0-255 each) the budget allows.

    The LIMIT frame carries it so the controller enforces the same budget on
    whatever it shows by itself.
    """
    # A budget above what the field can say is no limit at all for the controller.
    return min(NO_CAP, math.floor(_channel_allowance(led_map)))


def _channel_allowance(led_map: LedMap) -> float:
    # Every LED draws its idle current whatever it shows; the rest of the
    # budget is shared by the channels, each drawing in proportion to its value.
    e = led_map.electrical
    spare_ma = e.budget_ma - led_map.led_count * e.idle_ma_per_led
    return max(0.0, spare_ma / e.ma_per_channel * 255)
