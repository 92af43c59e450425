"""The board page names the level of each seat the hub plays itself (``scene.bots``)
beside the seat's colour, in a real headless Chromium, from the hub's own board and
scene of a table whose seats 1 and 2 are a hard and an easy bot and seat 3 a bot given
without its name (a bot of no level)."""

from __future__ import annotations

import random
from typing import Any

from risktable.rules import Config
from risktable.rules.bots import EasyBot, HardBot, HeuristicBot
from risktable.table.public import scene_message
from risktable.table.session import TableSession
from tests.support.board_page import board_page_showing
from tests.table.inputs import CARDS

TABLE = "levels"
PLAYERS = 3
_READ_BOTS = """
return Array.from(document.querySelectorAll('#seats tr.seat')).map(
  (row) => [row.dataset.seat, (row.querySelector('.bot') || {}).textContent || ''])
"""


def test_the_seat_table_names_each_bots_level(browser: Any) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    table = TableSession(Config(players=PLAYERS), [1, 2, 3], CARDS,
                         bots={1: HardBot(1), 2: EasyBot(2), 3: HeuristicBot(3)},
                         bot_names={1: "hard", 2: "easy"}, dice=random.Random(1))
    while sum(o >= 0 for o in table.state.owners) < 30:  # claiming: every seat owns some
        assert table.step_bots() is not None
    scene = scene_message(table.state, *table.scene(), table.bot_levels)
    assert scene["bots"] == ["hard", "easy", "bot"]
    with board_page_showing(browser, TABLE, PLAYERS, table.state, scene):
        WebDriverWait(browser, 20).until(
            lambda d: ["1", "hard bot"] in d.execute_script(_READ_BOTS),
            message="the seat table names seat 1's level")
        assert sorted(browser.execute_script(_READ_BOTS)) == [
            ["1", "hard bot"], ["2", "easy bot"], ["3", "bot"]]
