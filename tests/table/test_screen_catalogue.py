"""The screen catalogue, docs/screens.md: every distinct seat screen of a game of every
rule set, as the seat's display lays it out (the firmware's own text code, see
tests/support/oled_text.py), with the situation that first produced it.

The test fails when a screen changed and the catalogue was not regenerated:
``RISKTABLE_REGENERATE_SCREENS=1 .venv/bin/python -m pytest tests/table/test_screen_catalogue.py``
writes it again. A coverage check fails when a menu stage, the waiting screen, an offline
seat or a refusal code the session answers was never rendered.
"""

from __future__ import annotations

import os
import random
import re
from dataclasses import dataclass, field

from riskproto import messages
from risktable.rules import state as st
from risktable.rules.bots.heuristic import HeuristicBot
from risktable.rules.presets import PRESETS, preset_config
from risktable.table import menus
from risktable.table.autopilot import Autopilot
from risktable.table.session import Outcome, TableSession
from tests.support.oled_text import ROWS, boxed, drawn, layout
from tests.support.tools import ROOT
from tests.table.inputs import cards_of, uids_of

CATALOGUE = ROOT / "docs" / "screens.md"
REGENERATE = "RISKTABLE_REGENERATE_SCREENS"
EVENTS = 1500  # inputs per game: past the set-up and several turns of every rule set
STAGES = {value for name, value in vars(menus).items()
          if name.isupper() and isinstance(value, str)}
# The hub deals the missions within the input that reaches the deal: no screen waits on it.
# Games stop after EVENTS inputs, mostly before anyone wins (tests/table/test_games.py
# plays games to the end).
UNSEEN = {menus.MISSIONS_STAGE, menus.OVER}
SESSION_CODES = {messages.E_NOT_ALLOWED, messages.E_SCHEMA, messages.E_UNKNOWN_SEAT}


@dataclass
class Catalogue:
    screens: dict[str, tuple[str, list[str]]] = field(default_factory=dict)
    stages: set[str] = field(default_factory=set)
    refusals: dict[str, tuple[str, str]] = field(default_factory=dict)
    offline: bool = False

    def view(self, rules: str, table: TableSession, seat: int, lines: list[str]) -> None:
        menu = table.menu
        asked = table.view(seat)["active"] and menu.stage != menus.DICE
        if asked or menu.stage == menus.DICE:
            self.stages.add(menu.stage)
        elif menu.stage != menus.OVER:
            self.stages.add("waiting")
        if any("offline" in line.lower() for line in lines):
            self.offline = True
        key = _template(table, lines)
        if key not in self.screens:
            role = "asked" if asked else "rolling" if menu.stage == menus.DICE else "waiting"
            self.screens[key] = (f"{rules}, {menu.stage}, seat {seat} {role}", lines)

    def refusal(self, rules: str, out: Outcome) -> None:
        assert out.error is not None
        key = f"{out.error.code}: {_digits(out.error.message)}"
        self.refusals.setdefault(key, (rules, out.error.message))


def _digits(text: str) -> str:
    return re.sub(r"\d+", "#", text)


def _template(table: TableSession, lines: list[str]) -> str:
    # A hub-dealt hand, and the card just drawn, are one line whatever they hold.
    text = "\n".join("Hand: <cards>" if line.startswith("Hand: ") else
                     "You drew <card>" if line.startswith("You drew ") else line
                     for line in lines)
    for name in sorted(table.state.config.board.territory_names, key=len, reverse=True):
        text = text.replace(name, "<territory>")
    return _digits(re.sub(r"<territory> [ICA]\b", "<territory> <symbol>", text))


def _game(rules: str, seed: int, catalogue: Catalogue, hub_cards: bool = False) -> None:
    preset = PRESETS[rules]
    players = 3 if 3 in preset.players else preset.players[0]
    config = preset_config(rules, players)
    table = TableSession(config, list(range(1, players + 1)), cards_of(config.options.deck),
                         hub_cards=hub_cards, dice=random.Random(seed) if hub_cards else None)
    if hub_cards:
        rules += " (hub cards)"
    pilot = Autopilot(table, {s: HeuristicBot(seed * 10 + s) for s in table.seats},
                      uids_of(config.options.deck), random.Random(seed))

    def shown(out: Outcome) -> None:
        for seat, fields in out.views.items():
            catalogue.view(rules, table, seat, list(fields["lines"]))

    for seat in table.seats:
        catalogue.view(rules, table, seat, list(table.view(seat)["lines"]))
    for events in range(EVENTS):
        if table.state.phase == st.GAME_OVER:
            break
        if events == 40:
            shown(table.set_offline({table.seats[-1]}))
        elif events == 60:
            shown(table.set_offline(()))
        idle = next((s for s in table.seats if not table.view(s)["active"]), None)
        if events % 97 == 0 and idle is not None:
            # A seat not asked presses Confirm; a garbled card; a seat not at the table.
            for seat, event in ((idle, {"kind": "button", "button": "confirm"}),
                                (idle, {"kind": "card"}), (6, {"kind": "resync"})):
                out = table.handle(seat, event)
                assert out.error is not None, event
                catalogue.refusal(rules, out)
        nxt = pilot.next_event()
        assert nxt is not None, table.menu
        out = table.handle(*nxt)
        assert out.error is None, (nxt, out.error)
        shown(out)


def render(catalogue: Catalogue) -> str:
    out = ["# Seat screens", "",
           "Generated by `tests/table/test_screen_catalogue.py` (do not edit by hand;",
           f"`{REGENERATE}=1` regenerates it): every distinct screen a seat showed in",
           f"an autopiloted game of each rule set ({EVENTS} inputs at most; classic_1993 and",
           "classic_2016 once more with hub-dealt cards), laid out by the",
           "seat's own display code on the 128x64 OLED (16 columns, 8 rows of the 8x8",
           "font). Screens that differ only in territory names or numbers are shown once,",
           "with the situation that first produced them.", ""]
    for key in sorted(catalogue.screens, key=lambda k: catalogue.screens[k][0]):
        situation, lines = catalogue.screens[key]
        out += [f"## {situation}", "", "```", *boxed(layout(lines)), "```", ""]
    out += ["# Refusal reasons", "",
            "Each reason the hub's table session gives, laid out at the display's width",
            "(the seat firmware does not yet show it: see docs/table.md).", ""]
    for key in sorted(catalogue.refusals):
        rules, reason = catalogue.refusals[key]
        code = key.split(":")[0]
        out += [f"## `{code}` ({rules})", "", "```", *boxed(layout([reason])), "```", ""]
    return "\n".join(out)


def test_the_screen_catalogue_is_current_and_covers_every_screen() -> None:
    catalogue = Catalogue()
    for seed, rules in enumerate(PRESETS, start=1):
        _game(rules, seed, catalogue)
    # A table with no physical cards: the hub deals the hands, trades come from a menu.
    for rules in ("classic_1993", "classic_2016"):
        _game(rules, 1, catalogue, hub_cards=True)
    text = render(catalogue)
    if os.environ.get(REGENERATE):
        CATALOGUE.write_text(text)
    assert CATALOGUE.exists() and CATALOGUE.read_text() == text, (
        f"a seat screen changed: regenerate docs/screens.md with {REGENERATE}=1")
    assert STAGES - UNSEEN - catalogue.stages == set(), "never rendered"
    assert catalogue.offline, "no screen showed an offline seat"
    codes = {key.split(":")[0] for key in catalogue.refusals}
    assert codes == SESSION_CODES
    # Every screen and every reason fits the glass: nothing is cut off at the bottom.
    for situation, lines in catalogue.screens.values():
        assert drawn(lines) <= ROWS, (situation, lines)
    for rules, reason in catalogue.refusals.values():
        assert drawn([reason]) <= ROWS, (rules, reason)
