"""The board page marks the capitals once revealed, and not before, in a real headless
Chromium. The messages are the hub's own (``board_message`` and ``scene_message``) at
two moments of a ``capital_1993_short`` game played through seat events: while the
last capital is being chosen, and after the reveal. They go through the demo's
embedded broker (amqtt, WebSockets listener) to the page as the hub sends them."""

from __future__ import annotations

from typing import Any

from riskproto import topics
from riskproto.messages import encode
from riskproto.territories import TERRITORIES
from risktable.demo.broker import EmbeddedBroker
from risktable.rules import state as st
from risktable.rules.presets import preset_config
from risktable.table.public import board_message, scene_message
from risktable.table.session import TableSession
from risktable.web.server import BoardPageServer, PageConfig
from tests.support.browser import set_viewport
from tests.support.mqtt_client import Recorder
from tests.table.inputs import autopiloted_table
from tests.web.test_board_page import _READ_SCENE, _shows, _wait_for

TABLE = "caps"
PLAYERS = 4


def _messages(table: TableSession) -> tuple[bytes, bytes, dict[str, Any]]:
    highlight, facts = table.scene()
    scene = scene_message(table.state, highlight, facts)
    return encode(board_message(table.state)), encode(scene), scene


def _moments() -> list[tuple[bytes, bytes, dict[str, Any]]]:
    """(board, scene) while the last capital is chosen, and a few moves after the reveal."""
    table, pilot = autopiloted_table(preset_config("capital_1993_short", PLAYERS), 2)
    moments = []
    after = -1
    while len(moments) < 2:
        s = table.state
        if not moments and s.phase == st.CAPITAL and sum(c >= 0 for c in s.capitals) == 3:
            moments.append(_messages(table))
        revealed = bool(s.capitals) and -1 not in s.capitals
        if moments and revealed:
            after += 1
            if after == 5:
                moments.append(_messages(table))
        event = pilot.next_event()
        assert event is not None and table.handle(*event).error is None
    return moments


def test_capitals_appear_on_the_page_only_after_the_reveal(browser: Any) -> None:
    (board_before, before_bytes, before), (board_after, after_bytes, after) = _moments()
    assert "capitals" not in before and len(after["capitals"]) == PLAYERS
    from selenium.webdriver.support.ui import WebDriverWait

    with EmbeddedBroker(ws_port=0) as broker, BoardPageServer(PageConfig(
            f"ws://{broker.host}:{broker.ws_port}/", TABLE, players=PLAYERS)) as page:
        driver = browser
        hub = Recorder(broker.host, broker.port, f"{TABLE}-hub")
        try:
            set_viewport(driver, 1920, 1080)
            driver.get(page.url)
            for board, scene_bytes, scene in ((board_before, before_bytes, before),
                                              (board_after, after_bytes, after)):
                hub.publish(topics.board(TABLE), board, retain=True)
                hub.publish(topics.scene(TABLE), scene_bytes, retain=True)
                _wait_for(driver, "return document.querySelectorAll('.label').length === 42",
                          "the page drew the map")
                WebDriverWait(driver, 20).until(
                    lambda d, sc=scene: _shows(d.execute_script(_READ_SCENE), sc),
                    message="the page shows the scene")
                shown = driver.execute_script(_READ_SCENE)
                assert shown["capitals"] == sorted(TERRITORIES[i]
                                                   for i in scene.get("capitals", []))
        finally:
            hub.close()
