"""``risktable games list | export | resume`` and ``risktable dice stats`` on real journals."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from risktable.journal import ActionMeta, DieFace, Journal, journal_path
from risktable.rules import Config, OpeningRoll, Options
from risktable.rules.record import dumps
from risktable.rules.selfplay import selfplay
from tests.journal.helpers import journal_log
from tests.support.cli import run


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A journal with a finished 3-player game (1) and a running 4-player game (2)."""
    with Journal(journal_path(tmp_path)) as j:
        config = Config(3)
        done = j.create_game(config, "t1")
        journal_log(j, done, config, next(selfplay(config, 1, 2)).log)
        j.finish(done)
        config = Config(4, Options(setup="deal"))
        running = j.create_game(config, "t2")
        journal_log(j, running, config, next(selfplay(config, 1, 3)).log[:150])
    return tmp_path


def test_list_text_and_json(capsys: pytest.CaptureFixture[str], data_dir: Path) -> None:
    code, out, _ = run(capsys, "games", "list", "--data-dir", str(data_dir))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["id", "table", "players"]
    winner = str(next(selfplay(Config(3), 1, 2)).winner)
    assert lines[1].split()[:5] == ["1", "t1", "3", "finished", winner]
    assert lines[2].split()[:6] == ["2", "t2", "4", "running", "-", "150"]
    code, out, _ = run(capsys, "games", "list", "--data-dir", str(data_dir), "--json")
    doc = json.loads(out)
    assert [(g["id"], g["status"], g["players"]) for g in doc] == [
        (1, "finished", 3), (2, "running", 4)]
    assert doc[1]["options"]["setup"] == "deal" and doc[1]["actions"] == 150
    assert doc[0]["winner"] == next(selfplay(Config(3), 1, 2)).winner


def test_export_replays_with_rules_replay(capsys: pytest.CaptureFixture[str], data_dir: Path,
                                          tmp_path: Path) -> None:
    config = Config(4, Options(setup="deal"))
    log = next(selfplay(config, 1, 3)).log[:150]
    code, out, _ = run(capsys, "games", "export", "2", "--data-dir", str(data_dir))
    assert code == 0 and out == dumps(config, log)
    target = tmp_path / "game2.jsonl"
    code, out, _ = run(capsys, "games", "export", "2", "--data-dir", str(data_dir),
                       "--out", str(target))
    assert code == 0 and out == "" and target.read_text() == dumps(config, log)
    code, out, _ = run(capsys, "rules", "replay", str(target), "--json")
    assert code == 0 and json.loads(out)["actions"] == 150


def test_resume_marks_the_current_game(capsys: pytest.CaptureFixture[str],
                                       data_dir: Path) -> None:
    code, out, _ = run(capsys, "games", "resume", "2", "--data-dir", str(data_dir))
    assert code == 0
    assert out.splitlines()[0] == "game 2 is the current game of table t2: 150 actions replayed"
    with Journal(journal_path(data_dir)) as j:
        assert j.current_game("t2") == 2 and j.current_game("t1") is None
        expected = j.state(2)
    code, out, _ = run(capsys, "games", "resume", "2", "--data-dir", str(data_dir), "--json")
    doc = json.loads(out)
    assert doc["phase"] == expected.phase_name and doc["turn"] == expected.turn
    assert doc["territories"] == list(expected.counts)
    code, out, _ = run(capsys, "games", "list", "--data-dir", str(data_dir))
    assert out.splitlines()[2].endswith("(current)")
    code, _, err = run(capsys, "games", "resume", "1", "--data-dir", str(data_dir))
    assert code == 1 and err == "risktable: game 1 is finished\n"


@pytest.mark.parametrize("argv", [["games", "list"], ["games", "export", "1"],
                                  ["games", "resume", "1"], ["dice", "stats"]])
def test_missing_database_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                      argv: list[str]) -> None:
    code, out, err = run(capsys, *argv, "--data-dir", str(tmp_path / "nowhere"))
    assert code == 1 and out == ""
    assert err == (f"risktable: no journal in {tmp_path / 'nowhere'} (is this the hub's data "
                   "directory? pass --config or --data-dir)\n")
    assert not (tmp_path / "nowhere").exists()


def test_unknown_and_bad_ids(capsys: pytest.CaptureFixture[str], data_dir: Path) -> None:
    for command in ("export", "resume"):
        code, _, err = run(capsys, "games", command, "7", "--data-dir", str(data_dir))
        assert code == 1 and err == "risktable: no game 7\n"
        code, _, err = run(capsys, "games", command, "x7", "--data-dir", str(data_dir))
        assert code == 2 and len(err.splitlines()) == 1 and "'x7'" in err


def test_corrupt_rows_are_one_line(capsys: pytest.CaptureFixture[str], data_dir: Path) -> None:
    with sqlite3.connect(journal_path(data_dir)) as db:
        db.execute("UPDATE actions SET action = '{\"a\": \"teleport\"}' "
                   "WHERE game_id = 2 AND idx = 40")
    for command in ("export", "resume"):
        code, out, err = run(capsys, "games", command, "2", "--data-dir", str(data_dir))
        assert code == 1 and out == "" and len(err.splitlines()) == 1
        assert err.startswith("risktable: game 2: action 40 ") and "teleport" in err
    with Journal(journal_path(data_dir)) as j:
        assert j.current_game("t2") is None  # a game that does not replay is never made current
    # The other game is untouched and still exports.
    code, _, _ = run(capsys, "games", "export", "1", "--data-dir", str(data_dir))
    assert code == 0


def test_not_a_database(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    journal_path(tmp_path).write_bytes(b"this is not SQLite\n" * 100)
    code, _, err = run(capsys, "games", "list", "--data-dir", str(tmp_path))
    assert code == 1 and len(err.splitlines()) == 1
    assert err.startswith(f"risktable: {journal_path(tmp_path)} is not a usable journal: ")


def test_dice_stats(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with Journal(journal_path(tmp_path)) as j:
        for n in range(60):
            game = j.create_game(Config(3), "t1")
            faces = (n % 6 + 1, 6, (n * 5) % 6 + 1)  # "loaded" always shows six
            j.append(game, OpeningRoll(faces), ActionMeta(
                "seat", seat=1, dice=(DieFace("fair", faces[0]), DieFace("loaded", 6),
                                      DieFace("other", faces[2]))))
            if n >= 20:
                j.abandon(game)
    code, out, _ = run(capsys, "dice", "stats", "--data-dir", str(tmp_path), "--json")
    assert code == 0
    doc = json.loads(out)
    dice = {d["die"]: d for d in doc["dice"]}
    assert dice["fair"]["faces"] == [10] * 6 and dice["fair"]["verdict"] == "fair"
    assert dice["fair"]["chi_square"] == 0 and dice["fair"]["p_value"] == 1.0
    assert dice["loaded"]["faces"] == [0, 0, 0, 0, 0, 60]
    assert dice["loaded"]["verdict"] == "suspicious" and dice["loaded"]["p_value"] < 1e-20
    assert dice["other"]["rolls"] == 60
    code, out, _ = run(capsys, "dice", "stats", "--data-dir", str(tmp_path))
    lines = out.splitlines()
    assert lines[0].startswith("die") and len(lines) == 4
    assert lines[1].split()[:9] == ["fair", "named", "60", "10", "10", "10", "10", "10", "10"]
    assert lines[2].split()[0] == "loaded" and lines[2].endswith("suspicious")
    (tmp_path / "empty").mkdir()
    Journal(journal_path(tmp_path / "empty")).close()
    code, out, _ = run(capsys, "dice", "stats", "--data-dir", str(tmp_path / "empty"))
    assert code == 0 and out == "no dice observed yet\n"


def test_damaged_pages_are_one_line(capsys: pytest.CaptureFixture[str], data_dir: Path) -> None:
    path = journal_path(data_dir)
    data = bytearray(path.read_bytes())
    assert len(data) > 3 * 4096  # the last connection's close folded the WAL into the file
    data[4096:] = bytes(range(256)) * ((len(data) - 4096) // 256) + bytes(len(data) % 256)
    path.write_bytes(bytes(data))
    for argv in (["games", "list"], ["games", "export", "1"], ["dice", "stats"]):
        code, out, err = run(capsys, *argv, "--data-dir", str(data_dir))
        assert code == 1 and out == "" and len(err.splitlines()) == 1, err
        assert "malformed" in err or "not a database" in err or "corrupt" in err, err


def test_the_data_directory_comes_from_the_hub_configuration(
        capsys: pytest.CaptureFixture[str], data_dir: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "hub.toml"
    config.write_text(f'[data]\ndir = "{data_dir}"\n')
    code, out, _ = run(capsys, "games", "list", "--config", str(config))
    assert code == 0 and out.splitlines()[1].split()[:2] == ["1", "t1"]
    code, out, _ = run(capsys, "dice", "stats", "--config", str(config))
    assert code == 0 and out.splitlines()[1].split()[:3] == ["opening1", "named", "2"]
    # Without --config, the hub's default file is read when it exists.
    monkeypatch.setattr("risktable.cli.journal_args.DEFAULT_CONFIG", config)
    code, out, _ = run(capsys, "games", "export", "2")
    assert code == 0 and out == dumps(Config(4, Options(setup="deal")),
                                      next(selfplay(Config(4, Options(setup="deal")), 1, 3))
                                      .log[:150])
    # --data-dir still wins over the configuration's directory.
    code, _, err = run(capsys, "games", "list", "--config", str(config),
                       "--data-dir", str(tmp_path / "elsewhere"))
    assert code == 1 and f"no journal in {tmp_path / 'elsewhere'}" in err
    code, _, err = run(capsys, "games", "list", "--config", str(tmp_path / "none.toml"))
    assert code == 1 and err.startswith("risktable: cannot read configuration ")
