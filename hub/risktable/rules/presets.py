"""Rule sets as named presets: each is only a value of :class:`Options` and its player counts.

The table owner picks one when a game starts; any option may still be set on
its own for house rules (``Options(**{**preset.options.full_dict(), ...})``).

>>> [p.name for p in PRESETS.values()][:3]
['classic_1993', 'two_player_1993', 'two_player_1993_plain_50']
>>> preset_config("beginner_2016", 4).options.goal
'territories'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from risktable.rules.decks import PLACEHOLDER_STARS
from risktable.rules.options import Config, Options


@dataclass(frozen=True, slots=True)
class Preset:
    """A named rule set: options, allowed player counts, and the rule books it follows."""

    name: str
    title: str
    players: tuple[int, ...]
    options: Options
    source: str


# The rule books the rule sets follow, by title, edition and language (the texts the
# project was written from; docs/variants.md cites their sections).
BOOK_1993 = "Risk rule book, Parker Brothers, 1993 edition (Turkish text)"
BOOK_2016 = "Risk complete rule book, Hasbro, 2016 edition (Persian text)"
BOOK_RO = "Risk board game rules and FAQ, classic game (Romanian text)"
BOOK_PT = "Risk rules summary, classic game (Portuguese text)"


class Reading(NamedTuple):
    """One value of an option that exists because two rule books disagree."""

    option: str
    value: str
    source: str
    says: str


# Where the books disagree, each reading is an option value; the first is the default.
READINGS: tuple[Reading, ...] = (
    Reading("second_set", "optional", f"{BOOK_1993}, Cards and trading sets",
            "with 5 or 6 cards at the start of a turn, at least one set is traded"),
    Reading("second_set", "forced", f"{BOOK_RO}, Cards",
            "with 5 or 6 cards, the second set is traded too when the six make two"),
    Reading("mission_target_lost", "counts", f"{BOOK_1993}, Secret Mission Risk",
            "a destroy mission is met when someone else removes the colour"),
    Reading("mission_target_lost", "occupy_24", "the 1993 mission card's own wording",
            "the card then becomes occupy 24 territories"),
)

_2016 = {"deck": "2016", "card_values": "stars", "fortify": "connected",
         "occupy_min": "survivors"}

PRESETS: dict[str, Preset] = {p.name: p for p in (
    Preset("classic_1993", "Classic (1993), the default", (3, 4, 5, 6), Options(),
           f"{BOOK_1993}; {BOOK_RO}; {BOOK_PT}"),
    Preset("two_player_1993", "Two players with a neutral army (1993)", (2,),
           Options(setup="deal", two_player="neutral_1993"), f"{BOOK_1993}; {BOOK_RO}"),
    Preset("two_player_1993_plain_50", "Two players, 50 armies each, no neutral (old variant)",
           (2,), Options(two_player="plain_50"), BOOK_RO),
    Preset("capital_1993", "Capital Risk: take every enemy capital, hold your own", (3, 4, 5, 6),
           Options(goal="capitals"), BOOK_1993),
    Preset("capital_1993_short", "Capital Risk, shorter goal (2 of 4, 3 of 5 or 6 capitals)",
           (3, 4, 5, 6), Options(goal="capitals", capitals_needed="short"), BOOK_1993),
    Preset("mission_1993", "Secret Mission Risk (12 missions of the 1993 US deck)",
           (3, 4, 5, 6), Options(setup="deal", goal="missions"),
           f"{BOOK_1993}; the 1993 US mission cards"),
    Preset("master_1993", "Classic with every master variant: slow values, re-roll, commander",
           (3, 4, 5, 6), Options(card_values="slow", reroll="on", commander="on"), BOOK_1993),
    Preset("beginner_2016", "2016 beginner game: first to 25/20/15 territories, ceasefire",
           (3, 4, 5), Options(**_2016, setup="stars", goal="territories",  # type: ignore[arg-type]
                              ceasefire="on"), BOOK_2016),
    Preset("classic_2016", "2016 classic game", (3, 4, 5),
           Options(**_2016), BOOK_2016),  # type: ignore[arg-type]
    Preset("two_player_2016", "2016 two-player game: three neutrals, first to 30 territories",
           (2,), Options(**_2016, setup="stars",  # type: ignore[arg-type]
                         two_player="neutral_2016", goal="territories"), BOOK_2016),
)}


def preset_config(name: str, players: int, stars: tuple[int, ...] | None = None) -> Config:
    """A game config for preset ``name``; ``ValueError`` for an unknown preset or player count.

    A 2016 preset needs the deck's stars per card: pass the enrolled deck's, or
    leave ``stars`` out to play with :data:`~risktable.rules.decks.PLACEHOLDER_STARS`
    (self-play and tests only; it is not the printed deck).
    """
    preset = PRESETS.get(name)
    if preset is None:
        raise ValueError(f"unknown rule set {name!r}; known: {', '.join(PRESETS)}")
    if players not in preset.players:
        counts = ", ".join(str(n) for n in preset.players)
        raise ValueError(f"{name} is for {counts} players, not {players}")
    if preset.options.deck == "2016" and stars is None:
        stars = PLACEHOLDER_STARS
    return Config(players, preset.options, stars=stars)
