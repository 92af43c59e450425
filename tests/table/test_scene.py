"""The public scene (risk/<table>/scene) over whole games played through seat events:
it is the LED board's highlight taken apart, the odds of the attack being considered
from the exact odds code, the last public facts, the cards counted, and capitals only
once the rules reveal them; it never carries a hand, a mission or a secret cursor."""

from __future__ import annotations

from typing import Any

from riskproto import MAX_MESSAGE_BYTES
from riskproto.messages import MAX_SCENE_EVENTS, decode, encode
from riskproto.territories import TERRITORIES
from risktable.rules import state as st
from risktable.rules.events import (
    CardsTraded,
    DiceRolled,
    PlayerEliminated,
    TerritoryConquered,
    TurnStarted,
)
from risktable.rules.odds import battle
from risktable.rules.options import Config, Options
from risktable.rules.presets import preset_config
from risktable.table import menus
from risktable.table.public import scene_message
from risktable.table.session import ODDS_ARMY_LIMIT, Outcome, TableSession
from tests.table.inputs import autopiloted_table, ok, turn
from tests.table.test_games import play

# Every key a scene may hold: nothing else (no hand, mission, card name) ever appears.
_SCENE_KEYS = {"v", "t", "lit", "cursor", "targets", "battle", "odds", "events", "cards",
               "capitals"}
_EVENT_KEYS = {"k", "seat", "from", "to", "n", "lost", "killed", "by"}


def _wire(table: TableSession, territory: int) -> int:
    return TERRITORIES.index(table.state.config.board.territory_ids[territory])


def _scene(table: TableSession) -> dict[str, Any]:
    highlight, facts = table.scene()
    msg = scene_message(table.state, highlight, facts)
    data = encode(msg)
    assert len(data) <= MAX_MESSAGE_BYTES
    assert decode(data) == msg
    return msg


class _Watcher:
    """Checks the scene after every input and bot move, and keeps what it saw."""

    def __init__(self, table: TableSession) -> None:
        self.table = table
        self.seen_odds: set[str] = set()
        self.kinds: set[str] = set()
        self.before_reveal = 0
        self.after_reveal = 0

    def __call__(self, out: Outcome) -> None:
        table, s = self.table, self.table.state
        msg = _scene(table)
        assert set(msg) <= _SCENE_KEYS
        lit = set(msg["lit"])
        # The page lights exactly what the LED board blinks.
        assert lit == {TERRITORIES.index(t) for t in table.highlight}
        assert "cursor" not in msg or msg["cursor"] in lit
        assert set(msg.get("targets", [])) <= lit and set(msg.get("battle", [])) <= lit
        if s.source >= 0 and s.phase != st.GAME_OVER:
            assert msg["battle"] == [_wire(table, s.source), _wire(table, s.target)]
        else:
            assert "battle" not in msg
        # Cards counted, never named: one count per hand, as the rules hold them.
        assert msg["cards"] == [len(h) for h in s.hands]
        revealed = bool(s.capitals) and -1 not in s.capitals
        if revealed:
            assert msg["capitals"] == [_wire(table, c) for c in s.capitals]
            self.after_reveal += 1
        else:
            assert "capitals" not in msg
            self.before_reveal += int(bool(s.capitals))
        if "odds" in msg:
            odds = msg["odds"]
            source = s.config.board.territory_ids.index(TERRITORIES[odds["from"]])
            target = s.config.board.territory_ids.index(TERRITORIES[odds["to"]])
            assert {odds["from"], odds["to"]} <= lit
            assert s.owners[source] != s.owners[target]
            a, d = s.armies[source], s.armies[target]
            assert max(a, d) <= ODDS_ARMY_LIMIT
            limit = int(s.config.options.defence_dice)
            assert odds["win"] == round(1000 * float(battle(a, d, defend_limit=limit)
                                                     .attacker_wins))
            self.seen_odds.add(table.menu.stage)
        events = msg.get("events", [])
        assert len(events) <= MAX_SCENE_EVENTS
        for event in events:
            assert set(event) <= _EVENT_KEYS
            self.kinds.add(event["k"])
        self._told(out, events)

    def _told(self, out: Outcome, events: list[dict[str, Any]]) -> None:
        # The newest events are this outcome's public facts, in order.
        table = self.table
        expected: list[dict[str, Any]] = []
        for e in out.events:
            if isinstance(e, TurnStarted):
                expected.append({"k": "turn", "seat": e.player + 1, "n": e.armies})
            elif isinstance(e, CardsTraded):
                expected.append({"k": "trade", "seat": e.player + 1, "n": e.armies + e.bonus})
            elif isinstance(e, DiceRolled):
                expected.append({"k": "battle", "lost": e.attacker_losses,
                                 "killed": e.defender_losses})
            elif isinstance(e, TerritoryConquered):
                expected.append({"k": "conquer", "seat": e.player + 1, "n": e.moved,
                                 "from": _wire(table, e.source), "to": _wire(table, e.target)})
            elif isinstance(e, PlayerEliminated):
                expected.append({"k": "out", "seat": e.player + 1, "by": e.by + 1})
        expected = expected[-MAX_SCENE_EVENTS:]
        newest = events[len(events) - len(expected):]
        assert len(newest) == len(expected)
        for got, want in zip(newest, expected, strict=True):
            assert want.items() <= got.items(), (got, want)


def _watched_game(config: Config, seed: int) -> _Watcher:
    table, pilot = autopiloted_table(config, seed)
    watcher = _Watcher(table)
    play(table, pilot, after=watcher)
    assert table.state.phase == st.GAME_OVER
    watcher(Outcome())  # the final scene: the battle is over, the cards still counted
    return watcher


def test_a_whole_classic_game_scene_by_scene() -> None:
    watcher = _watched_game(Config(3), 1)
    # The attacker's cursor over a target and the dice question both show the odds,
    # and so does the defender's question once the battle is under way.
    assert {menus.ATTACK_TO, menus.ATTACK_DICE, menus.DEFEND_DICE} <= watcher.seen_odds
    assert {"turn", "battle", "conquer", "trade", "out"} <= watcher.kinds
    assert watcher.before_reveal == watcher.after_reveal == 0


def test_the_odds_count_the_rule_sets_defence_dice() -> None:
    watcher = _watched_game(Config(3, Options(defence_dice="3")), 4)
    assert menus.ATTACK_TO in watcher.seen_odds


def test_capitals_stay_hidden_until_the_reveal_and_are_shown_after() -> None:
    watcher = _watched_game(preset_config("capital_1993_short", 4), 2)
    assert watcher.before_reveal > 0 and watcher.after_reveal > 0
    assert {"turn", "battle", "conquer"} <= watcher.kinds


def test_the_capital_choosers_cursor_never_reaches_the_scene() -> None:
    table, pilot = autopiloted_table(preset_config("capital_1993", 4), 1)
    while table.menu.stage != menus.CAPITAL_STAGE:
        event = pilot.next_event()
        assert event is not None
        assert table.handle(*event).error is None
    seat = table.seats[table.menu.player]
    before = _scene(table)
    assert "cursor" not in before and "capitals" not in before
    for _ in range(5):
        ok(table, seat, turn(seat, 1))
        assert _scene(table) == before
