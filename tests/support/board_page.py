"""The live board page (index.html) served and fed as the hub feeds it, for the browser
tests: an embedded broker with its WebSockets listener, the page server, and a recorder
publishing under the hub's client id."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from riskproto import topics
from riskproto.messages import encode
from risktable.demo.broker import EmbeddedBroker
from risktable.rules.state import State
from risktable.table.public import board_message
from risktable.web.server import BoardPageServer, PageConfig
from tests.support.browser import set_viewport
from tests.support.mqtt_client import Recorder


@contextmanager
def board_page_showing(browser: Any, table: str, players: int, state: State,
                       scene: dict[str, Any], tray: Path | None = None) -> Iterator[Recorder]:
    """The board page of ``table`` open in ``browser`` (1920x1080), the retained board
    of ``state`` and ``scene`` published; the recorder that publishes as the hub, for
    the scenes after. ``tray``: the folder of the dice tray's last photo and read."""
    with EmbeddedBroker(ws_port=0) as broker, BoardPageServer(PageConfig(
            f"ws://{broker.host}:{broker.ws_port}/", table, players=players,
            tray=tray)) as page:
        hub = Recorder(broker.host, broker.port, f"{table}-hub")
        try:
            set_viewport(browser, 1920, 1080)
            browser.get(page.url)
            hub.publish(topics.board(table), encode(board_message(state)), retain=True)
            hub.publish(topics.scene(table), encode(scene), retain=True)
            yield hub
        finally:
            hub.close()
