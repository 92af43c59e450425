"""Every preset: listed by the CLI, played to its own victory condition, replayed exactly."""

from __future__ import annotations

import json
import random

import pytest

from risktable.cli import main
from risktable.rules import (
    CHANCE,
    Config,
    Options,
    apply,
    chance_outcomes,
    classic_board,
    current_actor,
    legal_actions,
    new_game,
    replay,
)
from risktable.rules.bots import Bot, HeuristicBot, UniformBot
from risktable.rules.decks import with_symbols
from risktable.rules.goals import how_won
from risktable.rules.presets import PRESETS, preset_config
from risktable.rules.record import dumps, loads
from risktable.rules.selfplay import selfplay

GAMES = 10

# How each rule set may end. Eliminating everyone else always wins.
ENDINGS: dict[str, set[str]] = {
    "classic_1993": {"conquest"},
    "two_player_1993": {"conquest"},
    "two_player_1993_plain_50": {"conquest"},
    "capital_1993": {"conquest", "capitals"},
    "capital_1993_short": {"conquest", "capitals"},
    "mission_1993": {"conquest", "mission"},
    "master_1993": {"conquest"},
    "beginner_2016": {"conquest", "territories", "ceasefire"},
    "classic_2016": {"conquest"},
    "two_player_2016": {"conquest", "territories"},
}
CASES = [(name, n) for name, p in PRESETS.items() for n in p.players]


def test_every_preset_has_its_ending_listed() -> None:
    assert set(ENDINGS) == set(PRESETS)


@pytest.mark.parametrize(("name", "players"), CASES)
def test_preset_games_end_by_their_own_goal_and_replay(name: str, players: int) -> None:
    config = preset_config(name, players)
    endings = set()
    for r in selfplay(config, GAMES, 2026, "heuristic"):
        assert not r.capped
        ended = how_won(r.final)
        assert ended in ENDINGS[name]
        endings.add(ended)
        if ended != "ceasefire":
            assert r.winner is not None and 0 <= r.winner < players
        log = loads(dumps(config, r.log))
        assert log.config == config
        assert replay(log.config, log.actions()) == r.final


def test_uniform_bots_play_every_preset_legally() -> None:
    # Uniformly random play reaches corners a heuristic avoids; the turn cap keeps it short.
    for name, preset in PRESETS.items():
        config = preset_config(name, preset.players[-1])
        for r in selfplay(config, 1, 7, "uniform", max_turns=60):
            assert replay(config, r.log) == r.final


def test_presets_cli_lists_every_preset_with_its_options(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "presets", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    listed = {p["name"]: p for p in doc["presets"]}
    assert set(listed) == set(PRESETS)
    for name, p in listed.items():
        assert Options(**p["options"]) == PRESETS[name].options
        assert p["players"] == list(PRESETS[name].players)
    assert listed["two_player_2016"]["options"]["two_player"] == "neutral_2016"
    assert doc["options"]["goal"] == ["conquest", "capitals", "missions", "territories"]
    assert main(["rules", "presets"]) == 0
    text = capsys.readouterr().out
    assert "mission_1993:" in text and "setup=deal, goal=missions" in text


def test_selfplay_cli_takes_a_preset_and_reports_how_games_ended(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "selfplay", "--rules", "two_player_2016", "--players", "2",
                 "--games", "2", "--seed", "3", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["rules"] == "two_player_2016" and doc["capped"] == 0
    assert {row["ended_by"] for row in doc["results"]} <= {"conquest", "territories"}
    with pytest.raises(SystemExit):
        main(["rules", "selfplay", "--rules", "nope", "--players", "3", "--games", "1",
              "--seed", "1"])
    assert main(["rules", "selfplay", "--rules", "beginner_2016", "--players", "6",
                 "--games", "1", "--seed", "1"]) == 2
    assert "2 to 5 players" in capsys.readouterr().err


def test_old_classic_headers_are_unchanged() -> None:
    head = json.loads(dumps(preset_config("classic_1993", 4), []).splitlines()[0])
    assert head["options"] == {"setup": "claim", "fortify": "adjacent",
                               "card_values": "standard", "occupy_min": "dice"}
    assert head["version"] == 1 and "two_star_cards" not in head


def test_random_bot_indexes_exactly_the_legal_actions_of_every_preset() -> None:
    phases: set[str] = set()
    bot = UniformBot(0)
    for name, preset in PRESETS.items():
        config = preset_config(name, preset.players[0])
        rng = random.Random(1)
        bots: list[Bot] = [HeuristicBot(p) for p in range(config.players)]
        s = new_game(config)
        for step in range(900):
            if s.is_terminal:
                break
            actor = current_actor(s)
            if actor == CHANCE:
                a = chance_outcomes(s).sample(rng)
            else:
                if step % 5 == 0 or s.phase_name in ("modify", "neutral", "capital"):
                    n = bot.legal_count(s)
                    indexed = [bot.legal_at(s, i) for i in range(n)]
                    assert len(set(indexed)) == n
                    assert set(indexed) == set(legal_actions(s)), (name, s.phase_name)
                    phases.add(s.phase_name)
                a = bots[actor].choose(s)
                assert a in legal_actions(s)
            s, _ = apply(s, a)
    assert {"setup_place", "reinforce", "attack", "modify", "neutral", "capital"} <= phases


def test_an_enrolled_1993_deck_plays_and_its_log_carries_the_symbols() -> None:
    board = classic_board()
    symbols = {t: ("artillery", "infantry", "cavalry")[i % 3]
               for i, t in enumerate(board.territory_ids)}
    enrolled = with_symbols(board, symbols)
    assert enrolled.card_symbols != board.card_symbols and enrolled.card_symbols[42:] == (3, 3)
    config = Config(4, board=enrolled)
    r = next(selfplay(config, 1, 5, "heuristic"))
    text = dumps(config, r.log)
    assert json.loads(text.splitlines()[0])["card_symbols"]["alaska"] == "artillery"
    log = loads(text)
    assert log.config.board.card_symbols == enrolled.card_symbols
    assert replay(log.config, log.actions()) == r.final
    with pytest.raises(ValueError, match="every territory"):
        with_symbols(board, {"alaska": "infantry"})
    with pytest.raises(ValueError, match="symbols are"):
        with_symbols(board, {**symbols, "peru": "wild"})


def test_presets_cli_lists_both_readings_of_two_sets_in_six_cards_with_their_books(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "presets", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    second = [r for r in doc["readings"] if r["option"] == "second_set"]
    assert [(r["value"], r["default"]) for r in second] == [("optional", True),
                                                            ("forced", False)]
    assert "Parker Brothers, 1993 edition (Turkish text)" in second[0]["source"]
    assert "(Romanian text)" in second[1]["source"]
    assert main(["rules", "presets"]) == 0
    text = capsys.readouterr().out
    assert "second_set=optional (default):" in text and "second_set=forced:" in text
    # Sources are books a reader can find, not files that do not ship with the project.
    for source in [p["source"] for p in doc["presets"]] + [r["source"] for r in doc["readings"]]:
        assert "seed" not in source and ".md" not in source, source
        assert "text)" in source or "wording" in source, source
