"""The engine still produces the committed golden playthroughs and golden games, byte for
byte; every rule set and option value has a golden game showing what it exists for."""

from __future__ import annotations

import difflib

import pytest

from risktable.rules import Options
from risktable.rules.presets import PRESETS
from tests.rules.golden_playthrough import (
    GOLDEN_GAMES,
    PLAYTHROUGHS,
    GoldenGame,
    Playthrough,
    features,
    path_of,
    play,
    read_log,
    render,
    turns_path,
    turns_text,
)

_REGENERATE = "regenerate with PYTHONPATH=hub:protocol python -m tests.rules.golden_playthrough"


def _differs(name: str, expected: str, got: str) -> str:
    diff = "".join(list(difflib.unified_diff(
        expected.splitlines(True), got.splitlines(True), "committed", "engine", n=2))[:60])
    return f"{name} differs ({_REGENERATE}, then review):\n{diff}"


@pytest.mark.parametrize("p", PLAYTHROUGHS, ids=lambda p: p.name)
def test_playthrough_matches_golden_file(p: Playthrough) -> None:
    expected = path_of(p).read_text("utf-8")
    got = render(p)
    if got != expected:
        pytest.fail(_differs(path_of(p).name, expected, got))


@pytest.mark.parametrize("g", GOLDEN_GAMES, ids=lambda g: g.name)
def test_golden_game_replays_to_its_turns_and_digest(g: GoldenGame) -> None:
    config, actions = read_log(g)
    assert config == g.config
    expected = turns_path(g).read_text("utf-8")
    got = turns_text(config, actions)
    if got != expected:
        pytest.fail(_differs(turns_path(g).name, expected, got))


@pytest.mark.parametrize("g", GOLDEN_GAMES, ids=lambda g: g.name)
def test_golden_game_is_still_what_its_seed_plays(g: GoldenGame) -> None:
    _, actions = read_log(g)
    assert play(g) == actions, f"{g.name}: the seeded game is no longer the committed log " \
                               f"({_REGENERATE}, then review)"


@pytest.mark.parametrize("g", GOLDEN_GAMES, ids=lambda g: g.name)
def test_golden_game_holds_the_events_its_rule_set_exists_for(g: GoldenGame) -> None:
    config, actions = read_log(g)
    final, seen = features(config, actions)
    assert set(g.required) <= seen, f"{g.name} lacks {sorted(set(g.required) - seen)}"
    assert final.is_terminal, f"{g.name} must be a whole game"


def test_every_rule_set_and_option_value_has_a_golden_game() -> None:
    assert {g.preset for g in GOLDEN_GAMES} == set(PRESETS)
    played = {(k, v) for g in GOLDEN_GAMES for k, v in g.config.options.full_dict().items()}
    wanted = {(k, v) for k, values in Options.choices().items() for v in values}
    assert wanted - played == set()
