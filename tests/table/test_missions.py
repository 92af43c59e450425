"""Secret Mission Risk at the table: the hub deals the missions itself (no seat input,
uniformly from the engine's outcomes), each seat shows only its own mission, a bot's
shows nowhere, a restart deals nothing again, and whole ``mission_1993`` games played
only through seat events."""

from __future__ import annotations

import dataclasses
import random

import pytest

from risktable.hardware.palette import SEAT_COLOURS
from risktable.rules import DealMission, replay
from risktable.rules import state as st
from risktable.rules.bots import Bot, HeuristicBot
from risktable.rules.decks import MISSIONS, OCCUPY_24, mission_deck, mission_index
from risktable.rules.engine import apply, chance_outcomes, new_game
from risktable.rules.goals import how_won
from risktable.rules.options import RULES_VERSION, Config
from risktable.rules.presets import preset_config
from risktable.rules.state import State
from risktable.table import menus
from risktable.table.autopilot import Autopilot
from risktable.table.prompts import mission_lines
from risktable.table.public import board_message, led_scene
from risktable.table.session import Outcome, TableSession
from tests.table.inputs import CARDS, UIDS, confirm, refused
from tests.table.test_games import play

CONFIG = preset_config("mission_1993", 4)


def _table_and_pilot(config: Config, seed: int, bots: dict[int, Bot] | None = None,
                     ) -> tuple[TableSession, Autopilot]:
    """A table of ``config``'s players at seats 1..n; the autopilot plays every seat the
    session does not play itself (``bots``). The session's RNG differs from the
    autopilot's: with the same seed a bot and a person would tie every opening roll."""
    players = config.players
    table = TableSession(config, list(range(1, players + 1)), CARDS, bots=bots,
                         dice=random.Random(f"hub:{seed}"))
    pilots: dict[int, Bot] = {seat: HeuristicBot(seed * 10 + seat) for seat in table.seats
                              if not table.is_bot(seat)}
    return table, Autopilot(table, pilots, UIDS, random.Random(seed))


def _play_to_the_deal(table: TableSession, pilot: Autopilot) -> Outcome:
    """Feed inputs (and bot moves) until missions are dealt; the outcome that dealt them."""
    while True:
        assert table.state.phase in (st.OPENING, st.DEAL), table.state.phase_name
        out = table.step_bots()
        if out is None:
            event = pilot.next_event()
            assert event is not None, table.menu
            out = table.handle(*event)
            assert out.error is None, out.error
        if any(isinstance(a, DealMission) for a in out.actions):
            return out


def _at_the_deal(config: Config, seed: int) -> State:
    """A position of ``config`` waiting for the mission deal (the engine alone)."""
    rng = random.Random(seed)
    s = new_game(config)
    while s.phase != st.MISSION_DEAL:
        s, _ = apply(s, chance_outcomes(s).sample(rng))
    return s


def _with(config: Config, **options: str) -> Config:
    return dataclasses.replace(config, options=dataclasses.replace(config.options, **options))


def _mission_texts(table: TableSession) -> dict[int, list[str]]:
    return {seat: mission_lines(table.state, p, table.seats) for p, seat in enumerate(table.seats)}


def test_the_input_reaching_the_deal_deals_every_mission_with_it() -> None:
    table, pilot = _table_and_pilot(CONFIG, 1)
    out = _play_to_the_deal(table, pilot)
    players = CONFIG.players
    s = table.state
    # The last card's tap and the whole deal, in one outcome to journal.
    assert [type(a).__name__ for a in out.actions] == ["DealCard"] + ["DealMission"] * players
    dealt = tuple(a.mission for a in out.actions if isinstance(a, DealMission))
    # Dealt round the table from the first player, like the cards.
    order = [(s.first_player + i) % players for i in range(players)]
    assert tuple(s.missions[p] for p in order) == dealt and len(set(dealt)) == players
    assert set(dealt) <= set(mission_deck(players, european=False, rules=RULES_VERSION))
    assert s.phase == st.SETUP_PLACE and table.menu.stage == menus.SETUP_PLACE_STAGE
    assert replay(CONFIG, table.log) == s


def test_the_deal_is_uniform_over_the_engines_outcomes_only() -> None:
    config = preset_config("mission_1993", 3)
    s = _at_the_deal(config, 7)
    legal = chance_outcomes(s).cards
    # All 12 cards of the 1993 deck, destroy cards of colours not in play too; the
    # European missions are out.
    assert mission_index("destroy_3") in legal and mission_index("destroy_2") in legal
    assert len(legal) == 12

    class Stepped(random.Random):
        """random() at the middle of the k-th of n equal slices."""

        def __init__(self, k: int, n: int) -> None:
            super().__init__(0)
            self.value = (k + 0.5) / n

        def random(self) -> float:
            return self.value

    # Each of n equally likely values of the RNG deals a different first mission: every
    # legal outcome exactly once, so each has probability 1/n.
    firsts = []
    for k in range(len(legal)):
        table = TableSession(config, [1, 2, 3], CARDS, dice=Stepped(k, len(legal)), start=s)
        assert table.menu.stage == menus.MISSIONS_STAGE and table.state.phase == st.MISSION_DEAL
        refused(table, 1, confirm(1), "dealing the missions")
        assert table.view(1)["lines"][0] == "Dealing missions"
        out = table.step_bots()
        assert out is not None and all(isinstance(a, DealMission) for a in out.actions)
        assert len(out.actions) == 3 and table.state.phase == st.SETUP_PLACE
        firsts.append(table.state.missions[s.first_player])
    assert sorted(firsts) == sorted(legal)

    # A real RNG over many deals: only legal missions, all of them, to every player.
    seen: set[int] = set()
    for seed in range(200):
        table = TableSession(config, [1, 2, 3], CARDS, dice=random.Random(seed), start=s)
        assert table.step_bots() is not None
        seen.update(table.state.missions)
    assert seen == set(legal)


def test_each_seat_shows_its_own_mission_and_nothing_public_does() -> None:
    table, pilot = _table_and_pilot(CONFIG, 2)
    out = _play_to_the_deal(table, pilot)
    s = table.state
    texts = _mission_texts(table)
    first = table.seats[s.player]
    assert set(out.views) == set(table.seats)
    for seat in table.seats:
        lines = table.view(seat)["lines"]
        assert all(len(line) <= 24 for line in lines)
        if seat == first:
            assert lines[0] == "Place 1 army on"  # acting: the placement asks
        else:
            assert lines == [f"Seat {first} to play", *texts[seat], "Missions dealt"]
        for other, text in texts.items():
            if other != seat and text != texts[seat]:
                assert text[1] not in lines, (seat, other, lines)
    # The public board and the LED scene are the same whatever the missions are.
    hidden = s._replace(missions=(-1,) * CONFIG.players)
    assert board_message(s) == board_message(hidden)
    assert led_scene(s, table.highlight) == led_scene(hidden, table.highlight)
    assert table.highlight == frozenset({CONFIG.board.territory_ids[table.menu.cursor]})

    # The first player sees their mission once they have placed and wait.
    ok_out = table.handle(first, confirm(first))
    assert ok_out.error is None
    assert table.view(first)["lines"][1:3] == texts[first]


@pytest.mark.parametrize("target_lost", ["counts", "occupy_24"])
def test_every_mission_fits_the_display_in_every_colour(target_lost: str) -> None:
    for players in (3, 4, 5, 6):
        config = _with(preset_config("mission_1993", players),
                       mission_target_lost=target_lost, european_missions="on")
        base = _at_the_deal(config, players)
        for m in mission_deck(players, european=True, rules=RULES_VERSION):
            for seats in ([1, 2, 3, 4, 5, 6][:players], [6, 5, 4, 3, 2, 1][:players]):
                s = base._replace(missions=(m,) * players)
                for p in range(players):
                    lines = mission_lines(s, p, seats)
                    assert len(lines) == 2 and all(len(x) <= 24 for x in lines), lines
                    mission = MISSIONS[m]
                    if mission.kind == "destroy" and p != mission.target < players:
                        colour = SEAT_COLOURS[seats[mission.target] - 1].name
                        assert lines == ["Mission: destroy",
                                         f"{colour} (seat {seats[mission.target]})"]
                    elif mission.kind == "destroy":  # own or absent colour: 24 territories
                        assert lines == ["Mission: occupy", "24 territories"]
    assert mission_lines(base._replace(missions=(4,) * 6), 0, [1, 2, 3, 4, 5, 6]) == [
        "Mission: occupy", "18 terr., 2+ armies each"]
    assert mission_lines(base._replace(missions=(12,) * 6), 0, [1, 2, 3, 4, 5, 6]) == [
        "Mission: Europe and", "S.America and a third"]


@pytest.mark.parametrize(("target_lost", "shown"), [
    ("counts", ["Mission: destroy", "sky (seat 2)"]),
    ("occupy_24", ["Mission: occupy", "24 territories"])])
def test_a_destroy_mission_reads_as_the_engine_has_it_now(target_lost: str,
                                                          shown: list[str]) -> None:
    s = _at_the_deal(_with(CONFIG, mission_target_lost=target_lost), 1)
    s = s._replace(missions=(mission_index("destroy_1"), 0, 1, 2))
    assert mission_lines(s, 0, [1, 2, 3, 4]) == ["Mission: destroy", "sky (seat 2)"]
    # Seat 3 took seat 2's last territory: the card no longer means the same everywhere.
    gone = s._replace(eliminated_by=(-1, 2, -1, -1))
    assert mission_lines(gone, 0, [1, 2, 3, 4]) == shown
    assert mission_index("territories_24") == OCCUPY_24


def test_a_bots_mission_shows_nowhere() -> None:
    bots: dict[int, Bot] = {seat: HeuristicBot(40 + seat) for seat in (2, 3)}
    table, pilot = _table_and_pilot(CONFIG, 4, bots=bots)
    _play_to_the_deal(table, pilot)
    texts = _mission_texts(table)
    for _ in range(40):  # on into the setup placement, bots and people taking turns
        for seat in table.seats:
            lines = table.view(seat)["lines"]
            assert not any(line.startswith("Mission:") for line in lines
                           if table.is_bot(seat)), lines
            for bot in bots:
                if texts[bot] != texts.get(seat) and not table.is_bot(seat):
                    assert texts[bot][1] not in lines, (seat, lines)
        out = table.step_bots()
        if out is None:
            event = pilot.next_event()
            assert event is not None
            assert table.handle(*event).error is None
    people = [seat for seat in table.seats if not table.is_bot(seat)]
    assert any(table.view(seat)["lines"][1:3] == texts[seat] for seat in people)


def test_a_restart_keeps_the_missions_and_deals_nothing_again() -> None:
    table, pilot = _table_and_pilot(CONFIG, 3)
    _play_to_the_deal(table, pilot)
    log = table.log
    # Another RNG after the restart: it must not matter, the deal is in the journal.
    rebuilt = TableSession(CONFIG, table.seats, CARDS, dice=random.Random(99), actions=log)
    assert rebuilt.state == table.state and rebuilt.state.missions == table.state.missions
    assert rebuilt.step_bots() is None and rebuilt.log == log
    for seat in table.seats:
        assert rebuilt.view(seat) == table.view(seat)

    # A journal that stops right at the deal (written before the hub dealt): the rebuilt
    # session deals once, without input, when bots are stepped (the service does at start).
    dealt = sum(1 for a in log if isinstance(a, DealMission))
    cut = log[:len(log) - dealt]
    waiting = TableSession(CONFIG, table.seats, CARDS, dice=random.Random(5), actions=cut)
    assert waiting.state.phase == st.MISSION_DEAL
    out = waiting.step_bots()
    assert out is not None and len(out.actions) == dealt
    assert -1 not in waiting.state.missions and waiting.step_bots() is None


@pytest.mark.parametrize(("players", "seed"), [(3, 1), (3, 2), (4, 1), (4, 2), (6, 1), (6, 3)])
def test_a_whole_mission_game_through_seat_events_replays(players: int, seed: int) -> None:
    config = preset_config("mission_1993", players)
    table, pilot = _table_and_pilot(config, seed)
    play(table, pilot)
    final = table.state
    assert final.phase == st.GAME_OVER and how_won(final) in ("mission", "conquest")
    assert sum(1 for a in table.log if isinstance(a, DealMission)) == players
    assert replay(config, table.log) == final
    winner = table.seats[final.winner]
    shown = mission_lines(final, final.winner, table.seats)
    assert table.view(winner)["lines"] == ["You won!", *shown]
    for seat in table.seats:
        if seat != winner:
            assert table.view(seat)["lines"] == [f"Seat {winner} won", *shown]
    assert TableSession(config, table.seats, CARDS, actions=table.log).state == final


def test_mission_games_are_won_by_missions() -> None:
    ways = set()
    for players, seed in ((3, 1), (4, 1), (6, 1)):
        table, pilot = _table_and_pilot(preset_config("mission_1993", players), seed)
        play(table, pilot)
        ways.add(how_won(table.state))
    assert "mission" in ways
