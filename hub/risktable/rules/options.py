"""Rule options named as in RULES.md, and the fixed facts of one game.

Every behaviour that differs between editions is an option here, never an
``if`` on an edition name elsewhere. Later rule sets (presets) are just
:class:`Options` values.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Literal, get_args, get_type_hints

from risktable.rules.board import Board, classic_board

Setup = Literal["claim", "deal", "stars"]
Fortify = Literal["adjacent", "connected"]
CardValues = Literal["standard", "slow", "fixed", "stars"]
OccupyMin = Literal["dice", "survivors"]
OnOff = Literal["off", "on"]

# The four options of the classic engine: a log header always names them.
_CLASSIC_KEYS = ("setup", "fortify", "card_values", "occupy_min")

# Starting armies per player count (RULES.md section 2).
STARTING_ARMIES: dict[int, int] = {3: 35, 4: 30, 5: 25, 6: 20}
# Two-player starting armies per seat, neutral included (RULES.md section 3).
TWO_PLAYER_ARMIES: dict[str, int] = {"neutral_1993": 40, "plain_50": 50}
NEUTRALS: dict[str, int] = {"off": 0, "neutral_1993": 1, "plain_50": 0, "neutral_2016": 3}
# goal = territories: territories to hold at the end of an own turn (RULES.md 3 and 7).
TERRITORY_GOAL: dict[int, int] = {2: 30, 3: 25, 4: 20, 5: 15}

# What each rules version changed (docs/rules-engine.md). A game keeps the version it
# started under, so a log or journal replays under the readings it was played by.
RULES_VERSIONS: dict[int, str] = {
    1: "capital cards stay in the draw pile; missions dealt without the destroy cards "
       "of colours not in play",
    2: "capital cards laid before their owners and handed to the captor; missions dealt "
       "from all 12 (14) cards",
}
RULES_VERSION = max(RULES_VERSIONS)


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
    deck: Literal["1993", "2016"] = "1993"
    two_player: Literal["off", "neutral_1993", "plain_50", "neutral_2016"] = "off"
    goal: Literal["conquest", "capitals", "missions", "territories"] = "conquest"
    capitals_needed: Literal["all", "short"] = "all"
    mission_target_lost: Literal["counts", "occupy_24"] = "counts"
    european_missions: OnOff = "off"
    reroll: OnOff = "off"
    commander: OnOff = "off"
    defence_dice: Literal["2", "3"] = "2"
    reinforce_min: Literal["3", "none"] = "3"
    traded_cards: Literal["reshuffle", "removed"] = "reshuffle"
    ceasefire: OnOff = "off"
    second_set: Literal["optional", "forced"] = "optional"

    # Each option's values are written once, in its type, and its default once, above:
    # _CHOICES (below the class) is read from them. The options added after the classic
    # four default to the classic behaviour, so old logs mean the same.

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
        """The options as a plain mapping (for logs and JSON).

        The four classic options always appear; a later option only when it is
        not at its default, so a classic game's log header is what it always was.
        """
        return {f.name: str(getattr(self, f.name)) for f in fields(self)
                if f.name in _CLASSIC_KEYS or getattr(self, f.name) != _CHOICES[f.name][0]}

    def full_dict(self) -> dict[str, str]:
        """Every option, defaults included."""
        return {f.name: str(getattr(self, f.name)) for f in fields(self)}

    def conflicts(self) -> list[str]:
        """Combinations that make no sense together (empty when the options are coherent)."""
        out = []
        stars_deck = self.deck == "2016"
        if stars_deck != (self.card_values == "stars"):
            out.append("card_values = stars goes with deck = 2016, and only with it")
        if self.setup == "stars" and not stars_deck:
            out.append("setup = stars needs deck = 2016 (stars are on the 2016 cards)")
        if self.ceasefire == "on" and not stars_deck:
            out.append("the ceasefire card is in the 2016 deck only")
        if self.two_player == "neutral_2016" and (not stars_deck or self.setup != "stars"):
            out.append("two_player = neutral_2016 needs deck = 2016 and setup = stars")
        if self.two_player == "neutral_1993" and self.setup != "deal":
            out.append("two_player = neutral_1993 deals the territories: it needs setup = deal")
        if self.goal == "missions" and (stars_deck or self.setup != "deal"):
            out.append("goal = missions uses the 1993 deck with setup = deal")
        if self.reroll == "on" and stars_deck:
            out.append("reroll reveals a 1993 territory card: it needs deck = 1993")
        if self.second_set == "forced" and stars_deck:
            out.append("second_set is about 1993 symbol sets: it needs deck = 1993")
        return out


def _choices() -> dict[str, tuple[str, ...]]:
    # Each option's values as its Literal type lists them, the default first.
    hints = get_type_hints(Options)
    out: dict[str, tuple[str, ...]] = {}
    for f in fields(Options):
        values: tuple[str, ...] = get_args(hints[f.name])
        default = str(f.default)
        out[f.name] = (default, *(v for v in values if v != default))
    return out


_CHOICES = _choices()


@dataclass(frozen=True, slots=True)
class Config:
    """What stays fixed for a whole game: player count, options, the board and the
    rules version (:data:`RULES_VERSIONS`; the current one unless a recorded game
    says otherwise)."""

    players: int
    options: Options = field(default_factory=Options)
    board: Board = field(default_factory=classic_board)
    # Stars (1 or 2) per territory card of a 2016 deck, in territory order. A
    # physical deck's stars come from card enrollment; self-play passes
    # :data:`risktable.rules.decks.PLACEHOLDER_STARS`, which is labelled as such.
    stars: tuple[int, ...] | None = None
    rules: int = RULES_VERSION
    # Derived once, because handlers on the hot path consult them.
    neutrals: int = field(init=False, compare=False, repr=False)
    seats: int = field(init=False, compare=False, repr=False)
    modifiers: bool = field(init=False, compare=False, repr=False)  # reroll or commander
    missions: bool = field(init=False, compare=False, repr=False)   # goal = missions

    def __post_init__(self) -> None:
        o = self.options
        if self.rules not in RULES_VERSIONS:
            raise ValueError(f"rules version {self.rules!r} is unknown to this engine "
                             f"(it plays versions 1 to {RULES_VERSION})")
        if o.two_player == "off":
            if self.players not in STARTING_ARMIES:
                raise ValueError(f"the classic game is for 3 to 6 players, not {self.players}")
        elif self.players != 2:
            raise ValueError(f"two_player = {o.two_player} is for 2 players, not {self.players}")
        if o.deck == "2016" and self.players > 5:
            raise ValueError(f"the 2016 edition is for 2 to 5 players, not {self.players}")
        if o.goal == "missions" and self.players < 3:
            raise ValueError("secret missions are for 3 to 6 players")
        problems = o.conflicts()
        if problems:
            raise ValueError("; ".join(problems))
        if o.deck == "2016":
            if self.stars is None:
                raise ValueError("a 2016 deck needs its stars per card (card enrollment, or "
                                 "decks.PLACEHOLDER_STARS for self-play)")
            if len(self.stars) != self.board.size or not set(self.stars) <= {1, 2}:
                raise ValueError(f"stars must be 1 or 2 for each of {self.board.size} cards")
        elif self.stars is not None:
            raise ValueError("stars belong to the 2016 deck only")
        neutrals = NEUTRALS[o.two_player]
        object.__setattr__(self, "neutrals", neutrals)
        object.__setattr__(self, "seats", self.players + neutrals)
        object.__setattr__(self, "modifiers", o.reroll == "on" or o.commander == "on")
        object.__setattr__(self, "missions", o.goal == "missions")

    @property
    def starting_armies(self) -> int:
        """Armies each seat (neutral included) places during setup; 0 when stars decide."""
        if self.options.setup == "stars":
            return 0
        if self.players == 2:
            return TWO_PLAYER_ARMIES[self.options.two_player]
        return STARTING_ARMIES[self.players]

    @property
    def territory_goal(self) -> int:
        """``goal = territories``: how many to hold at the end of an own turn."""
        return TERRITORY_GOAL[self.players]
