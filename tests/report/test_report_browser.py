"""End to end: a whole bot game played into a real journal, its report written by the
command line and opened in a real headless Chromium, whose DOM must show the journal's
numbers: the final territories and armies of every seat, and every die's face counts.

The screenshots ``docs/screenshots/report-1920x1080-top.png`` (the page as it opens)
and ``report-1920x1080-charts.png`` (scrolled to the first chart), and the same at
390x844, are made here; a file is rewritten only when the new image differs from it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from risktable import i18n
from risktable.journal import Journal, journal_path
from risktable.rules import apply, new_game
from risktable.rules.events import TerritoryConquered
from tests.report.journal_game import play_into_journal
from tests.support.browser import save_screenshot, set_viewport
from tests.support.cli import run
from tests.support.tools import ROOT

SCREENSHOTS = ROOT / "docs" / "screenshots"
SIZES = [(1920, 1080), (390, 844)]


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",")]



def test_the_report_page_shows_the_journals_numbers(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], browser: Any) -> None:
    data_dir = tmp_path / "hub"
    game = play_into_journal(data_dir, 4, 1)
    with Journal(journal_path(data_dir), create=False) as journal:
        final = journal.state(game)
        config = journal.config(game)
        dice = {d.die: list(d.counts) for d in journal.die_stats(game)}
        assert dice and dice == {d.die: list(d.counts) for d in journal.die_stats()}
        conquests = [0] * config.seats
        state = new_game(config)
        for entry in journal.actions(game):
            state, events = apply(state, entry.action)
            for e in events:
                if type(e) is TerritoryConquered:
                    conquests[e.player] += 1
    assert final.is_terminal
    seats = config.seats
    territories = [final.owners.count(s) for s in range(seats)]
    armies = [sum(a for o, a in zip(final.owners, final.armies, strict=True) if o == s)
              for s in range(seats)]

    page = tmp_path / "report.html"
    code, out, err = run(capsys, "games", "report", str(game), "--data-dir", str(data_dir),
                         "--out", str(page))
    assert code == 0, err
    assert out.startswith(f"wrote {page}")

    driver = browser
    for width, height in SIZES:
        set_viewport(driver, width, height)
        driver.get(page.as_uri())
        # Nothing was fetched: the page is self-contained.
        assert driver.execute_script(
            "return performance.getEntriesByType('resource').length") == 0
        assert driver.execute_script("return window.innerWidth") == width
        # The final table, as the browser lays it out.
        rows = driver.execute_script(
            "return [...document.querySelectorAll('#final tbody tr')].map(r => "
            "[+r.dataset.seat, +r.querySelector('.territories').textContent, "
            "+r.querySelector('.armies').textContent])")
        assert rows == [[s, territories[s], armies[s]] for s in range(seats)]
        # The charts' last points are the same final numbers.
        for chart, want in (("chart-territories", territories), ("chart-armies", armies)):
            ends = driver.execute_script(
                f"return [...document.querySelectorAll('#{chart} g.series')].map(g => "
                "[+g.dataset.seat, g.dataset.values.split(',').map(Number).pop()])")
            assert ends == [[s, want[s]] for s in range(seats)], chart
        # Every die's chart and table row counts what the journal counts.
        charts = driver.execute_script(
            "return [...document.querySelectorAll('svg.die')].map(s => "
            "[s.dataset.die, [...s.querySelectorAll('rect.face')].map(r => "
            "+r.dataset.count)])")
        assert dict((d, c) for d, c in charts) == dice
        table = driver.execute_script(
            "return [...document.querySelectorAll('#dice tbody tr')].map(r => "
            "[r.dataset.die, [1,2,3,4,5,6].map(f => "
            "+r.querySelector('.face' + f).textContent)])")
        assert dict((d, c) for d, c in table) == dice
        # Battle luck counts the conquests the rules reported.
        made = driver.execute_script(
            "return [...document.querySelectorAll('#chart-luck g.luck')].map(g => "
            "+g.dataset.conquests)")
        assert made == conquests[:config.players]
        # Every chart is drawn with a size and carries a title for screen readers.
        sizes = driver.execute_script(
            "return [...document.querySelectorAll('svg[role=img]')].map(s => "
            "[s.querySelector('title') !== null, s.getBoundingClientRect().width])")
        assert sizes and all(titled and w > 200 for titled, w in sizes)
        # Nothing but a wide chart scrolls sideways.
        assert driver.execute_script(
            "return document.documentElement.scrollWidth") == width
        save_screenshot(driver, SCREENSHOTS / f"report-{width}x{height}-top.png")
        driver.execute_script("document.getElementById('chart-territories')"
                              ".closest('figure').previousElementSibling.scrollIntoView()")
        save_screenshot(driver, SCREENSHOTS / f"report-{width}x{height}-charts.png")


def test_report_errors_are_one_line(tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "games", "report", "1", "--data-dir", str(tmp_path),
                       "--out", str(tmp_path / "r.html"))
    assert code != 0 and "no journal in" in err and len(err.strip().splitlines()) == 1
    data_dir = tmp_path / "hub"
    game = play_into_journal(data_dir, 3, 2, stop_at=400)
    code, _, err = run(capsys, "games", "report", "99", "--data-dir", str(data_dir),
                       "--out", str(tmp_path / "r.html"))
    assert code != 0 and "no game 99" in err and not (tmp_path / "r.html").exists()
    code, _, err = run(capsys, "games", "report", str(game), "--data-dir", str(data_dir))
    assert code != 0 and "--out" in err
    # A game under way reports up to its last action.
    code, out, _ = run(capsys, "games", "report", str(game), "--data-dir", str(data_dir),
                       "--json")
    assert code == 0
    data = json.loads(out)
    with Journal(journal_path(data_dir), create=False) as journal:
        state = journal.state(game)
        assert data["actions"] == len(journal.actions(game))
    assert not data["finished"] and data["snapshots"][-1]["label"] == "now"
    assert data["snapshots"][-1]["territories"] == [state.owners.count(s)
                                                    for s in range(state.config.seats)]


def test_report_in_a_language(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data_dir = tmp_path / "hub"
    game = play_into_journal(data_dir, 3, 2, stop_at=400)
    out_file = tmp_path / "fa.html"
    code, _, err = run(capsys, "games", "report", str(game), "--data-dir", str(data_dir),
                       "--out", str(out_file), "--lang", "fa")
    assert (code, err) == (0, "")
    page = out_file.read_text("utf-8")
    assert '<html lang="fa" dir="rtl">' in page
    with i18n.using("fa"):
        australia = i18n.continent("Australia")
    assert australia in page and not australia.isascii()
    # The JSON's names are data: English whatever the page's language.
    code, out, _ = run(capsys, "games", "report", str(game), "--data-dir", str(data_dir),
                       "--json", "--lang", "fa")
    assert code == 0 and json.loads(out)["seats"][0] == "Seat 1"
    code, _, err = run(capsys, "games", "report", str(game), "--data-dir", str(data_dir),
                       "--out", str(out_file), "--lang", "xx")
    assert code == 2 and "--lang" in err


def test_the_report_names_the_players_of_the_configuration(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data_dir = tmp_path / "hub"
    game = play_into_journal(data_dir, 3, 2, stop_at=400)
    config = tmp_path / "hub.toml"
    config.write_text(f'[table]\nseats = 3\n[seats]\n1 = "Ana"\n2 = "Bruno"\n'
                      f'[data]\ndir = "{data_dir}"\n')
    out_file = tmp_path / "pt.html"
    code, _, err = run(capsys, "games", "report", str(game), "--config", str(config),
                       "--out", str(out_file), "--lang", "pt")
    assert (code, err) == (0, "")
    page = out_file.read_text("utf-8")
    with i18n.using("pt"):
        third = i18n._("Seat {n}").format(n=3)
    assert "Ana" in page and "Bruno" in page and third in page
    code, out, _ = run(capsys, "games", "report", str(game), "--config", str(config), "--json")
    assert code == 0 and json.loads(out)["seats"][:3] == ["Ana", "Bruno", "Seat 3"]
