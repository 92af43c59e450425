"""A whole game of every rule set refereed by the hub's :class:`TableService` in this
process, fed each seat event as the network loop hands it over, against a mirror.

An autopilot decides what each seat does; every event goes to the service first and
then to a mirror session (:func:`tests.support.virtual_table.mirror_table`), which
must judge it the same way: applied, or refused with the same code. Now and then a
seat that may not act presses Confirm, so the service has refusals to get right.
At the end the service's game, its seats' last views, its board and its journal (the
export, its replay, each seat's input numbers, the dice statistics) are the mirror's.

The same games over a real broker, with protocol-level seats (births, the gate's
numbering, retained views and board), are tests/e2e/test_hub_games.py: it plays one
rule set whole over mosquitto (and a classic game across a broker restart); what it
would prove of the others is rule-set independent there and proved per rule set here.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from riskproto import messages
from risktable.config import HubConfig, LedConfig, TableConfig
from risktable.journal import Journal, journal_path
from risktable.rules import Commander, Config, OpeningRoll, Reroll, RerollDie, Roll, replay
from risktable.rules.goals import how_won
from risktable.rules.record import loads
from risktable.rules.state import GAME_OVER
from risktable.service.table_service import TableService, chance_rng, rules_config
from risktable.table.public import board_message
from risktable.table.session import TableSession
from tests.support.virtual_table import mirror_table
from tests.table.inputs import cards_of

TABLE = "hub-games"
POKE_EVERY = 97  # an off-turn Confirm press this often, so refusals are checked too
# How the games here may end (how_won), by goal: a territories game (two_player_2016)
# by its 30 territories or by eliminating the opponent, whichever the engine sees first.
WINS = {"conquest": {"conquest"}, "capitals": {"capitals"},
        "territories": {"territories", "conquest"}, "missions": {"mission"}}

# (rule set name, players, options on top of the rule set, seed). A new preset is one line.
GAMES = [
    pytest.param("classic", 3, {}, 1, id="classic-3"),
    pytest.param("classic", 4, {}, 1, id="classic-4"),
    pytest.param("classic", 3, {"setup": "deal", "fortify": "connected"}, 2,
                 id="classic-deal-connected-3"),
    pytest.param("classic_2016", 3, {}, 2, id="classic_2016-3"),
    pytest.param("two_player_1993", 2, {}, 1, id="two_player_1993-2"),
    pytest.param("two_player_2016", 2, {}, 1, id="two_player_2016-2"),
    pytest.param("capital_1993", 4, {}, 1, id="capital_1993-4"),
    pytest.param("master_1993", 3, {}, 4, id="master_1993-3"),
    pytest.param("mission_1993", 4, {}, 1, id="mission_1993-4"),
]
HUB_SEED = 2026  # the service's seed: the mission deal the mirror must draw too


def rules_for(name: str, players: int, options: dict[str, Any]) -> Config:
    config = rules_config(name, players)
    return dataclasses.replace(config, options=dataclasses.replace(config.options, **options))


def chance_faces(action: object) -> tuple[int, ...]:
    """The die faces an action of the record rolled (none for a decision)."""
    if isinstance(action, Roll):
        return (*action.attack, *action.defend)
    if isinstance(action, OpeningRoll):
        return action.faces
    if isinstance(action, RerollDie):
        return (action.face,)
    return ()


def off_turn_seat(mirror: TableSession) -> int | None:
    """A seat the game is not waiting on, nor waiting for dice from."""
    acting = mirror.menu.player
    idle = [s for p, s in enumerate(mirror.seats)
            if p != acting and not mirror.standing_commands(s)]
    return idle[0] if idle else None


def check_the_end(mirror: TableSession, rules: Config) -> tuple[int, list[str]]:
    """The mirror's game ended as its rule set ends; the winner's seat and what its
    last view reveals (a mission)."""
    final = mirror.state
    assert how_won(final) in WINS[rules.options.goal]
    if rules.modifiers:
        # The seed is one whose held rolls were changed both ways at the seats.
        assert any(isinstance(a, Reroll) for a in mirror.log)
        assert any(isinstance(a, Commander) for a in mirror.log)
    winner = mirror.seats[final.winner]
    revealed = mirror.view(winner)["lines"][1:]
    assert bool(revealed) == (rules.options.goal == "missions")
    return winner, revealed


def check_the_journal(data_dir: Path, game: int, mirror: TableSession,
                      acked: dict[int, list[int]]) -> dict[int, int | None]:
    """The hub's journal in ``data_dir`` holds the mirror's finished ``game``, each
    seat's ``acked`` input numbers, and every die face in its statistics; returns the
    boot each seat's inputs were journalled under."""
    final = mirror.state
    boots: dict[int, int | None] = {}
    with Journal(journal_path(data_dir)) as journal:
        info = journal.game(game)
        assert info.status == "finished" and info.winner == final.winner
        log = loads(journal.export(game))
        actions = list(log.actions())
        assert log.config == mirror.config and actions == mirror.log
        assert replay(log.config, actions) == final
        for seat in mirror.seats:
            boots[seat], seqs = journal.input_seqs(game, seat)
            assert seqs == sorted(acked[seat])
        # Every face of every roll came from some seat's dice event (the attacker's and
        # the defender's in separate events), and each one is in the dice statistics.
        faces = [f for a in actions for f in chance_faces(a)]
        stats = journal.die_stats()
        assert [sum(s.counts[f - 1] for s in stats) for f in range(1, 7)] == [
            faces.count(f) for f in range(1, 7)]
        assert {s.die.split("-")[0] for s in stats} == {f"seat{n}" for n in mirror.seats}
    return boots


@pytest.mark.slow
@pytest.mark.parametrize(("name", "players", "options", "seed"), GAMES)
def test_a_whole_game_refereed_by_the_service_matches_the_mirror(
        tmp_path: Path, name: str, players: int, options: dict[str, str], seed: int) -> None:
    rules = rules_for(name, players, options)
    data_dir = tmp_path / "hub"
    service = TableService(HubConfig(table=TableConfig(TABLE, players, name),
                                     leds=LedConfig(enabled=False), panel_enabled=False,
                                     data_dir=data_dir),
                           rules=rules, card_uids=cards_of(rules.options.deck), seed=HUB_SEED)
    # The hub deals the secret missions from its seeded RNG; the mirror draws from the
    # same one (no bots here use it first), so both deal the same missions.
    mirror, pilot = mirror_table(rules, seed, chance_rng(HUB_SEED, service.game_id, 0))
    acked: dict[int, list[int]] = {seat: [] for seat in mirror.seats}
    refused: list[str] = []
    pokes = 0

    def both(seat: int, event: dict[str, Any]) -> None:
        error = service._on_event(seat, event)
        out = mirror.handle(seat, event)
        where = f"seat {seat} {event}"
        assert (error is None) == (out.error is None), (where, error, out.error)
        if error is None:
            acked[seat].append(event["seq"])
        else:
            assert out.error is not None and error.code == out.error.code, (where, error)
            refused.append(error.code)

    try:
        n = 0
        while mirror.state.phase != GAME_OVER:
            idle = off_turn_seat(mirror) if n % POKE_EVERY == POKE_EVERY // 2 else None
            if idle is not None:
                both(idle, messages.message("event", seat=idle, seq=10_000 + pokes,
                                            kind="button", button="confirm", press="short"))
                pokes += 1
            step = pilot.next_event()
            assert step is not None, f"nobody can act at {mirror.menu}"
            both(*step)
            n += 1

        final = mirror.state
        assert service.session.state == final
        winner, revealed = check_the_end(mirror, rules)
        for seat in mirror.seats:
            view = service.session.view(seat)
            expected = ["You won!"] if seat == winner else [f"Seat {winner} won"]
            assert view["lines"] == [*expected, *revealed]
            assert view["phase"] == "over" and view["active"] is False
        assert board_message(service.session.state) == board_message(final)
        game = service.game_id
    finally:
        service.journal.close()

    # Only the off-turn presses were refused, each as the mirror judged it.
    assert len(refused) == pokes > 0
    assert set(refused) == {"not_allowed"}
    check_the_journal(data_dir, game, mirror, acked)
