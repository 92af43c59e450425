"""The screen catalogue, docs/screens.md: every distinct seat screen of a game of every
rule set, as the seat's display lays it out (the firmware's own text code, see
tests/support/oled_text.py), with the situation that first produced it.

The test fails when a screen changed and the catalogue was not regenerated:
``RISKTABLE_REGENERATE_SCREENS=1 .venv/bin/python -m pytest tests/table/test_screen_catalogue.py``
writes it again. A coverage check fails when a menu stage, the waiting screen, an offline
seat, a template of table/prompts.py (its statements that write words, traced while the
catalogue is built) or a refusal code of protocol/README.md ("Error replies") was never
rendered. Screens the games reach too rarely come from positions set up for them, and the
hub's own screens (notices, a game not started, enrollment) from the service's texts. The
refusals of the games come from their table sessions; those of the protocol (unreadable,
too large, another version, out of order) from the hub's gate (riskproto.gate), fed the
payloads that earn them. A refusal is shown as the seat shows it (seat/refusal.py).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from riskproto import OUTBOX_CAPACITY, messages, topics
from riskproto.gate import APPLY, REFUSED, HubGate
from riskproto.messages import ProtocolError
from risktable.dice_registry import REGISTRY_FILE, DiceRegistry, PairingRefused
from risktable.i18n.seat_view import LOGICAL_LINES as MAX_VIEW_LINES
from risktable.rules import Options
from risktable.rules import state as st
from risktable.rules.presets import PRESETS, preset_config
from risktable.service.enrolling import TableEnrollment
from risktable.service.table_service import (
    NOT_STARTED,
    OUT_OF_GAME,
    PAUSED_NOTICE,
    STORAGE_NOTICE,
)
from risktable.table import menus, prompts
from risktable.table.session import Outcome, TableSession
from tests.rules.scenario import BOARD, position
from tests.support.oled_text import ROWS, boxed, drawn, layout, refusal_lines
from tests.support.preset_games import EVENTS, PresetGame, PresetGames
from tests.support.template_coverage import lines_run, never_run
from tests.support.tools import ROOT
from tests.table.inputs import session_at

CATALOGUE = ROOT / "docs" / "screens.md"
PROMPTS = Path(prompts.__file__)
REGENERATE = "RISKTABLE_REGENERATE_SCREENS"
STAGES = {value for name, value in vars(menus).items()
          if name.isupper() and isinstance(value, str)}
# The hub deals the missions within the input that reaches the deal: no screen waits on it.
# Games stop after EVENTS inputs, mostly before anyone wins (tests/table/test_games.py
# plays games to the end).
UNSEEN = {menus.MISSIONS_STAGE, menus.OVER}
HUB_CARDS = ("classic_1993", "classic_2016", "capital_1993")
ERROR_ROW = re.compile(r"^\| `(\w+)` \|", re.MULTILINE)


def protocol_codes() -> set[str]:
    """The refusal codes of protocol/README.md's "Error replies" table (code, when)."""
    text = (ROOT / "protocol" / "README.md").read_text()
    section = text.split("## Error replies", 1)[1].split("\n## ", 1)[0]
    table = section.split("| code | when |", 1)[1].split("\n\n", 1)[0]
    return set(ERROR_ROW.findall(table))


@dataclass
class Catalogue:
    screens: dict[str, tuple[str, list[str]]] = field(default_factory=dict)
    stages: set[str] = field(default_factory=set)
    # "code: detail with # for digits" -> (situation, the hub's error message)
    refusals: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)
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

    def situation(self, situation: str, lines: list[str]) -> None:
        """A screen the hub shows outside the rules' menus (pause, enrollment, ...)."""
        self.screens.setdefault(_digits("\n".join(lines)), (situation, lines))

    def refusal(self, situation: str, error: dict[str, Any]) -> None:
        key = f"{error['code']}: {_digits(error['detail'])}"
        self.refusals.setdefault(key, (situation, error))


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


def _game(game: PresetGame, catalogue: Catalogue) -> None:
    table = game.session()

    def shown(out: Outcome) -> None:
        for seat, fields in out.views.items():
            catalogue.view(game.name, table, seat, list(fields["lines"]))

    def pokes(n: int) -> None:
        idle = next((s for s in table.seats if not table.view(s)["active"]), None)
        if n % 97 == 0 and idle is not None:
            # A seat not asked presses Confirm; a garbled card; a seat not at the table.
            for seat, event in ((idle, {"kind": "button", "button": "confirm"}),
                                (idle, {"kind": "card"}), (6, {"kind": "resync"})):
                out = table.handle(seat, event)
                assert out.error is not None, event
                catalogue.refusal(game.name, messages.error_reply(out.error))

    for seat in table.seats:
        catalogue.view(game.name, table, seat, list(table.view(seat)["lines"]))
    game.replay(table, shown, before=pokes)


def _event(seq: int, **fields: Any) -> bytes:
    return json.dumps(messages.message("event", seat=2, seq=seq, **fields)).encode()


def _gate_refusals(catalogue: Catalogue) -> None:
    """The protocol's refusals, as the hub's gate answers them to seat 2 of 3."""
    gate = HubGate("cat", 3)
    gate.tracker(2).birth(7)
    resync = {"kind": "resync"}

    def send(situation: str, payload: bytes, seat: int = 2) -> None:
        inbound = gate.receive(topics.seat("cat", seat, topics.SEAT_EVENT), payload)
        if inbound.action == APPLY:
            assert inbound.seq is not None
            reply = gate.answered(seat, inbound.seq, inbound.error)[1]
        else:
            assert inbound.action == REFUSED, (situation, inbound.action)
            reply = inbound.replies[0][1]
        if reply["t"] == "error":
            catalogue.refusal(situation, reply)
        else:
            assert situation == "", (situation, reply)

    send("protocol, a payload that is not JSON", b"{not json")
    send("protocol, a payload over 1 KiB", b'{"pad": "' + b"x" * 1100 + b'"}')
    version = messages.message("event", seat=2, seq=1, kind="resync")
    version["v"] = messages.PROTOCOL_VERSION + 1
    send("protocol, another protocol version", json.dumps(version).encode())
    send("protocol, an event kind the hub does not know", _event(2, kind="dance"))
    send("protocol, a seat beyond the table's", _event(1, **resync), seat=3 + 1)
    for seq in range(3, 70):
        send("", _event(seq, **resync))
    send("protocol, an event answered already", _event(69, **resync))
    send("protocol, an event older than the hub remembers", _event(2, **resync))
    send("protocol, an event too far ahead", _event(70 + OUTBOX_CAPACITY, **resync))


def _pairing_refusals(catalogue: Catalogue) -> None:
    """What the table's dice registry refuses, as seat 2 reads it (pairing, rolls)."""
    with tempfile.TemporaryDirectory() as data_dir:
        registry = DiceRegistry(Path(data_dir) / REGISTRY_FILE)
        mine = ["px-0000000a", "px-0000000b", "gd-0000000000c0"]
        registry.claim(1, "px-000000a1")
        for die in mine:
            registry.claim(2, die)
        for situation, call in (
                ("pairing, a die another seat holds",
                 lambda: registry.claim(2, "px-000000a1")),
                ("pairing, a fourth die", lambda: registry.claim(2, "px-0000000d")),
                ("pairing, replacing a die the seat does not hold",
                 lambda: registry.claim(2, "px-0000000d", replace="px-000000a1")),
                ("pairing, a die paired here already as the replacement",
                 lambda: registry.claim(2, mine[0], replace=mine[1])),
                ("pairing, unpairing a die the seat does not hold",
                 lambda: registry.release(2, "px-000000a1")),
                ("pairing, a die that is no smart die", lambda: registry.claim(2, "e1")),
                ("a roll with another seat's die", lambda: registry.check_roll(
                    2, ["px-000000a1"])),
                ("a roll with a die the seat has not paired", lambda: registry.check_roll(
                    2, ["px-000000ff"]))):
            with pytest.raises(PairingRefused) as refused:
                call()
            error = ProtocolError(messages.E_NOT_ALLOWED, str(refused.value))
            catalogue.refusal(situation, messages.error_reply(error, seq=5))
        registry.close()


# Seat 1 (player 0) holds Ukraine and all but three territories of seats 2 and 3.
LAYOUT = {"ukraine": (0, 5), "middle_east": (1, 2), "afghanistan": (1, 4),
          "eastern_australia": (2, 1)}
FIVE = ("alaska", "ukraine", "wild1", "middle_east", "afghanistan")
SIX = ("alaska", "northwest_territory", "greenland", "alberta", "ontario", "wild1")
EUROPE_SOUTH_AMERICA_AND_A_THIRD = 12  # a mission card (risktable.rules.missions)


def _positions(catalogue: Catalogue) -> None:
    # Screens the games reach too rarely to count on, from positions set up for them.
    forced = Options(second_set="forced")
    for name, fields in (
            ("five cards to trade", {"hands": {0: FIVE}}),
            ("two sets due", {"hands": {0: SIX}, "trades_due": 2, "rest": 1, "options": forced}),
            ("the second set due", {"hands": {0: SIX}, "trades_due": 1, "rest": 1,
                                    "options": forced}),
            ("a mission of two continents and a third",
             {"options": Options(goal="missions", setup="deal"),
              "missions": (EUROPE_SOUTH_AMERICA_AND_A_THIRD,) * 3})):
        table = session_at(position(LAYOUT, phase=st.REINFORCE, pool=3, **fields))
        for seat in table.seats:
            catalogue.view(f"position, {name}", table, seat, list(table.view(seat)["lines"]))
    # classic_2016: six star cards are traded before any army is placed.
    config = preset_config("classic_2016", 3)
    assert config.stars is not None
    two_stars = [BOARD.territory_ids[t] for t in range(BOARD.size) if config.stars[t] == 2]
    table = session_at(position(LAYOUT, config=config, phase=st.REINFORCE, pool=3,
                                hands={0: tuple(two_stars[:6])}))
    catalogue.view("position, classic_2016, six star cards to trade", table, 1,
                   list(table.view(1)["lines"]))


def _hub_screens(catalogue: Catalogue) -> None:
    # What the hub itself puts on the seats: notices over a view, a game not started,
    # a seat the game does not seat, the card enrollment.
    lines = list(session_at(position(LAYOUT, phase=st.REINFORCE, pool=3)).view(1)["lines"])
    for notice in (PAUSED_NOTICE, STORAGE_NOTICE):
        catalogue.situation(f"hub, {notice.lower()}, over a seat's view",
                            [notice, *lines][:MAX_VIEW_LINES])
    catalogue.situation("hub, a physical deck not enrolled yet", NOT_STARTED)
    catalogue.situation("hub, a seat the game does not seat", [OUT_OF_GAME])
    with tempfile.TemporaryDirectory() as data_dir:
        for deck in ("1993", "2016"):
            enroll = TableEnrollment(Path(data_dir), BOARD, deck, 1, name="Ana")
            catalogue.situation(f"hub, enrollment of the {deck} deck, another seat",
                                enroll.view(2)["lines"])
            catalogue.situation(f"hub, enrollment of the {deck} deck, a card to tap",
                                enroll.view(1)["lines"])
            enroll.input(1, {"kind": "card", "uid": "04A1B2C3D4E5F6"})
            catalogue.situation(f"hub, enrollment of the {deck} deck, a card tapped",
                                enroll.view(1)["lines"])


def render(catalogue: Catalogue) -> str:
    out = ["# Seat screens", "",
           "Generated by `tests/table/test_screen_catalogue.py` (do not edit by hand;",
           f"`{REGENERATE}=1` regenerates it): every distinct screen a seat showed in",
           f"an autopiloted game of each rule set ({EVENTS} inputs at most; four seats",
           "where the rule set seats four; classic_1993, classic_2016 and capital_1993",
           "once more with hub-dealt cards), laid out by the seat's own display code on",
           "the 128x64 OLED (16 columns, 8 rows of the 8x8 font), then screens of",
           "positions the games reach too rarely and the hub's own (notices, enrollment).",
           "Screens that differ only in territory names or numbers are shown once, with",
           "the situation that first produced them.", ""]
    for key in sorted(catalogue.screens, key=lambda k: catalogue.screens[k][0]):
        situation, lines = catalogue.screens[key]
        out += [f"## {situation}", "", "```", *boxed(layout(lines)), "```", ""]
    out += ["# Refusal screens", "",
            "Each refusal the hub answered, as the seat shows it for a few seconds (or to",
            "the next view or input): the hub's detail when it is written for the player,",
            "else the seat's words for the code (seat/refusal.py, protocol/README.md).",
            "The hub's detail is quoted under the heading.", ""]
    for key in sorted(catalogue.refusals):
        situation, error = catalogue.refusals[key]
        out += [f"## `{error['code']}` ({situation})", "", f"Hub: \"{error['detail']}\"", "",
                "```", *boxed(layout(refusal_lines(error))), "```", ""]
    return "\n".join(out)


@pytest.mark.slow
def test_the_screen_catalogue_is_current_and_covers_every_screen(
        preset_games: PresetGames) -> None:
    catalogue = Catalogue()
    # Each rule set's recorded game (recorded, if not yet, before the tracing starts).
    games = [preset_games(rules) for rules in PRESETS]
    # A table with no physical cards: the hub deals the hands, trades come from a menu.
    # capital_1993 too: with no cards to lay, the capitals' reveal is told as news.
    games += [preset_games(rules, hub_cards=True) for rules in HUB_CARDS]
    with lines_run(PROMPTS) as ran:
        for game in games:
            _game(game, catalogue)
        _positions(catalogue)
        _hub_screens(catalogue)
    _gate_refusals(catalogue)
    _pairing_refusals(catalogue)
    text = render(catalogue)
    if os.environ.get(REGENERATE):
        CATALOGUE.write_text(text)
    assert CATALOGUE.exists() and CATALOGUE.read_text() == text, (
        f"a seat screen changed: regenerate docs/screens.md with {REGENERATE}=1")
    assert STAGES - UNSEEN - catalogue.stages == set(), "never rendered"
    # Every template of the prompts wrote a screen of the catalogue (but the one of the
    # mission deal, on which no seat ever waits).
    assert [t for t in never_run(PROMPTS, ran) if '"Dealing missions"' not in t] == [], (
        "prompt templates never rendered")
    assert catalogue.offline, "no screen showed an offline seat"
    codes = {key.split(":")[0] for key in catalogue.refusals}
    assert protocol_codes() - codes == set(), "refusal codes never rendered"
    assert codes - protocol_codes() == set(), "refusal codes protocol/README.md lacks"
    # Every screen and every reason fits the glass: nothing is cut off at the bottom.
    for situation, lines in catalogue.screens.values():
        assert drawn(lines) <= ROWS, (situation, lines)
    for situation, error in catalogue.refusals.values():
        assert drawn(refusal_lines(error)) <= ROWS, (situation, error)
