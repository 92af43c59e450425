"""The referee's controls of a running hub over a real broker: ``risktable table
pause | resume | undo | status`` and ``risktable games new`` (referee requests and
replies, protocol/README.md)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from risktable.broker_address import BrokerAddress
from risktable.config import BrokerConfig, HubConfig, LedConfig, TableConfig
from risktable.journal import Journal, journal_path
from risktable.rules import DrawCard
from risktable.service.table_service import (
    NOT_STARTED,
    NOT_STARTED_REASON,
    OUT_OF_GAME,
    TableService,
)
from tests.e2e.hub_driver import LedLog
from tests.support.cli import run
from tests.support.mosquitto import Mosquitto
from tests.support.seat_client import SeatClient
from tests.table.inputs import CARDS, dice

TABLE = "ref"
# Every LED scene the hub of the `hub` fixture showed.
LEDS = LedLog()


def _config(broker: Mosquitto, data_dir: Path, **table: object) -> HubConfig:
    return HubConfig(
        broker=BrokerConfig(BrokerAddress(broker.host, broker.port)),
        table=TableConfig(id=TABLE, **table),  # type: ignore[arg-type]
        leds=LedConfig(enabled=False), panel_enabled=False, data_dir=data_dir)


@pytest.fixture
def hub(mosquitto: Mosquitto, tmp_path: Path) -> Iterator[TableService]:
    """A 4-seat classic table whose seats 1 to 3 are bots: they play until seat 4
    must act, so the journal holds actions to undo."""
    config = _config(mosquitto, tmp_path / "data", seats=4,
                     bots={1: "heuristic", 2: "heuristic", 3: "heuristic"})
    service = TableService(config, card_uids=CARDS, seed=5, show_leds=LEDS)
    service.start()
    yield service
    service.stop()


@pytest.fixture
def hub_toml(mosquitto: Mosquitto, tmp_path: Path) -> Path:
    """The hub's configuration file as the referee's commands read it."""
    path = tmp_path / "hub.toml"
    path.write_text(f'[table]\nid = "{TABLE}"\n[data]\ndir = "{tmp_path / "data"}"\n')
    return path


def _ask(capsys: pytest.CaptureFixture[str], mosquitto: Mosquitto, hub_toml: Path,
         *argv: str) -> tuple[int, str, str]:
    return run(capsys, *argv, "--config", str(hub_toml),
               "--broker", f"{mosquitto.host}:{mosquitto.port}")


def test_status_pause_and_resume(capsys: pytest.CaptureFixture[str], mosquitto: Mosquitto,
                                 hub_toml: Path, hub: TableService) -> None:
    code, out, _ = _ask(capsys, mosquitto, hub_toml, "table", "status")
    assert code == 0 and out.startswith("game 1 (4 seats): ") and "paused" not in out
    code, out, _ = _ask(capsys, mosquitto, hub_toml, "table", "pause")
    assert code == 0 and out.startswith("paused; game 1 ") and out.endswith(", paused\n")
    assert hub.paused
    with SeatClient(mosquitto.host, mosquitto.port, TABLE, 4) as seat:
        answer = seat.request({"kind": "button", "button": "confirm", "press": "short"})
        assert (answer.code, answer.detail) == ("not_allowed", "The referee has paused the game")
        assert seat.wait_for_view(lambda v: True)["lines"][0] == "Paused by the referee"
    code, out, _ = _ask(capsys, mosquitto, hub_toml, "table", "resume", "--json")
    reply = json.loads(out)
    assert code == 0 and reply["accepted"] and reply["paused"] is False
    assert reply["detail"].startswith("resumed; game 1 ") and reply["game"] == 1
    assert not hub.paused
    with SeatClient(mosquitto.host, mosquitto.port, TABLE, 4) as seat:
        assert "Paused by the referee" not in seat.wait_for_view(lambda v: True)["lines"]


def test_undo_withdraws_the_last_actions(capsys: pytest.CaptureFixture[str],
                                         mosquitto: Mosquitto, hub_toml: Path,
                                         hub: TableService) -> None:
    # Seat 4 rolls its opening die (the hub armed it): with a 1 it goes last, so the
    # bots claim first.
    roll = hub.inspect(lambda session: session.standing_commands(4))[0][1]["roll"]
    with SeatClient(mosquitto.host, mosquitto.port, TABLE, 4) as seat:
        assert seat.request(dice(4, roll, 1)).ack
    _ask(capsys, mosquitto, hub_toml, "table", "pause")
    before = hub.inspect(lambda session: len(session.log))
    assert before > 2
    board_before = hub.inspect(lambda session: session.state)
    code, out, _ = _ask(capsys, mosquitto, hub_toml, "table", "undo", "2", "--json")
    reply = json.loads(out)
    assert code == 0 and reply["detail"].startswith("undid 2 actions; game 1 ")
    # Each undo withdraws a decision and the chance outcomes that answered it.
    assert reply["actions"] == hub.inspect(lambda session: len(session.log)) < before - 1
    with Journal(journal_path(hub.config.data_dir), create=False) as journal:
        undone = [e for e in journal.actions(1, include_undone=True) if e.undone]
    assert len(undone) >= 2
    # The territories whose armies go back blink on the LED board, and only they.
    after = hub.inspect(lambda session: session.state)
    ids = after.config.board.territory_ids
    moved = {ids[t] for t in range(len(ids))
             if (board_before.owners[t], board_before.armies[t]) != (after.owners[t],
                                                                     after.armies[t])}
    assert moved and {t for t, light in LEDS.scenes[-1][1].items() if light.blink} == moved
    with SeatClient(mosquitto.host, mosquitto.port, TABLE, 1) as seat:
        # Paused still: the pause's notice heads every screen.
        assert seat.wait_for_view(lambda v: True)["lines"][:2] == [
            "Paused by the referee", "Referee undid a move"]
    code, out, _ = _ask(capsys, mosquitto, hub_toml, "table", "undo", "0")
    assert code == 2


def test_nothing_to_undo_is_refused(capsys: pytest.CaptureFixture[str], mosquitto: Mosquitto,
                                    hub_toml: Path, tmp_path: Path) -> None:
    # No bots: the game waits for the first seat, with nothing done yet.
    service = TableService(_config(mosquitto, tmp_path / "data", seats=3), card_uids=CARDS)
    service.start()
    try:
        code, out, _ = _ask(capsys, mosquitto, hub_toml, "table", "undo")
        assert code == 1 and out.startswith("nothing to undo in game 1; game 1 (3 seats)")
    finally:
        service.stop()


def test_games_new_abandons_the_game_in_hand_and_starts_one_with_house_rules(
        capsys: pytest.CaptureFixture[str], mosquitto: Mosquitto, hub_toml: Path,
        hub: TableService) -> None:
    old_export = run(capsys, "games", "export", "1", "--config", str(hub_toml))[1]
    code, out, _ = _ask(capsys, mosquitto, hub_toml, "games", "new", "--house",
                        "defence_dice=3", "--house", "second_set=forced")
    assert code == 0, out
    assert out.startswith("game 2 started (4 seats, defence_dice=3, second_set=forced); "
                          "game 1 kept as abandoned; game 2 ")
    assert hub.game_id == 2 and hub.session.config.options.defence_dice == "3"
    code, out, _ = run(capsys, "games", "list", "--config", str(hub_toml), "--json")
    games = {g["id"]: g for g in json.loads(out)}
    assert games[1]["status"] == "abandoned" and games[2]["current"]
    assert games[2]["options"]["second_set"] == "forced"
    # The abandoned game's export is what it was.
    assert run(capsys, "games", "export", "1", "--config", str(hub_toml))[1] == old_export

    # A two-player rule set implies two seats; the other seats sit this game out.
    code, out, _ = _ask(capsys, mosquitto, hub_toml, "games", "new", "--rules",
                        "two_player_1993")
    assert code == 0 and out.startswith("game 3 started (two_player_1993, 2 seats, "), out
    with SeatClient(mosquitto.host, mosquitto.port, TABLE, 4) as seat:
        assert seat.wait_for_view(lambda v: v.get("lines") == [OUT_OF_GAME])["active"] is False
        answer = seat.request({"kind": "button", "button": "confirm", "press": "short"})
        assert answer.detail == "Seat 4 does not play in this game"

    # Refusals are one line naming the shortest fix first, and the game in hand stays.
    for argv, says in ((["--seats", "5"], "this hub serves seats 1 to 4: games new --seats 4 "
                        "plays classic here (for 5 seats, set [table] seats = 5 in the hub "
                        "configuration and restart the hub)\n"),
                       (["--rules", "classic_2016", "--house", "second_set=forced"],
                        "second_set is about 1993 symbol sets: it needs deck = 1993")):
        code, out, _ = _ask(capsys, mosquitto, hub_toml, "games", "new", *argv)
        assert code == 1 and out.count("\n") == 1 and says in out, out
    assert hub.game_id == 3
    code, _, err = _ask(capsys, mosquitto, hub_toml, "games", "new", "--house", "defence_dice=4")
    assert code == 2 and "house rule defence_dice must be one of 2, 3, not '4'" in err


def test_no_hub_is_one_line(capsys: pytest.CaptureFixture[str], mosquitto: Mosquitto,
                            hub_toml: Path) -> None:
    code, out, err = _ask(capsys, mosquitto, hub_toml, "table", "status", "--timeout", "0.5")
    assert code == 1 and out == ""
    assert err == (f"risktable: no answer from the hub of table {TABLE} within 0.5 s (is it "
                   f"running, and the guest broker at {mosquitto.host}:{mosquitto.port} "
                   "bridged to its broker?)\n")


def test_a_hub_configured_otherwise_says_so_and_carries_on(
        mosquitto: Mosquitto, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    first = TableService(_config(mosquitto, tmp_path / "data", seats=4), card_uids=CARDS)
    first.journal.close()
    changed = _config(mosquitto, tmp_path / "data", seats=3, house={"defence_dice": "3"})
    with caplog.at_level(logging.WARNING):
        again = TableService(changed, card_uids=CARDS)
    again.journal.close()
    assert again.game_id == first.game_id and again.session.config.players == 4
    assert again.hub.seats == 4  # it serves every seat of the game it carries on
    lines = [r.getMessage() for r in caplog.records if "carries on" in r.getMessage()]
    assert lines == [f"table {TABLE} carries on game 1 (4 seats); the configuration asks for "
                     "classic, 3 seats, defence_dice=3: `risktable games new` starts a game "
                     "as configured"]
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        TableService(_config(mosquitto, tmp_path / "data", seats=4),
                     card_uids=CARDS).journal.close()
    assert "carries on" not in caplog.text


@pytest.mark.slow
def test_the_panels_held_start_button_starts_a_game_only_when_none_runs(
        mosquitto: Mosquitto, tmp_path: Path) -> None:
    bots = {1: "heuristic", 2: "heuristic", 3: "heuristic"}
    service = TableService(_config(mosquitto, tmp_path / "bots", seats=3, bots=bots),
                           card_uids=CARDS, seed=2)
    service.start()  # the bots play game 1 to its end at once
    try:
        assert service.inspect(lambda session: session.state.is_terminal)
        assert service.new_game_if_over() == 2
        with Journal(journal_path(tmp_path / "bots"), create=False) as journal:
            assert journal.game(1).status == "finished" and journal.current_game(TABLE) == 2
    finally:
        service.stop()
    waiting = TableService(_config(mosquitto, tmp_path / "people", seats=3), card_uids=CARDS)
    waiting.start()
    try:
        assert waiting.new_game_if_over() is None and waiting.game_id == 1
    finally:
        waiting.stop()


def test_a_game_whose_deck_is_not_enrolled_does_not_start(
        capsys: pytest.CaptureFixture[str], mosquitto: Mosquitto, hub_toml: Path,
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    # Three bots would play the whole game at once (see the panel's test above).
    bots = {1: "heuristic", 2: "heuristic", 3: "heuristic"}
    with caplog.at_level(logging.WARNING):
        bare = TableService(_config(mosquitto, tmp_path / "data", seats=4, bots=bots), seed=2)
        bare.start()
    try:
        why = ("the 1993 deck is not enrolled (0 of 44 cards): run risktable cards enroll, "
               'or play with cards = "hub" (games new --cards hub)')
        assert f"game 1 not started: {why}" in caplog.text
        assert bare.inspect(lambda session: session.log) == []
        with SeatClient(mosquitto.host, mosquitto.port, TABLE, 4) as seat:
            assert seat.wait_for_view(lambda v: v.get("lines") == NOT_STARTED)
            answer = seat.request({"kind": "button", "button": "confirm", "press": "short"})
            assert answer.detail == NOT_STARTED_REASON
            code, out, _ = _ask(capsys, mosquitto, hub_toml, "table", "status")
            assert out == "game 1 (4 seats): not started, its deck is not enrolled\n"
            # A new game that would wait for the deck is not started: nothing changes,
            # the command fails, and it says the shortest ways out.
            code, out, _ = _ask(capsys, mosquitto, hub_toml, "games", "new")
            assert code == 1 and out == (
                "no new game: the 1993 deck is not enrolled (0 of 44 cards); run risktable "
                "cards enroll first, or start it with hub-dealt cards (games new --cards "
                "hub); game 1 carries on\n"), out
            assert bare.game_id == 1 and bare.inspect(lambda session: session.log) == []
            # No roll was armed while the game waited: its opening roll is not yet due.
            assert not [c for c in seat.commands if c["cmd"] == "arm_dice"]
            # Without physical cards the game starts at once: seat 4 rolls for the start.
            code, out, _ = _ask(capsys, mosquitto, hub_toml, "games", "new", "--cards", "hub")
            assert code == 0 and out.startswith("game 2 started (4 seats, hub-dealt cards)"), out
            seat.wait_for_view(lambda v: v.get("active") is True)
            assert bare.inspect(lambda session: session.standing_commands(4))
    finally:
        bare.stop()
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        known = TableService(_config(mosquitto, tmp_path / "known", seats=3), card_uids=CARDS)
        known.start()
    known.stop()
    assert "not enrolled" not in caplog.text and "not started" not in caplog.text


def test_games_new_with_hub_cards_is_journalled_with_the_game_and_kept_on_restart(
        capsys: pytest.CaptureFixture[str], mosquitto: Mosquitto, hub_toml: Path,
        tmp_path: Path) -> None:
    # Seats 1 and 2 are bots: the game waits on seat 3's first choice.
    config = _config(mosquitto, tmp_path / "data", seats=3,
                     bots={1: "heuristic", 2: "heuristic"})
    service = TableService(config, seed=4)  # no card enrolled, physical cards
    service.start()
    try:
        code, out, _ = _ask(capsys, mosquitto, hub_toml, "games", "new", "--cards", "hub")
        assert code == 0, out
        assert out.startswith("game 2 started (3 seats, hub-dealt cards); game 1 kept as "
                              "abandoned; game 2 "), out
        assert "not enrolled" not in out and service.deck_problem() is None
        assert service.inspect(lambda session: session.hub_cards)
        log = service.inspect(lambda session: session.log)
    finally:
        service.stop()
    code, out, _ = run(capsys, "games", "list", "--config", str(hub_toml), "--json")
    assert [g["cards"] for g in json.loads(out)] == ["physical", "hub"]
    # A restart carries on each game as it was journalled, whatever the configuration says.
    again = TableService(config, seed=4)
    assert again.game_id == 2 and again.session.hub_cards and again.session.log == log
    again.journal.close()
    run(capsys, "games", "resume", "1", "--config", str(hub_toml))
    resumed = TableService(_config(mosquitto, tmp_path / "data", seats=3, cards="hub"))
    assert resumed.game_id == 1 and not resumed.session.hub_cards
    resumed.journal.close()
    code, _, err = _ask(capsys, mosquitto, hub_toml, "games", "new", "--cards", "none")
    assert code == 2 and "invalid choice: 'none'" in err


def test_a_hub_cards_table_draws_every_card_and_warns_of_no_deck(
        mosquitto: Mosquitto, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    bots = {1: "heuristic", 2: "heuristic", 3: "heuristic"}
    with caplog.at_level(logging.INFO):
        service = TableService(_config(mosquitto, tmp_path / "data", seats=3, cards="hub",
                                       bots=bots), seed=3)
        service.start()  # the bots play the game to its end at once
    try:
        assert service.journal.game(1).cards == "hub"
        assert service.inspect(lambda session: session.hub_cards and session.state.is_terminal)
        assert service.inspect(lambda session: any(isinstance(a, DrawCard)
                                                    for a in session.log))
    finally:
        service.stop()
    assert "not enrolled" not in caplog.text


def test_credentials_alone_name_the_table(
        capsys: pytest.CaptureFixture[str], mosquitto: Mosquitto, tmp_path: Path,
        hub: TableService, monkeypatch: pytest.MonkeyPatch) -> None:
    # A referee's machine with credentials.json and no hub configuration.
    monkeypatch.setattr("risktable.cli.referee_args.DEFAULT_CONFIG", tmp_path / "none.toml",
                        raising=False)
    monkeypatch.setattr("risktable.cli.journal_args.DEFAULT_CONFIG", tmp_path / "none.toml")
    creds = tmp_path / "credentials.json"
    creds.write_text(json.dumps({
        "table": TABLE, "guests": {"host": mosquitto.host, "port": mosquitto.port},
        "referee": {"username": f"{TABLE}-referee", "password": "unused"}}))
    code, out, err = run(capsys, "table", "status", "--credentials", str(creds),
                         "--timeout", "5")
    assert code == 0 and out.startswith("game 1 (4 seats): "), out + err

