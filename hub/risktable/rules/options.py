"""Rule options named as in RULES.md, and the fixed facts of one game.

Every behaviour that differs between editions is an option here, never an
``if`` on an edition name elsewhere. Later rule sets (presets) are just
:class:`Options` values.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Literal

from risktable.rules.board import Board, classic_board

Setup = Literal["claim", "deal"]
Fortify = Literal["adjacent", "connected"]
CardValues = Literal["standard", "slow"]
OccupyMin = Literal["dice", "survivors"]

_CHOICES: dict[str, tuple[str, ...]] = {
    "setup": ("claim", "deal"),
    "fortify": ("adjacent", "connected"),
    "card_values": ("standard", "slow"),
    "occupy_min": ("dice", "survivors"),
}

# Starting armies per player count (RULES.md section 2).
STARTING_ARMIES: dict[int, int] = {3: 35, 4: 30, 5: 25, 6: 20}


@dataclass(frozen=True, slots=True)
class Options:
    """The classic game's options, with RULES.md defaults (1993 classic rules).

    >>> Options(fortify="connected").fortify
    'connected'
    """

    setup: Setup = "claim"
    fortify: Fortify = "adjacent"
    card_values: CardValues = "standard"
    occupy_min: OccupyMin = "dice"

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if value not in _CHOICES[f.name]:
                raise ValueError(
                    f"option {f.name} must be one of {', '.join(_CHOICES[f.name])}, not {value!r}"
                )

    @staticmethod
    def choices() -> dict[str, tuple[str, ...]]:
        """Each option's name and its allowed values, default first."""
        return dict(_CHOICES)

    def as_dict(self) -> dict[str, str]:
        """The options as a plain mapping (for logs and JSON)."""
        return {f.name: str(getattr(self, f.name)) for f in fields(self)}


@dataclass(frozen=True, slots=True)
class Config:
    """What stays fixed for a whole game: player count, options and the board."""

    players: int
    options: Options = field(default_factory=Options)
    board: Board = field(default_factory=classic_board)

    def __post_init__(self) -> None:
        if self.players not in STARTING_ARMIES:
            raise ValueError(f"the classic game is for 3 to 6 players, not {self.players}")

    @property
    def starting_armies(self) -> int:
        """Armies each player places during setup."""
        return STARTING_ARMIES[self.players]
