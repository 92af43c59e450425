"""The LED scene: what every territory shows, computed from state by pure functions.

The same scene feeds the LED controller (later, over serial) and the terminal
renderer, so what a developer sees in the terminal is what the board shows.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from risktable.hardware.palette import NEUTRAL, seat_colour

RGB = tuple[int, int, int]
OFF: RGB = (0, 0, 0)
CURSOR: RGB = (255, 255, 255)

# Brightness rises with the army count so a glance shows where the stacks are;
# it saturates because a 20-army stack and a 40-army stack need no distinction.
_MIN_LEVEL = 0.25
_FULL_AT_ARMIES = 20


@dataclass(frozen=True)
class TerritoryLight:
    """One territory's light: colour, brightness 0..1, and whether it blinks."""

    rgb: RGB = OFF
    level: float = 0.0
    blink: bool = False
    label: str = ""

    def scaled(self) -> RGB:
        """The colour at this light's brightness, as sent to the LEDs."""
        r, g, b = self.rgb
        return (round(r * self.level), round(g * self.level), round(b * self.level))


Scene = Mapping[str, TerritoryLight]


def army_level(armies: int) -> float:
    """Brightness for a territory holding ``armies`` armies (0 armies: off)."""
    if armies <= 0:
        return 0.0
    return _MIN_LEVEL + (1.0 - _MIN_LEVEL) * min(armies, _FULL_AT_ARMIES) / _FULL_AT_ARMIES


def board_scene(
    owners: Mapping[str, int | None],
    armies: Mapping[str, int],
    *,
    highlight: frozenset[str] = frozenset(),
) -> dict[str, TerritoryLight]:
    """Scene of a board: each territory in its owner's colour, brighter with more armies.

    ``owners`` maps territory id to seat number (``None``: unclaimed, ``0``:
    neutral). Territories in ``highlight`` blink (cursor, legal targets).
    """
    return {territory: _light(owner, armies.get(territory, 0), territory in highlight)
            for territory, owner in owners.items()}


# A light depends on owner, army count and blink alone, and is immutable: the hub
# builds a scene after every input, on the worker that takes the next one, so the
# few hundred distinct lights of a game are made once each (42 territories per scene).
@lru_cache(maxsize=4096)
def _light(owner: int | None, count: int, blink: bool) -> TerritoryLight:
    if owner is None:
        # Unclaimed land is dark; a cursor on it must still be seen, so it blinks white.
        return TerritoryLight(rgb=CURSOR, level=_MIN_LEVEL, blink=True) if blink \
            else TerritoryLight()
    colour = NEUTRAL if owner == 0 else seat_colour(owner)
    return TerritoryLight(rgb=colour.rgb, level=army_level(count), blink=blink,
                          label=str(count))
