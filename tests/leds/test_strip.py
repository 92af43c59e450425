"""Scenes laid out along the LED chain, and the current budget."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from risktable.hardware.data import TERRITORY_IDS, LedMap
from risktable.leds.frames import NO_CAP
from risktable.leds.scene import TerritoryLight
from risktable.leds.strip import channel_cap, strip_image


def led_current_ma(led_map: LedMap, rgb: bytes) -> float:
    # Computed per LED here, independently of LedMap.current_ma's per-territory sum.
    e = led_map.electrical
    return sum(rgb) / 255 * e.ma_per_channel + led_map.led_count * e.idle_ma_per_led


def test_each_territory_lights_its_own_leds(led_map: LedMap) -> None:
    scene = {"brazil": TerritoryLight((10, 20, 30), 1.0, blink=True),
             "japan": TerritoryLight((200, 100, 50), 0.5)}
    image = strip_image(scene, led_map)
    assert image.scale == 1.0
    for led in range(led_map.led_count):
        colour = tuple(image.rgb[3 * led : 3 * led + 3])
        blinks = bool(image.blink[led // 8] >> (led % 8) & 1)
        if led in led_map.territories["brazil"].leds:
            assert colour == (10, 20, 30) and blinks
        elif led in led_map.territories["japan"].leds:
            assert colour == (100, 50, 25) and not blinks
        else:
            assert colour == (0, 0, 0) and not blinks


def test_full_white_board_is_scaled_into_the_budget(led_map: LedMap) -> None:
    white = {t: TerritoryLight((255, 255, 255), 1.0) for t in TERRITORY_IDS}
    assert led_map.current_ma({t: (255, 255, 255) for t in TERRITORY_IDS}) > \
        led_map.electrical.budget_ma
    image = strip_image(white, led_map)
    assert image.scale < 1.0
    drawn = led_current_ma(led_map, image.rgb)
    assert drawn <= led_map.electrical.budget_ma
    # Scaled down, not blacked out: within one step per channel of the budget.
    assert drawn > led_map.electrical.budget_ma - 3 * led_map.led_count * 20 / 255
    assert len(set(image.rgb)) == 1


@settings(max_examples=60)
@given(st.dictionaries(st.sampled_from(TERRITORY_IDS),
                       st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255),
                                 st.floats(0, 1))))
def test_any_scene_stays_within_budget(
        lights: dict[str, tuple[int, int, int, float]]) -> None:
    from risktable.hardware.data import load_led_map

    led_map = load_led_map()
    scene = {t: TerritoryLight((r, g, b), level) for t, (r, g, b, level) in lights.items()}
    image = strip_image(scene, led_map)
    assert led_current_ma(led_map, image.rgb) <= led_map.electrical.budget_ma + 1e-9
    assert sum(image.rgb) <= channel_cap(led_map)
    if image.scale == 1.0:
        for territory, light in scene.items():
            led = led_map.territories[territory].leds[0]
            assert tuple(image.rgb[3 * led : 3 * led + 3]) == light.scaled()


def test_channel_cap_follows_the_budget(led_map: LedMap) -> None:
    e = led_map.electrical
    cap = channel_cap(led_map)
    # The cap's worth of channel current plus idle current fits; one more step would not.
    assert cap / 255 * e.ma_per_channel + led_map.led_count * e.idle_ma_per_led <= e.budget_ma
    assert (cap + 1) / 255 * e.ma_per_channel + led_map.led_count * e.idle_ma_per_led > e.budget_ma
    huge = dataclasses.replace(led_map, electrical=dataclasses.replace(e, budget_ma=1e6))
    assert channel_cap(huge) == NO_CAP
    tiny = dataclasses.replace(led_map, electrical=dataclasses.replace(e, budget_ma=10))
    assert channel_cap(tiny) == 0
