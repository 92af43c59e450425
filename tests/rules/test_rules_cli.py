"""``risktable rules map | selfplay | replay``: output, JSON, one-line errors, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import run


def test_map_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules", "map")
    assert code == 0
    assert "42 territories, 6 continents, 83 borders, 44 cards" in out
    assert "Asia (bonus 7, 12 territories)" in out
    code, out, _ = run(capsys, "rules", "map", "--json")
    doc = json.loads(out)
    assert len(doc["territories"]) == 42 and len(doc["borders"]) == 83
    assert {c["id"]: c["bonus"] for c in doc["continents"]}["australia"] == 2
    alaska = next(t for t in doc["territories"] if t["id"] == "alaska")
    assert "kamchatka" in alaska["borders"]


def test_selfplay_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules", "selfplay", "--players", "3", "--games", "2",
                       "--seed", "4")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("game 0: winner ") and " turns, " in lines[0]
    assert "games/s" in lines[-1] and "turn cap 1000, 0 game(s) capped" in lines[-1]


def test_selfplay_json_counts_and_saved_logs_replay(capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:
    code, out, _ = run(capsys, "rules", "selfplay", "--players", "4", "--games", "2",
                       "--seed", "9", "--json", "--save", str(tmp_path), "--fortify",
                       "connected")
    assert code == 0
    doc = json.loads(out)
    assert doc["options"]["fortify"] == "connected" and doc["capped"] == 0
    for row in doc["results"]:
        assert set(row) >= {"turns", "battles", "dice_rolls", "actions", "winner"}
        code, out, _ = run(capsys, "rules", "replay", str(tmp_path / f"game-{row['game']}.jsonl"),
                           "--json")
        replayed = json.loads(out)
        assert code == 0 and replayed["valid"] and replayed["winner"] == row["winner"]
        assert replayed["actions"] == row["actions"] and replayed["turn"] == row["turns"]


def test_uniform_selfplay_reports_its_cap(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules", "selfplay", "--players", "3", "--games", "1",
                       "--seed", "1", "--bot", "uniform", "--max-turns", "10")
    assert code == 0 and "capped, no winner, 10 turns" in out and "1 game(s) capped" in out


@pytest.mark.parametrize("argv", [
    ["--players", "2", "--games", "1", "--seed", "1"],
    ["--players", "four", "--games", "1", "--seed", "1"],
    ["--players", "4", "--games", "0", "--seed", "1"],
    ["--players", "4", "--games", "1"],
    ["--players", "4", "--games", "1", "--seed", "1", "--bot", "genius"],
    ["--players", "4", "--games", "1", "--seed", "1", "--setup", "draft"],
])
def test_selfplay_bad_arguments_exit_2_one_line(capsys: pytest.CaptureFixture[str],
                                                argv: list[str]) -> None:
    code, out, err = run(capsys, "rules", "selfplay", *argv)
    assert code == 2 and out == "" and err.count("\n") == 1


def test_replay_reports_the_first_illegal_action(capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Path) -> None:
    run(capsys, "rules", "selfplay", "--players", "3", "--games", "1", "--seed", "2",
        "--save", str(tmp_path))
    path = tmp_path / "game-0.jsonl"
    lines = path.read_text().splitlines()
    # Claim a territory twice: the 2nd claim line repeats the 1st.
    claims = [i for i, line in enumerate(lines) if '"a": "claim"' in line]
    lines[claims[1]] = lines[claims[0]]
    path.write_text("\n".join(lines) + "\n")
    code, out, _ = run(capsys, "rules", "replay", str(path))
    index = claims[1] - 1  # line 1 is the header
    assert code == 1 and out.startswith(f"action {index} ") and "illegal" in out
    assert "already claimed" in out
    lines[claims[1]] = '{"a": "claim", "territory": "atlantis"}'
    path.write_text("\n".join(lines) + "\n")
    code, out, _ = run(capsys, "rules", "replay", str(path), "--json")
    doc = json.loads(out)
    assert code == 1 and doc["index"] == index and doc["error"] == "malformed"


def test_replay_of_a_missing_or_broken_file_is_one_line(capsys: pytest.CaptureFixture[str],
                                                       tmp_path: Path) -> None:
    code, _, err = run(capsys, "rules", "replay", str(tmp_path / "nope.jsonl"))
    assert code == 1 and err.count("\n") == 1 and "cannot read" in err
    bad = tmp_path / "bad.jsonl"
    bad.write_text("hello\n")
    code, _, err = run(capsys, "rules", "replay", str(bad))
    assert code == 1 and err.count("\n") == 1 and "not JSON" in err


def test_selfplay_shows_progress_on_stderr(capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    import risktable.cli.rules_selfplay as cli

    monkeypatch.setattr(cli, "_PROGRESS_EVERY_S", 0.0)
    code, out, err = run(capsys, "rules", "selfplay", "--players", "3", "--games", "2",
                         "--seed", "3", "--json")
    assert code == 0 and json.loads(out)["games"] == 2
    assert err.splitlines() == ["selfplay: 1/2 games", "selfplay: 2/2 games"]


def test_replay_of_a_log_of_an_unknown_rules_version_is_one_line_naming_it(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    newer = tmp_path / "newer.jsonl"
    newer.write_text(json.dumps({"format": "risktable-action-log", "version": 1, "rules": 9,
                                 "board": "classic", "players": 3, "options": {}}) + "\n")
    code, _, err = run(capsys, "rules", "replay", str(newer))
    assert code == 1 and err.count("\n") == 1 and "rules version 9" in err


def test_replay_of_a_log_made_before_rules_versions_says_version_1(
        capsys: pytest.CaptureFixture[str]) -> None:
    old = Path(__file__).parent / "fixtures" / "rules_v1_capital_1993_3p.jsonl"
    code, out, _ = run(capsys, "rules", "replay", str(old), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["valid"] and doc["rules"] == 1 and doc["winner"] == 0


def test_random_selfplay_finishes_its_games(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules", "selfplay", "--players", "4", "--games", "3",
                       "--seed", "2", "--bot", "random")
    assert code == 0 and out.count(": winner ") == 3 and "0 game(s) capped" in out
