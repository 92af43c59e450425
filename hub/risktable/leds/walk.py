"""The wiring check: light the territories one at a time, in the order the data line meets them.

A builder who has just soldered the LED board runs ``risktable leds test``
and watches one territory light after another, in chain order, while the
terminal names it. The first territory that stays dark, or lights in the
wrong place, shows where the chain or the LED map is wrong.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from risktable.hardware.data import LedMap
from risktable.leds.scene import Scene, TerritoryLight

__all__ = ["CHECK_LIGHT", "ChainStep", "chain_steps", "lit_alone"]

# White shows every colour channel of every LED at once (a dead red die in a
# pixel shows as cyan); half brightness keeps a bench supply comfortable.
CHECK_LIGHT = TerritoryLight(rgb=(255, 255, 255), level=0.5)


@dataclass(frozen=True)
class ChainStep:
    """One step of the walk: the territory lit alone, where it sits in the chain."""

    position: int  # 1-based place along the data line
    total: int
    territory: str
    name: str
    leds: tuple[int, ...]

    def line(self) -> str:
        """What the terminal shows for this step."""
        first, last = self.leds[0], self.leds[-1]
        where = f"LED {first}" if first == last else f"LEDs {first}-{last}"
        return f"[{self.position:>2}/{self.total}] {self.name} ({self.territory}): {where}"


def chain_steps(led_map: LedMap, names: dict[str, str], start: str | None = None
                ) -> Iterator[ChainStep]:
    """The territories of ``led_map`` in chain order, from ``start`` (a territory id) on.

    ``names`` maps territory ids to display names (an id missing there is shown as
    itself). Raises ``KeyError`` naming the id when ``start`` is not on the board.
    """
    chain = led_map.chain()
    if start is not None and start not in chain:
        raise KeyError(start)
    first = chain.index(start) if start is not None else 0
    for position, territory in enumerate(chain[first:], start=first + 1):
        leds = tuple(sorted(led_map.territories[territory].leds))
        yield ChainStep(position, len(chain), territory, names.get(territory, territory), leds)


def lit_alone(territory: str) -> Scene:
    """A scene with ``territory`` lit and every other territory dark."""
    return {territory: CHECK_LIGHT}
