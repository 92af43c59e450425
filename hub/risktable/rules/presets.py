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

from risktable.rules.decks import PLACEHOLDER_STARS
from risktable.rules.options import Config, Options


@dataclass(frozen=True, slots=True)
class Preset:
    """A named rule set: options, allowed player counts, and where the rules come from."""

    name: str
    title: str
    players: tuple[int, ...]
    options: Options
    source: str


_2016 = {"deck": "2016", "card_values": "stars", "fortify": "connected",
         "occupy_min": "survivors"}

PRESETS: dict[str, Preset] = {p.name: p for p in (
    Preset("classic_1993", "Classic (1993), the default", (3, 4, 5, 6), Options(),
           "RULES.md 2; seeds 001, 002, 004"),
    Preset("two_player_1993", "Two players with a neutral army (1993)", (2,),
           Options(setup="deal", two_player="neutral_1993"), "RULES.md 3; seeds 002, 004"),
    Preset("two_player_1993_plain_50", "Two players, 50 armies each, no neutral (old variant)",
           (2,), Options(two_player="plain_50"), "RULES.md 3; seed 002"),
    Preset("capital_1993", "Capital Risk: take every enemy capital, hold your own", (3, 4, 5, 6),
           Options(goal="capitals"), "RULES.md 4; seed 004"),
    Preset("capital_1993_short", "Capital Risk, shorter goal (2 of 4, 3 of 5 or 6 capitals)",
           (3, 4, 5, 6), Options(goal="capitals", capitals_needed="short"),
           "RULES.md 4; seed 004"),
    Preset("mission_1993", "Secret Mission Risk (12 missions of the 1993 US deck)",
           (3, 4, 5, 6), Options(setup="deal", goal="missions"), "RULES.md 5; DESIGN.md 7"),
    Preset("master_1993", "Classic with every master variant: slow values, re-roll, commander",
           (3, 4, 5, 6), Options(card_values="slow", reroll="on", commander="on"),
           "RULES.md 6; seed 004"),
    Preset("beginner_2016", "2016 beginner game: first to 25/20/15 territories, ceasefire",
           (3, 4, 5), Options(**_2016, setup="stars", goal="territories",  # type: ignore[arg-type]
                              ceasefire="on"), "RULES.md 7; seed 000"),
    Preset("classic_2016", "2016 classic game", (3, 4, 5),
           Options(**_2016), "RULES.md 2; seed 000"),  # type: ignore[arg-type]
    Preset("two_player_2016", "2016 two-player game: three neutrals, first to 30 territories",
           (2,), Options(**_2016, setup="stars",  # type: ignore[arg-type]
                         two_player="neutral_2016", goal="territories"),
           "RULES.md 3; seed 000"),
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
