"""Rules versions: logs and journals made before issue 14's readings still replay under
the readings they were played by; a version this engine does not know is refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from risktable.journal.store import Journal
from risktable.rules import Config, IllegalActionError, State
from risktable.rules.actions import DrawCard
from risktable.rules.engine import apply, new_game, replay
from risktable.rules.options import RULES_VERSION
from risktable.rules.record import LogFormatError, dumps, header, loads
from risktable.rules.render import summary

FIXTURES = Path(__file__).parent / "fixtures"
EXPECTED = json.loads((FIXTURES / "rules_v1_expected.json").read_text("utf-8"))
GAMES = sorted(EXPECTED)


def _log_text(name: str) -> str:
    return (FIXTURES / f"rules_v1_{name}_3p.jsonl").read_text("utf-8")


def _summary(s: State, actions: int) -> dict[str, object]:
    # What the engine before version 2 summarised, and the version it was played under.
    got = {"actions": actions, **summary(s)}
    assert got.pop("rules") == 1 and "capital_cards" not in got
    return got


@pytest.mark.parametrize("name", GAMES)
def test_a_log_without_a_rules_version_replays_under_version_1(name: str) -> None:
    log = loads(_log_text(name))
    assert log.config.rules == 1
    actions = list(log.actions())
    expected = {k: v for k, v in EXPECTED[name].items() if k != "journal_game"}
    assert _summary(replay(log.config, actions), len(actions)) == expected


def test_a_journal_made_before_rules_versions_keeps_replaying(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    shutil.copy(FIXTURES / "rules_v1_journal.sqlite", path)
    with Journal(path) as journal:
        for name in GAMES:
            game = EXPECTED[name]["journal_game"]
            assert journal.config(game).rules == 1
            expected = {k: v for k, v in EXPECTED[name].items() if k != "journal_game"}
            assert _summary(journal.state(game), len(journal.actions(game))) == expected


def test_the_old_capital_game_is_refused_under_the_new_reading() -> None:
    # The fixture draws a capital's card, which version 2 never allows: the version
    # in the header is what keeps it valid.
    head, *lines = _log_text("capital_1993").splitlines()
    as_v2 = "\n".join([json.dumps({**json.loads(head), "rules": 2}), *lines])
    log = loads(as_v2)
    s = new_game(log.config)
    with pytest.raises(IllegalActionError, match="not in the draw pile"):
        for a in log.actions():
            before = s
            s, _ = apply(s, a)
    assert isinstance(a, DrawCard) and a.card in before.laid


def test_new_logs_and_journals_record_the_current_rules_version(tmp_path: Path) -> None:
    config = Config(3)
    assert header(config)["rules"] == RULES_VERSION == 2
    assert loads(dumps(config, [])).config.rules == RULES_VERSION
    with Journal(tmp_path / "j.sqlite") as journal:
        game = journal.create_game(config, "t")
        assert json.loads(journal.export(game).splitlines()[0])["rules"] == RULES_VERSION


@pytest.mark.parametrize("version", [3, 0, "2"])
def test_an_unknown_rules_version_is_refused_in_one_line_naming_it(version: object) -> None:
    text = dumps(Config(3), []).replace('"rules": 2', f'"rules": {json.dumps(version)}')
    with pytest.raises(LogFormatError) as err:
        loads(text)
    message = str(err.value)
    assert f"rules version {version!r}" in message and "\n" not in message
