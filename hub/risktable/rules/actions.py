"""Typed actions: player decisions and chance outcomes.

Territories and cards are indices into the :class:`~risktable.rules.board.Board`;
players are seat indices ``0..n-1``. Chance actions carry what the physical
table observes (dice faces as rolled, which card was drawn) so a game record
is just the list of actions and replays deterministically.
"""

from __future__ import annotations

from typing import NamedTuple

from risktable.rules.values import value_type

# --- player decisions -------------------------------------------------------


@value_type
class Claim(NamedTuple):
    """Setup (``setup = claim``): put one army on an unclaimed territory."""

    territory: int


@value_type
class Place(NamedTuple):
    """Place armies on an own territory: 1 at a time in setup, any part of the pool in a turn."""

    territory: int
    armies: int = 1


@value_type
class Trade(NamedTuple):
    """Trade a set of three cards (sorted card indices).

    ``bonus`` names the pictured territory that receives the +2 armies when one
    of the cards shows a territory the player owns and the +2 is still
    available this turn; it must be ``None`` otherwise.
    """

    cards: tuple[int, int, int]
    bonus: int | None = None


@value_type
class Attack(NamedTuple):
    """Declare one roll from ``source`` against ``target`` with ``dice`` attack dice."""

    source: int
    target: int
    dice: int


@value_type
class Defend(NamedTuple):
    """The defender's choice of defence dice for the declared attack."""

    dice: int


@value_type
class Occupy(NamedTuple):
    """After a conquest: the total number of armies that move into the conquered territory."""

    armies: int


@value_type
class EndAttack(NamedTuple):
    """Stop attacking; go on to fortify."""


@value_type
class Fortify(NamedTuple):
    """Move ``armies`` from ``source`` to ``target`` (both own); ends the turn."""

    source: int
    target: int
    armies: int


@value_type
class EndTurn(NamedTuple):
    """Skip fortifying; end the turn."""


@value_type
class TradeStars(NamedTuple):
    """2016 deck: trade two or more cards (sorted card indices) for their total stars."""

    cards: tuple[int, ...]


@value_type
class ChooseCapital(NamedTuple):
    """``goal = capitals``: secretly choose one own territory as capital."""

    territory: int


@value_type
class Reroll(NamedTuple):
    """``reroll``: re-roll attack die ``die`` (its index in the roll as read)."""

    die: int


@value_type
class Commander(NamedTuple):
    """``commander``: turn attack die ``die`` into a 6 (once per turn)."""

    die: int


@value_type
class AcceptRoll(NamedTuple):
    """Let the roll count as it stands (no re-roll or commander, or no more)."""


# --- chance outcomes ----------------------------------------------------------


@value_type
class OpeningRoll(NamedTuple):
    """One die per contender for the first turn, in contender order (ties roll again)."""

    faces: tuple[int, ...]


@value_type
class Roll(NamedTuple):
    """Attack and defence dice faces as rolled (any order; each ordered tuple equally likely)."""

    attack: tuple[int, ...]
    defend: tuple[int, ...]


@value_type
class DealCard(NamedTuple):
    """``setup = deal``: the next territory card dealt (to ``State.player``)."""

    card: int


@value_type
class DrawCard(NamedTuple):
    """The card drawn at the end of a turn with a conquest (uniform over the draw pile)."""

    card: int


@value_type
class DealMission(NamedTuple):
    """``goal = missions``: the next mission card (index into ``decks.MISSIONS``), face down."""

    mission: int


@value_type
class RerollDie(NamedTuple):
    """The new face of the re-rolled die."""

    face: int


Action = (
    Claim | Place | Trade | Attack | Defend | Occupy | EndAttack | Fortify | EndTurn
    | TradeStars | ChooseCapital | Reroll | Commander | AcceptRoll
    | OpeningRoll | Roll | DealCard | DrawCard | DealMission | RerollDie
)
ChanceAction = OpeningRoll | Roll | DealCard | DrawCard | DealMission | RerollDie
CHANCE_TYPES: tuple[type, ...] = (OpeningRoll, Roll, DealCard, DrawCard, DealMission, RerollDie)
ACTION_TYPES: tuple[type, ...] = (
    Claim, Place, Trade, Attack, Defend, Occupy, EndAttack, Fortify, EndTurn,
    TradeStars, ChooseCapital, Reroll, Commander, AcceptRoll,
    OpeningRoll, Roll, DealCard, DrawCard, DealMission, RerollDie,
)
END_ATTACK = EndAttack()
END_TURN = EndTurn()
ACCEPT_ROLL = AcceptRoll()
