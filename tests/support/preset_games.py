"""One autopiloted game per rule set, recorded once per pytest process and replayed by
the tests that render every screen of it: the screen catalogue
(tests/table/test_screen_catalogue.py) and the games in every language
(tests/i18n/test_games_in_languages.py).

A recording is the list of seat inputs the autopilot made (heuristic bots, fixed
seeds), so a game is decided once and drawn twice: in English for the catalogue, in
the seats' languages for the translations. The inputs do not depend on the words:
a replay into a fresh session of the same rules, seats and seed reaches the recorded
state, which :meth:`PresetGame.replay` checks.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from risktable.rules import State
from risktable.rules import state as st
from risktable.rules.bots.heuristic import HeuristicBot
from risktable.rules.presets import PRESETS, preset_config
from risktable.table.autopilot import Autopilot
from risktable.table.session import Outcome, TableSession
from tests.table.inputs import cards_of, uids_of

EVENTS = 1500  # inputs per game at most: past the set-up and several turns of every rule set
# The last seat goes offline and comes back after this many inputs: the others' screens
# say so in between.
OFFLINE_AT, ONLINE_AT = 40, 60

Input = tuple[int, dict[str, Any]]


@dataclass(frozen=True)
class PresetGame:
    """The recorded game of rule set ``rules`` (with hub-dealt cards, no physical deck,
    when ``hub_cards``): ``players`` seats (four where the rule set allows, so that four
    seats can speak four languages), bots and dice seeded by ``seed``; ``inputs`` in the
    order the seats made them, ``final`` the state after."""

    rules: str
    hub_cards: bool
    players: int
    seed: int
    inputs: tuple[Input, ...]
    final: State

    @property
    def name(self) -> str:
        return f"{self.rules} (hub cards)" if self.hub_cards else self.rules

    def session(self) -> TableSession:
        """A fresh session of the game's table, before its first input."""
        return _session(self.rules, self.hub_cards, self.players, self.seed)

    def replay(self, table: TableSession, shown: Callable[[Outcome], None],
               events: int = EVENTS, before: Callable[[int], None] | None = None) -> None:
        """Feed the recorded inputs (at most ``events``) to ``table``, a fresh
        :meth:`session`, handing every outcome (seat inputs and the offline spell) to
        ``shown``; ``before(n)`` runs before the ``n``-th input, e.g. to send one the
        table must refuse (which changes nothing)."""
        for n, (seat, event) in enumerate(self.inputs[:events]):
            _offline_spell(table, n, shown)
            if before is not None:
                before(n)
            out = table.handle(seat, event)
            assert out.error is None, (self.name, n, event, out.error)
            shown(out)
        if events >= len(self.inputs):
            assert table.state == self.final, f"{self.name}: the replay went another way"


def _session(rules: str, hub_cards: bool, players: int, seed: int) -> TableSession:
    config = preset_config(rules, players)
    return TableSession(config, list(range(1, players + 1)), cards_of(config.options.deck),
                        hub_cards=hub_cards, dice=random.Random(seed) if hub_cards else None)


def _offline_spell(table: TableSession, n: int, shown: Callable[[Outcome], None]) -> None:
    if n == OFFLINE_AT:
        shown(table.set_offline({table.seats[-1]}))
    elif n == ONLINE_AT:
        shown(table.set_offline(()))


def record(rules: str, hub_cards: bool) -> PresetGame:
    """Autopilot the game of ``rules`` to its end or :data:`EVENTS` inputs."""
    preset = PRESETS[rules]
    players = 4 if 4 in preset.players else preset.players[0]
    seed = sorted(PRESETS).index(rules) + 1
    table = _session(rules, hub_cards, players, seed)
    pilot = Autopilot(table, {s: HeuristicBot(seed * 10 + s) for s in table.seats},
                      uids_of(table.config.options.deck), random.Random(seed))
    inputs: list[Input] = []
    while len(inputs) < EVENTS and table.state.phase != st.GAME_OVER:
        _offline_spell(table, len(inputs), lambda _: None)
        nxt = pilot.next_event()
        assert nxt is not None, (rules, table.menu)
        out = table.handle(*nxt)
        assert out.error is None, (rules, nxt, out.error)
        inputs.append(nxt)
    return PresetGame(rules, hub_cards, players, seed, tuple(inputs), table.state)


class PresetGames:
    """The recordings of this pytest process, each made when first asked for."""

    def __init__(self) -> None:
        self._games: dict[tuple[str, bool], PresetGame] = {}

    def __call__(self, rules: str, hub_cards: bool = False) -> PresetGame:
        key = (rules, hub_cards)
        if key not in self._games:
            self._games[key] = record(rules, hub_cards)
        return self._games[key]
