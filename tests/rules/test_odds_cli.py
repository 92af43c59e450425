"""``risktable rules odds`` and ``risktable rules battle`` from the command line."""

from __future__ import annotations

import io
import json
import os
import select
import subprocess
import sys
from fractions import Fraction
from typing import Any, TextIO

import pytest

from risktable.cli import main, progress
from tests.support.cli import run
from tests.support.tools import ROOT, subprocess_env


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code, out, err = run(capsys, *argv, "--json")
    assert (code, err) == (0, "")
    return json.loads(out)


def fraction(probability: dict[str, Any]) -> Fraction:
    value = Fraction(probability["fraction"])
    assert probability["float"] == pytest.approx(float(value), rel=1e-15)
    return value


def test_odds_three_against_two_json(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "rules", "odds", "3", "2")
    assert (data["attack_dice"], data["defend_dice"]) == (3, 2)
    table = {
        (o["attacker_losses"], o["defender_losses"]): fraction(o["probability"])
        for o in data["outcomes"]
    }
    assert table == {
        (0, 2): Fraction(2890, 7776),
        (1, 1): Fraction(2611, 7776),
        (2, 0): Fraction(2275, 7776),
    }
    assert round(float(fraction(data["expected_attacker_losses"])), 2) == 0.92


def test_odds_text_names_every_outcome(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules", "odds", "2", "2")
    assert code == 0
    assert "attacker loses 2, defender loses 0:  44.830 %  (581/1296)" in out
    assert "attacker loses 0, defender loses 2:  22.762 %  (295/1296)" in out


def test_three_defence_dice_only_under_the_house_rule(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "rules", "odds", "3", "3")
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "--defence-dice 3" in err
    data = run_json(capsys, "rules", "odds", "3", "3", "--defence-dice", "3")
    assert sum(fraction(o["probability"]) for o in data["outcomes"]) == 1
    assert {o["attacker_losses"] + o["defender_losses"] for o in data["outcomes"]} == {3}


def test_battle_json_is_the_whole_distribution(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "rules", "battle", "3", "1")
    assert fraction(data["attacker_wins"]) == Fraction(1955, 2592)
    won = {row["armies"]: fraction(row["probability"]) for row in data["attacker_left"]}
    lost = {row["armies"]: fraction(row["probability"]) for row in data["defender_left"]}
    # Two dice win at once (3 left), or lose one army and win the one-die roll (2 left).
    assert won == {3: Fraction(125, 216), 2: Fraction(91, 216) * Fraction(5, 12)}
    assert lost == {1: Fraction(91, 216) * Fraction(7, 12)}
    assert fraction(data["expected_defender_losses"]) == Fraction(1955, 2592)


def test_battle_float_skips_fractions(capsys: pytest.CaptureFixture[str]) -> None:
    exact = run_json(capsys, "rules", "battle", "40", "35")
    fast = run_json(capsys, "rules", "battle", "40", "35", "--float")
    assert fast["attacker_wins"]["fraction"] is None
    assert fast["attacker_wins"]["float"] == pytest.approx(
        float(fraction(exact["attacker_wins"])), abs=1e-12
    )
    rows = fast["attacker_left"] + fast["defender_left"]
    total = sum(row["probability"]["float"] for row in rows)
    assert total == pytest.approx(1.0, abs=1e-12)


def test_battle_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules", "battle", "3", "1")
    assert code == 0
    assert "attacker conquers:  75.424 %  (1955/2592)" in out
    assert "     3   57.870 %" in out
    code, out, _ = run(capsys, "rules", "battle", "120", "130")
    assert code == 0
    assert "exact fraction of" in out and "not shown; see --json" in out


@pytest.mark.parametrize(
    "argv",
    [
        ("odds", "0", "1"),
        ("odds", "4", "2"),
        ("odds", "2", "-1"),
        ("odds", "two", "1"),
        ("odds", "1.5", "1"),
        ("battle", "0", "3"),
        ("battle", "5", "-1"),
        ("battle", "5", "x"),
        ("battle", "1", "3"),
        ("battle", "5", "1001"),
        ("battle", "5", "3", "--defence-dice", "4"),
    ],
)
def test_bad_arguments_are_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]
) -> None:
    code, out, err = run(capsys, "rules", *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and "Traceback" not in err


def test_console_command_runs_as_a_module() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "risktable", "rules", "odds", "3", "1", "--json"],
        capture_output=True,
        text=True,
        env=subprocess_env(),
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    outcomes = json.loads(done.stdout)["outcomes"]
    # RULES.md: 65.97 % against 34.03 %, i.e. 855 and 441 of the 1296 rolls.
    assert [Fraction(o["probability"]["fraction"]) for o in outcomes] == [
        Fraction(855, 1296),
        Fraction(441, 1296),
    ]


def test_battle_under_the_three_dice_house_rule(capsys: pytest.CaptureFixture[str]) -> None:
    standard = run_json(capsys, "rules", "battle", "8", "5")
    house = run_json(capsys, "rules", "battle", "8", "5", "--defence-dice", "3")
    assert fraction(house["attacker_wins"]) < fraction(standard["attacker_wins"])
    rows = house["attacker_left"] + house["defender_left"]
    assert sum(fraction(row["probability"]) for row in rows) == 1


def test_an_exact_battle_too_big_for_two_seconds_asks_for_float(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "rules", "battle", "501", "500")
    assert (code, out) == (2, "")
    assert "at most 1000 armies" in err and "--float" in err
    fast = run_json(capsys, "rules", "battle", "501", "500", "--float")
    assert 0 < fast["attacker_wins"]["float"] < 1


def test_the_largest_exact_battle_prints_its_fractions(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # 6 ** 3996 has 3,110 digits: under CPython's limit on int-to-text conversion.
    data = run_json(capsys, "rules", "battle", "500", "500")
    assert fraction(data["attacker_wins"]) > Fraction(1, 2)
    assert sum(fraction(row["probability"]) for key in ("attacker_left", "defender_left")
               for row in data[key]) == 1


def _pty_stderr(monkeypatch: pytest.MonkeyPatch) -> tuple[int, TextIO]:
    master, slave = os.openpty()
    stream = os.fdopen(slave, "w")
    monkeypatch.setattr(sys, "stderr", stream)
    return master, stream


def _read_all(master: int) -> str:
    chunks = []
    while select.select([master], [], [], 0.2)[0]:
        chunks.append(os.read(master, 65536))
    return b"".join(chunks).decode()


def test_an_exact_battle_shows_its_progress_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(progress, "SHOW_AFTER_SECONDS", 0.0)  # shown at once, not after 1 s
    master, stream = _pty_stderr(monkeypatch)
    try:
        assert main(["rules", "battle", "30", "20", "--json"]) == 0  # stdout: capsys
        stream.flush()
        shown = _read_all(master)
    finally:
        stream.close()
        os.close(master)
    assert shown.count("\rexact battle: ") >= 20 and "exact battle: 100 %" in shown
    assert shown.endswith("\r")  # the line is cleared for the answer


def test_progress_stays_off_a_pipe_and_off_quick_work() -> None:
    piped = io.StringIO()
    shown = progress.Progress("work", piped, after=0.0)
    shown(0.5)
    shown.close()
    assert piped.getvalue() == ""
    master, slave = os.openpty()
    with os.fdopen(slave, "w") as stream:
        quick = progress.Progress("work", stream, after=3600.0)
        quick(0.5)
        quick.close()
        stream.flush()
        assert _read_all(master) == ""
    os.close(master)
