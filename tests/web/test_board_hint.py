"""The board page shows the coach's hint to a seat that shows its hints there
(``scene.hint``, ``[table] coach``), in a real headless Chromium: the hint line in the
seat's colour and its territories marked on the map, gone with the next scene without
one. The scene is the hub's own, from a table session whose seat asked for a hint."""

from __future__ import annotations

from typing import Any

from riskproto import topics
from riskproto.messages import encode
from riskproto.territories import TERRITORIES
from risktable.rules import Config
from risktable.table.public import scene_message
from risktable.table.session import TableSession
from tests.hub.test_coach import hint_event, pilot_for, play_until, reinforcing
from tests.support.board_page import board_page_showing
from tests.table.inputs import CARDS

TABLE = "hints"
PLAYERS = 3
_READ_HINT = """
const line = document.getElementById('hint');
const marked = Array.from(document.querySelectorAll('.light.hint')).map((node) => node.id);
return {hidden: line.hidden, text: line.textContent, k: line.dataset.k || '',
        seat: line.dataset.seat || '', to: line.dataset.to || '', marked: marked};
"""


def test_the_board_page_shows_a_coached_seats_hint(browser: Any) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    table = TableSession(Config(players=PLAYERS), [1, 2, 3], CARDS, coached=[1, 2, 3])
    pilot = pilot_for(table, seed=8)
    seat, seq = play_until(table, pilot, reinforcing)
    table.handle(seat, hint_event(seat, seq + 1))
    hint = table.public_hint()
    assert hint is not None and hint["k"] == "place", hint
    with_hint = scene_message(table.state, *table.scene(), table.bot_levels, hint)
    without = scene_message(table.state, *table.scene(), table.bot_levels)
    with board_page_showing(browser, TABLE, PLAYERS, table.state, with_hint) as hub:
        WebDriverWait(browser, 20).until(
            lambda d: not d.execute_script(_READ_HINT)["hidden"],
            message="the hint line shows")
        shown = browser.execute_script(_READ_HINT)
        where = TERRITORIES[hint["to"]]
        armies = "army" if hint["n"] == 1 else "armies"
        assert shown["k"] == "place" and shown["seat"] == str(seat) and shown["to"] == where
        assert shown["text"].startswith("Hint for "), shown
        assert f": place {hint['n']} {armies} on " in shown["text"], shown
        assert shown["marked"] == [f"h-{where}"]
        # The next scene has no hint: the line hides and the map is unmarked.
        hub.publish(topics.scene(TABLE), encode(without), retain=True)
        WebDriverWait(browser, 20).until(
            lambda d: d.execute_script(_READ_HINT)["hidden"],
            message="the hint line hides")
        assert browser.execute_script(_READ_HINT)["marked"] == []
