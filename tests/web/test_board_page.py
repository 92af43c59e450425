"""End to end: the live board page in a real headless Chromium follows a whole game.

The parts are real: mosquitto with a WebSockets listener (as ``risktable broker config
--websockets`` sets up a table), the hub's :class:`TableService` (in this process) and
three protocol-level seats (``tests/support/seat_client.py``) played by autopilots, each
answer checked by a mirror session (``tests/support/virtual_table.py``). The page is
opened before the hub publishes anything and follows the game over MQTT on WebSockets
with mqtt.js. After the game its DOM must show exactly the final owners and armies of
the hub's journal, and no two army labels may overlap at 1920x1080 (a TV) or 390x844
(a phone).

The scene (risk/<table>/scene) is checked the same way: an MQTT client of the test's
own records every scene the hub publishes, the page's DOM is read before every tenth
seat input of the game, and each reading must show one of those scenes exactly (the lit
territories, cursor, targets and battle on the map, the odds line, the last-events
list, the cards in the seat table); at the end it shows the last one, whose card
counts are the journal's.

``risktable demo --web`` serving this page is tested by tests/web/test_demo_web.py (a
whole demo game as a process) and tests/web/test_demo_phone.py (a page of the demo's
broker in Chromium); the page on the demo's amqtt broker by test_board_capitals.py.

The screenshots ``docs/screenshots/board-1920x1080.png`` and ``board-390x844.png`` are
made here, and ``board-battle-*.png``: after the game the test sends the page again the
board and scene the hub published at the game's first battle in round 5, so that
picture is the same in every run. A file is rewritten only when the new image differs
from it.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest

from riskproto.territories import TERRITORIES
from risktable.broker_address import BrokerAddress
from risktable.config import BrokerConfig, HubConfig, LedConfig, TableConfig
from risktable.game_rules import rules_config
from risktable.journal import Journal, journal_path
from risktable.service.table_service import TableService
from risktable.table.public import board_message
from risktable.web.server import BoardPageServer, PageConfig
from tests.support.browser import save_screenshot, set_viewport
from tests.support.mosquitto import Mosquitto, free_port, wait_for_port
from tests.support.mqtt_client import Recorder
from tests.support.seat_client import BROKER_NO_DELAY, SeatClient
from tests.support.tools import ROOT, mosquitto_binary
from tests.support.virtual_table import VirtualTable, mirror_table
from tests.table.inputs import cards_of

SCREENSHOTS = ROOT / "docs" / "screenshots"
SIZES = [(1920, 1080), (390, 844)]
TABLE = "den"
PLAYERS = 3
SEED = 1  # the autopilots': a classic game with battles past round 5

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


# What the page shows of the scene, read from its DOM in one go (the page's script
# cannot run in between, so the reading is of one scene).
_READ_SCENE = """
const ids = (sel) => Array.from(document.querySelectorAll(sel)).map((n) => n.id.slice(2)).sort();
const odds = document.getElementById('odds').dataset;
const cards = {};
for (const row of document.querySelectorAll('#seats tr[data-seat]')) {
  cards[row.dataset.seat] = Number(row.querySelector('.cards').textContent);
}
return {
  scenes: Number(document.body.dataset.scenes || 0),
  lit: ids('.light.lit'), cursor: ids('.light.cursor'), targets: ids('.light.target'),
  battle: ['from', 'to'].map((side) => ids(`.light[data-battle="${side}"]`)),
  capitals: ids('.label.capital'),
  odds: odds.win === undefined ? null : [odds.from, odds.to, Number(odds.win)],
  odds_text: document.getElementById('odds').textContent,
  events: Array.from(document.querySelectorAll('#events li:not(.none)')).map((li) => [
    li.dataset.k, Number(li.dataset.seat), li.dataset.from || null, li.dataset.to || null,
    li.textContent]),
  cards: cards,
};
"""


def _shows(page: dict[str, Any], scene: dict[str, Any]) -> bool:
    """True when the page's reading ``page`` shows exactly ``scene``."""
    def names(indices: list[int]) -> list[str]:
        return sorted(TERRITORIES[i] for i in indices)

    battle = scene.get("battle")
    odds = scene.get("odds")
    events = [[e["k"], e["seat"], TERRITORIES[e["from"]] if "from" in e else None,
               TERRITORIES[e["to"]] if "to" in e else None]
              for e in reversed(scene.get("events", []))]
    cards = scene.get("cards", [])
    return (page["lit"] == names(scene["lit"])
            and page["cursor"] == names([scene["cursor"]] if "cursor" in scene else [])
            and page["targets"] == names(scene.get("targets", []))
            and page["battle"] == ([[TERRITORIES[battle[0]]], [TERRITORIES[battle[1]]]]
                                   if battle else [[], []])
            and page["capitals"] == names(scene.get("capitals", []))
            and page["odds"] == ([TERRITORIES[odds["from"]], TERRITORIES[odds["to"]],
                                  odds["win"]] if odds else None)
            and [e[:4] for e in page["events"]] == events
            # Every seat in the table shows its count; a seat left out holds none.
            and all(cards[int(seat) - 1] == n for seat, n in page["cards"].items())
            and all(str(i + 1) in page["cards"] for i, n in enumerate(cards) if n))


class _Reader:
    """Reads the page's scene before every ``every``-th seat input of the game: the hub
    is then still publishing what the last input changed, and the page taking it in,
    so a reading is of the page at work. So many readings whatever the machine's pace."""

    def __init__(self, driver: Any, every: int = 10) -> None:
        self.driver, self.every = driver, every
        self.readings: list[dict[str, Any]] = []

    def __call__(self, table: VirtualTable, n: int) -> None:
        if n % self.every == 0:
            page = self.driver.execute_script(_READ_SCENE)
            if page["scenes"]:
                self.readings.append(page)


def _scene_recorder(host: str, port: int) -> Recorder:
    """A client of the broker recording every scene and board, subscribed before the game."""
    recorder = Recorder(host, port, "test-scenes")
    recorder.subscribe(f"risk/{TABLE}/scene")
    recorder.subscribe(f"risk/{TABLE}/board")
    # Subscriptions are handled in order: once the marker comes back, scenes are recorded.
    recorder.subscribe("test/marker")
    recorder.publish("test/marker", b"1")
    recorder.wait_for(lambda topic, _msg, _retain: topic == "test/marker")
    return recorder


def _scenes(recorder: Recorder) -> list[dict[str, Any]]:
    return [json.loads(p) for t, p, _ in list(recorder.messages) if t == f"risk/{TABLE}/scene"]


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



@pytest.mark.slow
def test_board_page_follows_a_whole_game(tmp_path: Path, browser: Any) -> None:
    driver = browser
    rules = rules_config("classic", PLAYERS)
    mirror, pilot = mirror_table(rules, SEED)
    ws_port = free_port()
    with contextlib.ExitStack() as stack:
        broker = stack.enter_context(Mosquitto(
            mosquitto_binary(), tmp_path / "broker",
            extra_config=BROKER_NO_DELAY + f"listener {ws_port} 127.0.0.1\nprotocol websockets\n"))
        wait_for_port(broker.host, ws_port)
        page_server = stack.enter_context(BoardPageServer(
            PageConfig(f"ws://127.0.0.1:{ws_port}/", TABLE, players=PLAYERS)))
        recorder = _scene_recorder(broker.host, broker.port)
        stack.callback(recorder.close)
        seats = {seat: stack.enter_context(SeatClient(broker.host, broker.port, TABLE, seat))
                 for seat in range(1, PLAYERS + 1)}
        data_dir = tmp_path / "hub"
        service = TableService(HubConfig(
            broker=BrokerConfig(BrokerAddress(broker.host, broker.port)),
            table=TableConfig(TABLE, PLAYERS, "classic"), leds=LedConfig(enabled=False),
            panel_enabled=False, data_dir=data_dir), rules=rules,
            card_uids=cards_of(rules.options.deck))

        # Opened before the hub publishes anything: the page follows the whole game.
        set_viewport(driver, *SIZES[0])
        driver.get(page_server.url)
        _wait_for(driver, "return document.querySelectorAll('.label').length === 42",
                  "the page drew the map")
        reader = _Reader(driver)
        service.start()
        stack.callback(service.stop)
        VirtualTable(mirror, pilot, seats).play(between=reader)

        with Journal(journal_path(data_dir), create=False) as journal:
            game = journal.current_game(TABLE)
            assert game is not None
            end = journal.state(game)
        assert end == mirror.state
        final = board_message(end)
        _wait_for(driver, "return document.body.dataset.phase === 'over'",
                  "the page saw the game end")
        _check_scenes(driver, recorder, reader.readings, [len(hand) for hand in end.hands])
        checked: dict[str, Any] = {}
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
        # Last: it shows the page an older board and scene again.
        _battle_screenshots(driver, recorder)
    assert set(final["owners"]) == {end.winner + 1}
    assert checked["390x844"]["turn"].startswith("game over")
    # The page took many board updates during the game, not only the last one.
    assert checked["1920x1080"]["boards"] > 20


def _check_scenes(driver: Any, recorder: Recorder, readings: list[dict[str, Any]],
                  hands: list[int]) -> None:
    """Every reading during the game shows a scene the hub published; the page ends on
    the last one, whose card counts are the journal's; the game showed each part."""
    from selenium.webdriver.support.ui import WebDriverWait

    # The hub publishes the last scene just after the last board: wait for both to land.
    def ends_on_last(d: Any) -> bool:
        scenes = _scenes(recorder)
        return bool(scenes) and _shows(d.execute_script(_READ_SCENE), scenes[-1])

    WebDriverWait(driver, 15).until(ends_on_last, message="the page ends on the last scene")
    scenes = _scenes(recorder)
    assert scenes[-1]["cards"] == hands
    assert len(readings) > 50, len(readings)
    for page in readings:
        assert any(_shows(page, scene) for scene in scenes), page
    # The game showed every part of the scene at some point, not only empty ones.
    assert any(p["odds"] for p in readings) and any(p["cursor"] for p in readings)
    assert any(p["targets"] for p in readings) and any(p["battle"][0] for p in readings)
    assert any(any(n for n in p["cards"].values()) for p in readings)
    kinds = {e[0] for p in readings for e in p["events"]}
    assert {"turn", "battle", "conquer"} <= kinds, kinds
    # The odds line and the events name the territories they are about.
    names = {t: n for t, n in zip(TERRITORIES, _territory_names(), strict=True)}
    for page in readings:
        if page["odds"]:
            assert names[page["odds"][0]] in page["odds_text"]
            assert names[page["odds"][1]] in page["odds_text"]
        for _, _, source, target, text in page["events"]:
            assert all(names[t] in text for t in (source, target) if t)


def _territory_names() -> list[str]:
    from risktable.rules.board import classic_board

    board = classic_board()
    return [board.territory_names[board.territory_ids.index(t)] for t in TERRITORIES]


def _battle_screenshots(driver: Any, recorder: Recorder) -> None:
    """Show the page the board and scene of the first battle of round 5 again (as the
    hub published them), check it shows them, and take its screenshots."""
    from selenium.webdriver.support.ui import WebDriverWait

    board: bytes | None = None
    for topic, payload, _ in list(recorder.messages):
        if topic == f"risk/{TABLE}/board":
            board = payload
            continue
        if topic != f"risk/{TABLE}/scene":
            continue
        scene = json.loads(payload)
        turn = json.loads(board)["turn"] if board else {}
        if "battle" in scene and "odds" in scene and turn.get("round", 0) >= 5:
            break
    else:
        raise AssertionError("the game had no battle from round 5 on")
    assert board is not None
    recorder.publish(f"risk/{TABLE}/board", board)
    recorder.publish(f"risk/{TABLE}/scene", payload)
    for width, height in SIZES:
        set_viewport(driver, width, height)
        _wait_for(driver, f"return window.innerWidth === {width}", "viewport resized")
        WebDriverWait(driver, 15).until(
            lambda d: _shows(d.execute_script(_READ_SCENE), scene),
            message="the page shows the battle again")
        boxes = driver.execute_script(_LABEL_BOXES)
        assert _overlaps(boxes) == [], f"labels overlap at {width}x{height}"
        save_screenshot(driver, SCREENSHOTS / f"board-battle-{width}x{height}.png")
