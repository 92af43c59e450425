"""Seat colours.

The six colours are chosen from the Okabe-Ito palette, which stays
distinguishable for the common forms of colour blindness, and are bright
enough to read on WS2812 LEDs at low brightness.
"""

from __future__ import annotations

from typing import NamedTuple


class SeatColour(NamedTuple):
    """A seat's display colour: a short name and its RGB value (0-255 each)."""

    name: str
    rgb: tuple[int, int, int]


SEAT_COLOURS: tuple[SeatColour, ...] = (
    SeatColour("orange", (230, 159, 0)),
    SeatColour("sky", (86, 180, 233)),
    SeatColour("green", (0, 158, 115)),
    SeatColour("yellow", (240, 228, 66)),
    SeatColour("blue", (0, 114, 178)),
    SeatColour("purple", (204, 121, 167)),
)

NEUTRAL = SeatColour("neutral", (200, 200, 200))


def seat_colour(seat: int) -> SeatColour:
    """Return the colour of seat ``seat`` (1-based).

    >>> seat_colour(1).name
    'orange'
    """
    if not 1 <= seat <= len(SEAT_COLOURS):
        raise ValueError(f"seat must be 1 to {len(SEAT_COLOURS)}, got {seat}")
    return SEAT_COLOURS[seat - 1]
