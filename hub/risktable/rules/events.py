"""Events: what happened, returned by :func:`~risktable.rules.engine.apply`.

The table layer turns these into LED animations, seat prompts and journal
entries; the rules never look at them again (state is a fold over actions).
"""

from __future__ import annotations

from typing import NamedTuple

from risktable.rules.values import value_type


@value_type
class OpeningRolled(NamedTuple):
    """Contenders rolled for the first turn; ``tied`` roll again when non-empty."""

    contenders: tuple[int, ...]
    faces: tuple[int, ...]
    tied: tuple[int, ...]


@value_type
class FirstPlayerChosen(NamedTuple):
    """The opening roll is decided: ``player`` claims (or is dealt) first and plays first."""

    player: int


@value_type
class TerritoryClaimed(NamedTuple):
    """``player`` now occupies ``territory`` with one army (a claim or a dealt card)."""

    player: int
    territory: int


@value_type
class CardDealt(NamedTuple):
    """``setup = deal``: ``card`` went to ``player``."""

    player: int
    card: int


@value_type
class ArmiesPlaced(NamedTuple):
    """``armies`` new armies went onto ``territory`` (setup, reinforcement or the +2 bonus)."""

    player: int
    territory: int
    armies: int


@value_type
class TurnStarted(NamedTuple):
    """A turn began; ``armies`` = ``territory_armies`` + ``continent_armies``."""

    player: int
    turn: int
    armies: int
    territory_armies: int
    continent_armies: int


@value_type
class CardsTraded(NamedTuple):
    """A set was traded: ``armies`` to the pool, ``bonus`` armies onto ``bonus_territory``."""

    player: int
    cards: tuple[int, ...]
    armies: int
    bonus_territory: int | None
    bonus: int


@value_type
class AttackDeclared(NamedTuple):
    """``player`` attacks ``target`` from ``source`` with ``dice`` dice."""

    player: int
    source: int
    target: int
    dice: int


@value_type
class DefenceDeclared(NamedTuple):
    """The defender ``player`` rolls ``dice`` dice."""

    player: int
    dice: int


@value_type
class DiceRolled(NamedTuple):
    """The faces as rolled and what they cost each side."""

    attack: tuple[int, ...]
    defend: tuple[int, ...]
    attacker_losses: int
    defender_losses: int


@value_type
class TerritoryConquered(NamedTuple):
    """``moved`` armies (the minimum) went in at once; up to ``max_armies`` may follow."""

    player: int
    source: int
    target: int
    moved: int
    max_armies: int


@value_type
class ArmiesMoved(NamedTuple):
    """Armies moved between own territories (occupation beyond the minimum, or fortify)."""

    player: int
    source: int
    target: int
    armies: int


@value_type
class PlayerEliminated(NamedTuple):
    """``player`` lost their last territory; their ``cards`` went to ``by``."""

    player: int
    by: int
    cards: tuple[int, ...]


@value_type
class AttackEnded(NamedTuple):
    """``player`` stopped attacking."""

    player: int


@value_type
class TurnEnded(NamedTuple):
    """``player``'s turn is over (a card draw may follow)."""

    player: int


@value_type
class DeckReshuffled(NamedTuple):
    """The traded cards became the new draw pile."""

    cards: int


@value_type
class CardDrawn(NamedTuple):
    """``player`` drew ``card`` for this turn's conquest."""

    player: int
    card: int


@value_type
class GameWon(NamedTuple):
    """``player`` won by the game's goal (all territories, capitals, a mission, ...)."""

    player: int


@value_type
class MissionDealt(NamedTuple):
    """A mission card went face down to ``player`` (which one is in the state, secret)."""

    player: int


@value_type
class CapitalChosen(NamedTuple):
    """``player`` has chosen a capital (which one stays secret until all are revealed)."""

    player: int


@value_type
class CapitalsRevealed(NamedTuple):
    """Every player's capital, revealed together (territory per player)."""

    capitals: tuple[int, ...]


@value_type
class CapitalCaptured(NamedTuple):
    """``player`` took the capital of ``owner`` in ``territory`` (a player taking back
    their own capital is ``owner`` too)."""

    player: int
    owner: int
    territory: int


@value_type
class CapitalCardLaid(NamedTuple):
    """Rules version 2: ``card``, the card of ``player``'s capital, leaves the draw pile
    and lies face down before them; it is never drawn."""

    player: int
    card: int


@value_type
class CapitalCardPassed(NamedTuple):
    """Rules version 2: ``owner``'s capital card passed to the captor ``player``'s hand."""

    owner: int
    player: int
    card: int


@value_type
class CardSetAside(NamedTuple):
    """Two-player 2016: a card set aside face down for neutral seat ``neutral``."""

    neutral: int


@value_type
class RollChanged(NamedTuple):
    """The attacker re-rolled (``how = "reroll"``) or set to 6 (``"commander"``) die ``die``."""

    player: int
    how: str
    die: int
    face: int


@value_type
class RollHeld(NamedTuple):
    """The dice as rolled, held while the attacker may re-roll or use the commander."""

    player: int
    attack: tuple[int, ...]
    defend: tuple[int, ...]


@value_type
class CeasefireDrawn(NamedTuple):
    """The 2016 ceasefire card came up: the game ends at once."""

    player: int


@value_type
class MissionCompleted(NamedTuple):
    """``player`` met mission ``mission`` (index into ``decks.MISSIONS``) and reveals it."""

    player: int
    mission: int


@value_type
class GameDrawn(NamedTuple):
    """The ceasefire left ``players`` level on territories and armies: they share the win."""

    players: tuple[int, ...]


Event = (
    OpeningRolled | FirstPlayerChosen | TerritoryClaimed | CardDealt | ArmiesPlaced | TurnStarted
    | CardsTraded | AttackDeclared | DefenceDeclared | DiceRolled | TerritoryConquered
    | ArmiesMoved | PlayerEliminated | AttackEnded | TurnEnded | DeckReshuffled | CardDrawn
    | GameWon | MissionDealt | CapitalChosen | CapitalsRevealed | CapitalCaptured
    | CapitalCardLaid | CapitalCardPassed
    | CardSetAside | RollHeld | RollChanged | CeasefireDrawn | MissionCompleted | GameDrawn
)
