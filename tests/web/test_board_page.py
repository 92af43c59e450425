"""End to end: ``risktable demo --web``'s live board page in a real headless Chromium.

The demo runs everything real (embedded amqtt with its WebSockets listener, the hub,
seat firmwares under MicroPython, the bots at the seats); the page is opened before
the game starts and follows it over MQTT on WebSockets with mqtt.js. After the game
its DOM must show exactly the final owners and armies of the hub's journal, and no
two army labels may overlap at 1920x1080 (a TV) or 390x844 (a phone).

The screenshots ``docs/screenshots/board-1920x1080.png`` and ``board-390x844.png`` are
made here; a file is rewritten only when the new image differs from it.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from riskproto.territories import TERRITORIES
from risktable.demo.runner import DemoOptions, run_demo
from risktable.journal import Journal, journal_path
from risktable.table.public import board_message
from tests.support.browser import chromium, save_screenshot, set_viewport
from tests.support.tools import ROOT

SCREENSHOTS = ROOT / "docs" / "screenshots"
SIZES = [(1920, 1080), (390, 844)]
TABLE = "demo"

_READ_BOARD = """
const out = {owners: [], armies: []};
for (const tid of arguments[0]) {
  out.owners.push(Number(document.getElementById('t-' + tid).dataset.owner));
  out.armies.push(Number(document.querySelector('#l-' + tid + ' text').textContent));
}
out.boards = Number(document.body.dataset.boards || 0);
out.phase = document.body.dataset.phase;
out.turn = document.getElementById('turn-text').textContent;
return out;
"""

_LABEL_BOXES = """
return Array.from(document.querySelectorAll('.label')).map((g) => {
  const r = g.getBoundingClientRect();
  return [g.id, r.left, r.top, r.right, r.bottom];
});
"""


def _wait_for(driver: Any, script: str, what: str, timeout: float = 30.0) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, timeout).until(lambda d: d.execute_script(script), message=what)


def _overlaps(boxes: list[list[Any]]) -> list[tuple[str, str]]:
    found = []
    for i, (a, al, at, ar, ab) in enumerate(boxes):
        for b, bl, bt, br, bb in boxes[i + 1:]:
            if al < br and bl < ar and at < bb and bt < ab:
                found.append((a, b))
    return found



def test_board_page_follows_a_whole_demo_game(tmp_path: Path) -> None:
    checked: dict[str, Any] = {}
    with chromium(tmp_path / "profile") as driver:
        set_viewport(driver, *SIZES[0])

        def on_web(url: str) -> None:
            # Opened before the hub publishes anything: the page follows the whole game.
            driver.get(url)
            _wait_for(driver, "return document.querySelectorAll('.label').length === 42",
                      "the page drew the map")

        def after_game(data_dir: Path) -> None:
            with Journal(journal_path(data_dir), create=False) as journal:
                game = journal.current_game(TABLE)
                assert game is not None
                final = board_message(journal.state(game))
            checked["final"] = final
            _wait_for(driver, "return document.body.dataset.phase === 'over'",
                      "the page saw the game end")
            for width, height in SIZES:
                set_viewport(driver, width, height)
                _wait_for(driver, f"return window.innerWidth === {width}", "viewport resized")
                page = driver.execute_script(_READ_BOARD, list(TERRITORIES))
                assert page["owners"] == final["owners"]
                assert page["armies"] == final["armies"]
                boxes = driver.execute_script(_LABEL_BOXES)
                assert len(boxes) == 42
                assert _overlaps(boxes) == [], f"labels overlap at {width}x{height}"
                # Every label lies inside the viewport, so none is cut off.
                assert all(b[1] >= 0 and b[3] <= width and b[2] >= 0 and b[4] <= height
                           for b in boxes), f"a label is off screen at {width}x{height}"
                checked[f"{width}x{height}"] = page
                save_screenshot(driver, SCREENSHOTS / f"board-{width}x{height}.png")

        summary = run_demo(DemoOptions(seats=3, table=TABLE, seed=3, colour=False, web=True,
                                       on_web=on_web, after_game=after_game), io.StringIO())
    assert summary.winner_seat is not None
    final = checked["final"]
    assert set(final["owners"]) == {summary.winner_seat}
    phone = checked["390x844"]
    assert phone["turn"].startswith("game over")
    # The page took many board updates during the game, not only the last one.
    assert checked["1920x1080"]["boards"] > 20
