"""The pages in every language, in a real headless Chromium.

The page server's ``/i18n/<lang>.json`` holds the pages' messages (``web/messages.json``,
extracted from their scripts) as the hub's catalogues translate them; the page takes its
language from ``?lang=``. The board page in Persian is right to left and names the
territories in Persian; the phone seat in Portuguese labels its buttons in Portuguese and
tells the hub its language (its birth's ``lang``) and that it shapes text itself (the
``shaping`` cap). A retained board, scene and view on a mosquitto with a WebSockets
listener stand in for the hub: the screenshots ``docs/screenshots/board-fa-*.png`` and
``phone-seat-fa-390x844.png`` are made from them.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from risktable import i18n
from risktable.hardware.palette import SEAT_COLOURS
from risktable.i18n import numbers
from risktable.i18n.catalogues import web_messages
from risktable.web.server import BoardPageServer, PageConfig, page_catalogue, page_messages
from tests.support.browser import save_screenshot, set_viewport
from tests.support.mosquitto import Mosquitto, free_port, wait_for_port
from tests.support.mqtt_client import Recorder
from tests.support.tools import ROOT, mosquitto_binary
from tests.support.waiting import value_within as _until

TABLE = "den"
EXAMPLES = ROOT / "protocol" / "examples" / "valid"
SCREENSHOTS = ROOT / "docs" / "screenshots"
TRANSLATED = [lang for lang in i18n.LANGUAGES if lang != i18n.DEFAULT]


def _get(server: BoardPageServer, path: str) -> tuple[int, str, bytes]:
    host, port = server.url.removeprefix("http://").rstrip("/").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.getheader("Content-Type") or "", response.read()
    finally:
        conn.close()



def test_the_message_list_is_the_pages_own() -> None:
    # web/messages.json is what `catalogues extract` finds in the pages' scripts now.
    assert [list(m) for m in page_messages()] == web_messages()


def test_the_server_serves_each_language_and_no_other() -> None:
    with BoardPageServer(PageConfig("ws://127.0.0.1:9", TABLE)) as server:
        status, kind, body = _get(server, "/i18n/languages.json")
        assert status == 200 and kind.startswith("application/json")
        assert json.loads(body)["languages"] == i18n.NAMES
        for lang in i18n.LANGUAGES:
            status, kind, body = _get(server, f"/i18n/{lang}.json")
            assert status == 200 and kind.startswith("application/json"), lang
            doc = json.loads(body)
            assert doc == json.loads(json.dumps(page_catalogue(lang)))
            assert doc["rtl"] == (lang == "fa")
        for path in ("/i18n/de.json", "/i18n/../server.py", "/i18n/fa", "/messages.json"):
            assert _get(server, path)[0] == 404, path


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_page_message_is_translated(lang: str) -> None:
    # Fails until the translators' catalogues hold the pages' messages.
    doc = page_catalogue(lang)
    keys = {f"{c}\x04{m}" if c else m for c, m, _ in page_messages()}
    assert sorted(keys - doc["messages"].keys()) == []
    t = i18n.translation(lang)
    for _context, message, plural in page_messages():
        if not plural:
            continue
        forms = doc["messages"][message]
        # One form for each of the language's plural forms, each as the hub's gettext
        # gives it for a number that takes that form.
        for n in range(200):
            assert forms[t.plural(n)] == t.ngettext(message, plural, n)  # type: ignore[attr-defined]
        assert "{n}" in "".join(forms), message


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[tuple[Recorder, str]]:
    """Mosquitto with a WebSockets listener (anonymous), and a client of the test's own."""
    ws_port = free_port()
    with Mosquitto(mosquitto_binary(), tmp_path / "broker",
                   extra_config=f"listener {ws_port} 127.0.0.1\nprotocol websockets\n") as m:
        wait_for_port("127.0.0.1", ws_port)
        client = Recorder(m.host, m.port, "test-languages")
        try:
            yield client, f"ws://127.0.0.1:{ws_port}/"
        finally:
            client.close()


def _example(name: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((EXAMPLES / name).read_text("utf-8"))
    return doc


def _publish_board(client: Recorder) -> None:
    client.publish(f"risk/{TABLE}/board", json.dumps(_example("board-turn.json")), retain=True)
    client.publish(f"risk/{TABLE}/scene", json.dumps(_example("scene-attack.json")), retain=True)
    client.publish(f"risk/{TABLE}/hub/status",
                   json.dumps({"v": 1, "t": "hub_status", "online": True, "session": 1}),
                   retain=True)


_READ_PAGE = """
const titles = {};
for (const p of document.querySelectorAll('path.territory')) {
  titles[p.id.slice(2)] = p.querySelector('title').textContent;
}
const menu = document.getElementById('lang');
return {dir: document.documentElement.dir, lang: document.documentElement.lang,
        titles, turn: document.getElementById('turn-text').textContent,
        odds: document.getElementById('odds').textContent,
        events: Array.from(document.querySelectorAll('#events li')).map((li) => li.textContent),
        heads: Array.from(document.querySelectorAll('#seats th')).map((th) => th.textContent),
        cells: Array.from(document.querySelectorAll('#seats td.cards')).map((td) => td.textContent),
        menu: Array.from(menu.options).map((o) => [o.value, o.textContent, o.selected]),
        scenes: Number(document.body.dataset.scenes || 0),
        boards: Number(document.body.dataset.boards || 0)};
"""


def test_the_board_page_in_persian(broker: tuple[Recorder, str], browser: Any) -> None:
    client, ws_url = broker
    _publish_board(client)
    layout = json.loads((ROOT / "hub" / "risktable" / "web" / "static" /
                         "board-map.json").read_text("utf-8"))
    with i18n.using("fa"):
        persian = {t["id"]: i18n.territory(t["name"]) for t in layout["territories"]}
        second = i18n.colour(SEAT_COLOURS[1].name)
        heads = [i18n._(w) for w in ("seat", "territories", "armies", "cards")]
    with contextlib.ExitStack() as stack:
        page = stack.enter_context(BoardPageServer(PageConfig(ws_url, TABLE, players=3)))
        driver = browser
        for width, height in [(1920, 1080), (390, 844)]:
            set_viewport(driver, width, height)
            driver.get(page.url + "?lang=fa")
            shown = _until("the board and scene drawn", lambda: (
                lambda r: r if r["boards"] and r["scenes"] else None)(
                    driver.execute_script(_READ_PAGE)))
            assert (shown["dir"], shown["lang"]) == ("rtl", "fa")
            assert shown["titles"] == persian
            assert any(not name.isascii() for name in persian.values())
            assert shown["heads"] == heads
            assert second in shown["turn"]  # board-turn.json: seat 2's turn
            assert persian[layout["territories"][0]["id"]] in shown["odds"]
            # scene-attack.json's odds, 736 per mille, as the Persian book writes them.
            assert "۷۳٫۶٪" in shown["odds"]
            assert not any("0" <= ch <= "9" for ch in shown["odds"] + "".join(shown["cells"]))
            assert [m[0] for m in shown["menu"]] == list(i18n.LANGUAGES)
            assert [m[0] for m in shown["menu"] if m[2]] == ["fa"]
            save_screenshot(driver, SCREENSHOTS / f"board-fa-{width}x{height}.png")
        # The language menu reloads the page in the chosen language.
        from selenium.webdriver.support.ui import Select

        Select(driver.find_element("id", "lang")).select_by_value("en")
        _until("the page in English", lambda: driver.execute_script(
            "return document.documentElement.lang === 'en' && document.body.dataset.boards"))
        assert "lang=en" in driver.current_url
        assert driver.execute_script("return document.documentElement.dir") == "ltr"


@pytest.mark.parametrize(("lang", "odds"), [("tr", "%73,6"), ("pt", "73,6%"),
                                            ("ro", "73,6\u00a0%"), ("en", "73.6%")])
def test_the_board_page_writes_the_odds_as_its_language_does(
        broker: tuple[Recorder, str], browser: Any, lang: str, odds: str) -> None:
    client, ws_url = broker
    _publish_board(client)
    with BoardPageServer(PageConfig(ws_url, TABLE, players=3)) as page:
        browser.get(page.url + f"?lang={lang}")
        shown = _until("the scene drawn", lambda: (
            lambda r: r if r["scenes"] and r["lang"] == lang else None)(
                browser.execute_script(_READ_PAGE)))
        assert odds in shown["odds"]


def test_without_lang_the_page_speaks_the_browser_s_language(browser: Any) -> None:
    layout = json.loads((ROOT / "hub" / "risktable" / "web" / "static" /
                         "board-map.json").read_text("utf-8"))
    with i18n.using("tr"):
        turkish = {t["id"]: i18n.territory(t["name"]) for t in layout["territories"]}
    english = {t["id"]: t["name"] for t in layout["territories"]}
    with contextlib.ExitStack() as stack:
        page = stack.enter_context(BoardPageServer(PageConfig("ws://127.0.0.1:9", TABLE)))
        driver = browser
        agent = driver.execute_script("return navigator.userAgent")
        for accept, lang, names in [("tr-TR,tr", "tr", turkish), ("de-DE,de", "en", english),
                                    ("de-DE,pt-BR", "pt", None)]:
            driver.execute_cdp_cmd("Emulation.setUserAgentOverride",
                                   {"userAgent": agent, "acceptLanguage": accept})
            driver.get(page.url)
            shown = _until("the map drawn", lambda: (
                lambda r: r if r["titles"] else None)(driver.execute_script(_READ_PAGE)))
            assert (shown["lang"], shown["dir"]) == (lang, "ltr"), accept
            if names is not None:
                assert shown["titles"] == names, accept


_READ_SEAT = """
const text = (id) => document.getElementById(id).textContent;
return {back: text('back'), confirm: text('confirm'), clear: text('dice-clear'),
        roll: text('dice-roll'), left: document.getElementById('left').getAttribute('aria-label'),
        dir: document.documentElement.dir, link: document.body.dataset.link,
        lines: Array.from(document.querySelectorAll('#lines li')).map((li) => li.textContent)};
"""


def _birth(client: Recorder, seat: int) -> dict[str, Any]:
    found: list[dict[str, Any]] = []

    def birth(topic: str, msg: dict[str, Any] | None, retain: bool) -> bool:
        if topic == f"risk/{TABLE}/seat/{seat}/status" and msg and msg.get("online"):
            found.append(msg)
            return True
        return False

    client.subscribe(f"risk/{TABLE}/seat/{seat}/status")
    client.wait_for(birth, timeout=15)
    return found[-1]


def _seat_url(page: BoardPageServer, lang: str, seat: int, ws_url: str) -> str:
    from risktable.provision.phone_seat import seat_page_url

    return seat_page_url(page.url, TABLE, seat, f"{TABLE}-seat{seat}", "x", ws_url,
                         lang=lang)


@contextlib.contextmanager
def _phone_seat(driver: Any, broker: tuple[Recorder, str], lang: str,
                seat: int) -> Iterator[tuple[Any, dict[str, Any]]]:
    # The phone seat page of ``seat`` in ``lang`` on a phone-sized Chromium, once its
    # birth is out: (the driver, the birth).
    client, ws_url = broker
    with BoardPageServer(PageConfig(ws_url, TABLE, players=3)) as page:
        set_viewport(driver, 390, 844)
        driver.get(_seat_url(page, lang, seat, ws_url))
        yield driver, _birth(client, seat)


def test_the_phone_seat_in_portuguese(browser: Any, broker: tuple[Recorder, str]) -> None:
    t = i18n.translation("pt")
    with _phone_seat(browser, broker, "pt", 1) as (driver, birth):
        assert birth["lang"] == "pt"
        assert "shaping" in birth["caps"]
        shown = _until("the seat connected", lambda: (
            lambda r: r if r["link"] == "up" else None)(driver.execute_script(_READ_SEAT)))
        labels = {"back": "Back", "confirm": "Confirm", "clear": "Clear",
                  "roll": "Roll on the phone", "left": "turn left"}
        assert {k: shown[k] for k in labels} == {k: t.gettext(v) for k, v in labels.items()}
        # Portuguese, not English: the catalogue's words reached the page.
        assert shown["back"] != "Back" and shown["confirm"] != "Confirm"
        assert shown["dir"] == "ltr"


def test_the_phone_seat_counts_each_players_cards(
        browser: Any, broker: tuple[Recorder, str]) -> None:
    # The seat table's cards column comes from the scene (scene-attack.json: 2, 3, 0),
    # as on the board page.
    client = broker[0]
    _publish_board(client)
    with _phone_seat(browser, broker, "en", 1) as (driver, _):
        cells = _until("the cards counted", lambda: (
            lambda r: r if r and any(c != "0" for c in r) else None)(driver.execute_script(
                "return Array.from(document.querySelectorAll('#seats td.cards'))"
                ".map((td) => td.textContent)")))
        assert cells == ["2", "3", "0"]


def test_the_phone_seat_in_persian(browser: Any, broker: tuple[Recorder, str]) -> None:
    client = broker[0]
    _publish_board(client)
    with i18n.using("fa"):
        # Logical lines, as the hub writes them for a seat with the shaping cap.
        lines = [i18n._("Attack from"), i18n.territory("Alaska"),
                 i18n._("into {territory}").format(territory=i18n.territory("Kamchatka")),
                 i18n._("Battle odds {percent}").format(percent=numbers.percent(0.736))]
        name = i18n.colour(SEAT_COLOURS[1].name)
    view = {"v": 1, "t": "view", "seat": 2, "colour": [30, 90, 220], "name": name,
            "active": True, "phase": "attack", "lines": lines}
    client.publish(f"risk/{TABLE}/seat/2/view", json.dumps(view), retain=True)
    with _phone_seat(browser, broker, "fa", 2) as (driver, birth):
        assert birth["lang"] == "fa" and "shaping" in birth["caps"]
        shown = _until("the seat's view", lambda: (
            lambda r: r if r["lines"] else None)(driver.execute_script(_READ_SEAT)))
        assert shown["dir"] == "rtl"
        assert shown["lines"] == lines
        _until("the board drawn", lambda: driver.execute_script(
            "return Number(document.body.dataset.boards || 0) > 0"))
        time.sleep(0.3)  # the last paint
        save_screenshot(driver, SCREENSHOTS / "phone-seat-fa-390x844.png")
