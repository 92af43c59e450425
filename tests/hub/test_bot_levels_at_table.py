"""The bot levels at a table (docs/bots.md): ``[table] bots`` names them per seat, the hub
plays each seat at its level, a bot seat's screen and the public scene name the level,
``risktable games new --bot SEAT=LEVEL`` chooses them for one game (kept across a
restart), and ``risktable demo --bots`` chooses the demo's bots."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from riskproto import messages
from risktable import i18n
from risktable.broker_address import BrokerAddress
from risktable.config import (
    BrokerConfig,
    ConfigError,
    HubConfig,
    LedConfig,
    TableConfig,
    parse_config,
)
from risktable.demo.runner import DemoError, DemoOptions, bot_levels, bot_names
from risktable.journal import Journal, journal_path
from risktable.rules import Config
from risktable.rules.bots import LEVELS, TABLE_BOTS, EasyBot, HardBot, HeuristicBot
from risktable.rules.state import FORTIFY, GAME_OVER
from risktable.service.table_service import TableService
from risktable.table.public import scene_message
from risktable.table.session import TableSession
from tests.support.cli import run
from tests.support.mosquitto import Mosquitto
from tests.table.inputs import CARDS

TABLE = "levels"


def test_the_levels_are_table_bots_and_the_scene_knows_them() -> None:
    assert set(LEVELS) <= set(TABLE_BOTS)
    # The protocol's scene names each level, "bot" for one of no level, "" a person.
    assert set(messages.SCENE_BOTS) == {"", "bot", *LEVELS}


def test_the_configuration_seats_a_level_per_seat() -> None:
    config = parse_config('[table]\nseats = 4\nbots = { 4 = "hard", 2 = "easy", 3 = "normal" }')
    assert config.table.bots == {4: "hard", 2: "easy", 3: "normal"}
    with pytest.raises(ConfigError, match="hard"):
        # A wrong name is told with the names a table may seat.
        parse_config('[table]\nbots = { 1 = "expert" }')


def test_a_table_session_names_each_bots_level_on_its_screen_and_in_the_scene() -> None:
    bots = {1: HardBot(1), 2: EasyBot(2), 4: HeuristicBot(4)}
    table = TableSession(Config(players=4), [1, 2, 3, 4], CARDS, bots=bots,
                         bot_names={1: "hard", 2: "easy", 4: "heuristic"},
                         dice=random.Random(3))
    assert table.bot_levels == {1: "hard", 2: "easy", 4: "normal"}
    heads = {seat: table.view(seat)["lines"][0] for seat in (1, 2, 4)}
    assert heads == {1: "Hard bot: mirror moves", 2: "Easy bot: mirror moves",
                     4: "Normal bot: mirror moves"}
    assert not table.view(3)["lines"][0].endswith("mirror moves")
    highlight, facts = table.scene()
    scene = scene_message(table.state, highlight, facts, table.bot_levels)
    assert scene["bots"] == ["hard", "easy", "", "normal"]
    assert messages.validate(scene) == scene
    # A bot given without its name is a bot of no level, as random is.
    plain = TableSession(Config(players=4), [1, 2, 3, 4], CARDS,
                         bots={1: HeuristicBot(1)}, dice=random.Random(3))
    assert plain.view(1)["lines"][0] == "Bot: mirror this move"
    assert scene_message(plain.state, *plain.scene(), plain.bot_levels)["bots"] == ["bot"]


def test_the_hub_plays_a_hard_bot_seat_from_its_configuration(tmp_path: Path) -> None:
    # Three bot seats, hard among them: the service's session plays each at its level,
    # and seat 1's screen says it is the hard bot.
    table = TableConfig(TABLE, 3, "classic", {1: "hard", 2: "easy", 3: "normal"})
    service = TableService(HubConfig(table=table, leds=LedConfig(enabled=False),
                                     panel_enabled=False, data_dir=tmp_path / "hub"),
                           card_uids=CARDS, seed=7)
    try:
        session = service.session
        assert session.bot_levels == {1: "hard", 2: "easy", 3: "normal"}
        seen_hard_head = fortified = False
        # Until seat 1 (player 0) has played a whole turn of its own: planned it by the
        # hard bot's search, fought it and fortified.
        while not (fortified and session.state.player != 0):
            s = session.state
            assert s.phase != GAME_OVER
            fortified = fortified or (s.player == 0 and s.phase == FORTIFY)
            if session.view(1)["lines"][0] == "Hard bot: mirror moves":
                seen_hard_head = True
            assert session.step_bots() is not None
        assert seen_hard_head
    finally:
        service.journal.close()


def test_demo_bots_name_one_level_for_all_or_one_per_bot_seat() -> None:
    assert bot_levels(DemoOptions(seats=3)) == {}
    assert bot_levels(DemoOptions(seats=3, bots=("hard",))) == {1: "hard", 2: "hard",
                                                                 3: "hard"}
    assert bot_levels(DemoOptions(seats=4, bots=("easy", "hard", "normal"), play=1)) == {
        2: "easy", 3: "hard", 4: "normal"}
    with pytest.raises(DemoError, match="2 bots for the 3 seats"):
        bot_levels(DemoOptions(seats=3, bots=("easy", "hard")))
    with pytest.raises(DemoError, match="'expert'"):
        bot_levels(DemoOptions(seats=3, bots=("expert",)))


def test_the_demos_screens_call_its_bot_seats_by_level() -> None:
    # The demo's bots play at the seats like people: the screens name each by its level.
    options = DemoOptions(seats=3, bots=("hard", "random"), play=2)
    assert bot_names(options) == {1: "Hard bot 1", 3: "Bot 3"}
    with i18n.using("pt"):
        assert bot_names(DemoOptions(seats=2, bots=("easy",))) == {1: "Robô fácil 1",
                                                                    2: "Robô fácil 2"}
    # The hub takes them as the players' names its screens use ("Hard bot 1 to play").
    table = TableSession(Config(players=3), [1, 2, 3], CARDS, names=bot_names(options))
    assert table.name(1) == "Hard bot 1" and table.name(3) == "Bot 3"


def test_demo_refuses_a_bot_it_does_not_know_as_a_bad_argument(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "demo", "--bots", "hard,expert")
    assert code == 2 and "no bot is called 'expert'; the levels are easy, normal, hard" in err


def test_games_new_seats_bots_per_game_and_a_restart_keeps_them(
        capsys: pytest.CaptureFixture[str], mosquitto: Mosquitto, tmp_path: Path) -> None:
    data = tmp_path / "data"
    hub_toml = tmp_path / "hub.toml"
    hub_toml.write_text(f'[table]\nid = "{TABLE}"\n[data]\ndir = "{data}"\n')

    def ask(*argv: str) -> tuple[int, str, str]:
        return run(capsys, "games", "new", *argv, "--config", str(hub_toml),
                   "--broker", f"{mosquitto.host}:{mosquitto.port}")

    def config() -> HubConfig:
        # The configuration seats one normal bot; the games below choose their own.
        return HubConfig(broker=BrokerConfig(BrokerAddress(mosquitto.host, mosquitto.port)),
                         table=TableConfig(id=TABLE, seats=4, bots={4: "normal"}),
                         leds=LedConfig(enabled=False), panel_enabled=False, data_dir=data)

    service = TableService(config(), card_uids=CARDS, seed=5)
    service.start()
    try:
        assert service.inspect(lambda s: s.bot_levels) == {4: "normal"}
        code, out, _ = ask("--bot", "1=hard", "--bot", "2=easy", "--cards", "hub")
        assert code == 0 and "bots 1=hard 2=easy" in out, out
        assert service.inspect(lambda s: s.bot_levels) == {1: "hard", 2: "easy"}
        hard_game = service.game_id
        code, out, err = ask("--bot", "9=hard")
        assert code == 1 and "seat 9 is not a seat of this table (1 to 4)" in out + err
        code, _, err = ask("--bot", "2=genius")
        assert code == 2 and "bot must be one of" in err, err
    finally:
        service.stop()
    # A restarted hub carries on the game with the bots it was started with, not the
    # configuration's.
    restarted = TableService(config(), card_uids=CARDS, seed=5)
    restarted.start()
    try:
        assert restarted.game_id == hard_game
        assert restarted.inspect(lambda s: s.bot_levels) == {1: "hard", 2: "easy"}
        code, out, _ = ask("--no-bots", "--cards", "hub")
        assert code == 0 and "bots none" in out, out
        assert restarted.inspect(lambda s: s.bot_levels) == {}
    finally:
        restarted.stop()
    with Journal(journal_path(data), create=False) as journal:
        assert journal.game(1).bots is None  # as configured
        assert journal.game(hard_game).bots == {1: "hard", 2: "easy"}
        assert journal.game(restarted.game_id).bots == {}
