"""Which rules a table's game is played by: a named rule set, its seat count and house rules.

The configuration file, ``risktable games new`` and the demo all name a game the
same way: a rule set of ``risktable rules presets`` (``classic`` is the 1993
classic game), a player count, and house rules, each an option of
:class:`~risktable.rules.options.Options` set to one of its values. Every
mistake is one line naming the option and what it may be.

>>> rules_config("classic", 4, {"defence_dice": "3"}).options.defence_dice
'3'
>>> default_seats("two_player_2016")
2
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from risktable.defaults import DEFAULT_SEATS
from risktable.rules import Config
from risktable.rules.options import Options
from risktable.rules.presets import PRESETS, preset_config

# Names a rule set may be given by besides its preset's own.
ALIASES = {"classic": "classic_1993"}
# Every name the configuration, ``games new`` and the demo take for a rule set.
RULE_SETS: tuple[str, ...] = (*ALIASES, *PRESETS)


class RulesUnknown(ValueError):
    """The rule set, its player count or a house rule is not one this hub can play."""


def preset_name(name: str) -> str:
    """The preset a rule set name stands for (``classic`` is ``classic_1993``)."""
    return ALIASES.get(name, name)


def default_seats(name: str) -> int:
    """Seats a table plays rule set ``name`` with when none are given: the rule set's
    only player count (two for the two-player sets), else :data:`DEFAULT_SEATS`."""
    preset = PRESETS.get(preset_name(name))
    if preset is not None and len(preset.players) == 1:
        return preset.players[0]
    return DEFAULT_SEATS


def seats_allowed(name: str) -> tuple[int, ...]:
    """The player counts rule set ``name`` is played with (all when it is unknown here:
    :func:`rules_config` says why it cannot start)."""
    preset = PRESETS.get(preset_name(name))
    return preset.players if preset is not None else ()


def seats_for(name: str, table_seats: int) -> int:
    """Seats a game of rule set ``name`` takes when none are given at a table of
    ``table_seats``: the table's own count when the rule set allows it, else
    :func:`default_seats`.

    >>> seats_for("capital_1993", 3), seats_for("two_player_1993", 3)
    (3, 2)
    """
    return table_seats if table_seats in seats_allowed(name) else default_seats(name)


def too_many_seats(name: str, seats: int, served: int) -> str:
    """Why a game of rule set ``name`` for ``seats`` players cannot start on a hub that
    serves ``served`` seats, and the shortest fix first.

    >>> too_many_seats("classic", 5, 3).split(" (")[0]
    'this hub serves seats 1 to 3: games new --seats 3 plays classic here'
    """
    fewer = [n for n in seats_allowed(name) if n <= served]
    later = f"set [table] seats = {seats} in the hub configuration and restart the hub"
    if not fewer:
        return f"this hub serves seats 1 to {served}; for {seats} seats {later}"
    return (f"this hub serves seats 1 to {served}: games new --seats {max(fewer)} plays "
            f"{name} here (for {seats} seats, {later})")


def house_rules(pairs: Mapping[str, object]) -> dict[str, str]:
    """Check house rules ``{option: value}``; values may be numbers (``defence_dice = 3``).

    >>> house_rules({"defence_dice": 3})
    {'defence_dice': '3'}
    """
    choices = Options.choices()
    out: dict[str, str] = {}
    for option, raw in pairs.items():
        if option not in choices:
            raise RulesUnknown(f"unknown house rule {option!r}; the options are: "
                               f"{', '.join(sorted(choices))}")
        if isinstance(raw, bool) or not isinstance(raw, str | int):
            raise RulesUnknown(f"house rule {option}: give one of "
                               f"{', '.join(choices[option])}, not {raw!r}")
        value = str(raw)
        if value not in choices[option]:
            raise RulesUnknown(f"house rule {option} must be one of "
                               f"{', '.join(choices[option])}, not {value!r}")
        out[option] = value
    return out


def parse_house_pair(text: str) -> tuple[str, str]:
    """``OPTION=VALUE`` as given on a command line, checked.

    >>> parse_house_pair("second_set=forced")
    ('second_set', 'forced')
    """
    option, sep, value = text.partition("=")
    if not sep or not option or not value:
        raise RulesUnknown(f"a house rule is OPTION=VALUE (e.g. defence_dice=3), not {text!r}")
    return next(iter(house_rules({option.strip(): value.strip()}).items()))


def rules_config(name: str, players: int, house: Mapping[str, str] | None = None) -> Config:
    """The rules configuration for rule set ``name`` with ``players`` players and the
    house rules ``house`` (checked by :func:`house_rules`) on top of its options."""
    preset = preset_name(name)
    if preset not in PRESETS:
        raise RulesUnknown(
            f"unknown rule set {name!r}; the presets are: {', '.join(sorted(PRESETS))}")
    try:
        config = preset_config(preset, players)
    except ValueError as exc:  # a player count the preset does not allow
        raise RulesUnknown(f"rule set {name!r}: {exc}") from exc
    if not house:
        return config
    options = {**config.options.full_dict(), **house_rules(house)}
    try:
        return dataclasses.replace(config, options=Options(**options))  # type: ignore[arg-type]
    except ValueError as exc:  # house rules that contradict the rule set or each other
        described = ", ".join(f"{k}={v}" for k, v in house.items())
        raise RulesUnknown(f"rule set {name!r} with {described}: {exc}") from exc


def describe(config: Config, name: str | None = None) -> str:
    """One phrase for a game's rules: the rule set's name when known, the seats, and
    every option not at the engine's default (what a journal's game records).

    >>> describe(rules_config("classic", 3, {"defence_dice": "3"}), "classic")
    'classic, 3 seats, defence_dice=3'
    """
    defaults = Options().full_dict()
    changed = [f"{k}={v}" for k, v in config.options.full_dict().items() if defaults[k] != v]
    return ", ".join([*([name] if name else []), f"{config.players} seats", *changed])
