"""Events: what happened, returned by :func:`~risktable.rules.engine.apply`.

The table layer turns these into LED animations, seat prompts and journal
entries; the rules never look at them again (state is a fold over actions).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class OpeningRolled:
    """Contenders rolled for the first turn; ``tied`` roll again when non-empty."""

    contenders: tuple[int, ...]
    faces: tuple[int, ...]
    tied: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class FirstPlayerChosen:
    player: int


@dataclass(frozen=True, slots=True)
class TerritoryClaimed:
    player: int
    territory: int


@dataclass(frozen=True, slots=True)
class CardDealt:
    player: int
    card: int


@dataclass(frozen=True, slots=True)
class ArmiesPlaced:
    player: int
    territory: int
    armies: int


@dataclass(frozen=True, slots=True)
class TurnStarted:
    """A turn began; ``armies`` = ``territory_armies`` + ``continent_armies``."""

    player: int
    turn: int
    armies: int
    territory_armies: int
    continent_armies: int


@dataclass(frozen=True, slots=True)
class CardsTraded:
    """A set was traded: ``armies`` to the pool, ``bonus`` armies onto ``bonus_territory``."""

    player: int
    cards: tuple[int, int, int]
    armies: int
    bonus_territory: int | None
    bonus: int


@dataclass(frozen=True, slots=True)
class AttackDeclared:
    player: int
    source: int
    target: int
    dice: int


@dataclass(frozen=True, slots=True)
class DefenceDeclared:
    player: int
    dice: int


@dataclass(frozen=True, slots=True)
class DiceRolled:
    attack: tuple[int, ...]
    defend: tuple[int, ...]
    attacker_losses: int
    defender_losses: int


@dataclass(frozen=True, slots=True)
class TerritoryConquered:
    """``moved`` armies (the minimum) went in at once; up to ``max_armies`` may follow."""

    player: int
    source: int
    target: int
    moved: int
    max_armies: int


@dataclass(frozen=True, slots=True)
class ArmiesMoved:
    """Armies moved between own territories (occupation beyond the minimum, or fortify)."""

    player: int
    source: int
    target: int
    armies: int


@dataclass(frozen=True, slots=True)
class PlayerEliminated:
    player: int
    by: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class AttackEnded:
    player: int


@dataclass(frozen=True, slots=True)
class TurnEnded:
    player: int


@dataclass(frozen=True, slots=True)
class DeckReshuffled:
    """The traded cards became the new draw pile."""

    cards: int


@dataclass(frozen=True, slots=True)
class CardDrawn:
    player: int
    card: int


@dataclass(frozen=True, slots=True)
class GameWon:
    player: int


Event = (
    OpeningRolled | FirstPlayerChosen | TerritoryClaimed | CardDealt | ArmiesPlaced | TurnStarted
    | CardsTraded | AttackDeclared | DefenceDeclared | DiceRolled | TerritoryConquered
    | ArmiesMoved | PlayerEliminated | AttackEnded | TurnEnded | DeckReshuffled | CardDrawn
    | GameWon
)
