"""End to end: the phone seat page (``seat.html``) plays a whole game in a real headless
Chromium, against a real hub and a real mosquitto with the accounts, ACL and seat
WebSockets listener of ``risktable broker config``.

The page logs in as its seat's own account (from the URL fragment ``risktable seat qr``
makes), through a proxy that can silently stop forwarding (a phone that sleeps, a Wi-Fi
that stops), and is played by the same autopilot as the demo's bots: every input is a
click on its buttons or dice faces (one turn is a swipe, one roll is rolled on the
phone). The other seats are protocol-level seats (``tests/support/seat_client.py``)
with their own accounts. Checked:

- the game (``capital_1993_short``, fixed seeds) runs to its end, and the journal holds
  the page's inputs in the order it made them, numbered 1, 2, 3, ... without a gap,
  under the boot the page announced, exactly as a firmware seat's;
- a silent disconnect while the player keeps pressing, with a reload of the page in the
  middle of it: the inputs wait in the page's outbox (kept in localStorage) and reach the
  hub after the path heals, none lost, none reordered;
- ``risktable seat qr N --rotate`` cuts the open page off: the broker's reload drops its
  connection, its password no longer logs in, and the page of the new code plays on;
- the board under the seat shows the journal's final owners and armies.

The screenshot ``docs/screenshots/phone-seat-390x844.png`` is made here, when the page
asks for dice after the outage (the board filled in).
"""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from riskproto.territories import TERRITORIES
from risktable.cli import main
from risktable.demo.pilot import SeatPilot
from risktable.journal import Journal, journal_path
from risktable.provision.phone_seat import seat_page_url
from risktable.rules.state import GAME_OVER
from risktable.service.table_service import TableService
from risktable.table.public import board_message
from risktable.web.server import BoardPageServer, PageConfig
from tests.support.browser import new_tab, save_screenshot, set_viewport
from tests.support.fault_proxy import FaultProxy
from tests.support.mosquitto import Mosquitto, wait_for_port
from tests.support.phone_table import page_data as _data
from tests.support.phone_table import phone_table
from tests.support.seat_client import SeatClient
from tests.support.tools import ROOT, mosquitto_binary
from tests.support.waiting import value_within as _until

TABLE = "den"
RULES = "capital_1993_short"
SEATS = 3
SEED = 11
KEEPALIVE = 2  # the page's, so that a silent path is noticed within seconds
SCREENSHOT = ROOT / "docs" / "screenshots" / "phone-seat-390x844.png"

_CLICK = """
const button = document.getElementById(arguments[0]);
for (let i = 0; i < arguments[1]; i++) button.click();
"""
_FACES = """
for (const face of arguments[0]) document.querySelector(`.face[data-face="${face}"]`).click();
"""
_READ_BOARD = """
const out = {owners: [], armies: []};
for (const tid of arguments[0]) {
  out.owners.push(Number(document.getElementById('t-' + tid).dataset.owner));
  out.armies.push(Number(document.querySelector('#l-' + tid + ' text').textContent));
}
return out;
"""




class Players:
    """Where the pilot's inputs go: clicks on the phone page for the phone's seat, events
    of a protocol-level seat for the others. Records what the phone was made to send."""

    def __init__(self, driver: Any, phone: int, clients: dict[int, SeatClient]) -> None:
        self.driver = driver
        self.phone = phone
        self.clients = clients
        self.rolls: dict[int, int] = {}
        self.sent: list[dict[str, Any]] = []  # the phone's events, in the order made
        self.on_first_roll: Callable[[], None] | None = None
        self.roll_here = False  # the phone's next dice: "Roll on the phone", not faces
        # Called once, instead of the phone's first encoder input, with its steps.
        self.outage: Callable[[int], None] | None = None

    def phone_encoder(self, steps: int) -> None:
        self.driver.execute_script(_CLICK, "right" if steps > 0 else "left", abs(steps))
        self.sent.append({"kind": "encoder", "steps": steps})

    def send(self, seat: int, line: dict[str, Any]) -> None:
        if seat == self.phone:
            self._phone(line)
            return
        client = self.clients[seat]
        if "encoder" in line:
            client.send({"kind": "encoder", "steps": line["encoder"]}, wait_broker=False)
        elif "button" in line:
            client.send({"kind": "button", "button": line["button"],
                         "press": "long" if line.get("long") else "short"}, wait_broker=False)
        elif "dice" in line:
            dice = [{"id": f"m{i + 1}", "face": f, "state": "settled"}
                    for i, f in enumerate(line["dice"])]
            client.send({"kind": "dice", "roll": self.rolls[seat], "dice": dice},
                        wait_broker=False)
        else:
            raise AssertionError(f"no seat input for {line}")

    def _phone(self, line: dict[str, Any]) -> None:
        if "encoder" in line:
            outage, self.outage = self.outage, None
            if outage is not None:
                outage(line["encoder"])
            else:
                self.phone_encoder(line["encoder"])
        elif "button" in line:
            assert not line.get("long"), line
            self.driver.execute_script(_CLICK, line["button"], 1)
            self.sent.append({"kind": "button", "button": line["button"], "press": "short"})
        elif "dice" in line and self.roll_here:
            # This roll the phone makes itself, with its own random faces.
            self.roll_here = False
            self.driver.execute_script(_CLICK, "dice-roll", 1)
            made = self.driver.execute_script("return window.phoneSeat.last()")
            assert made["roll"] == self.rolls[self.phone], made
            assert [d["id"] for d in made["dice"]] == [f"e{i + 1}" for i in
                                                       range(len(line["dice"]))]
            assert all(1 <= d["face"] <= 6 and d["state"] == "settled" for d in made["dice"])
            self.sent.append(_fields(made))
        elif "dice" in line:
            self.driver.execute_script(_FACES, line["dice"])
            self.sent.append({"kind": "dice", "roll": self.rolls[self.phone], "dice": [
                {"id": f"m{i + 1}", "face": f, "state": "settled"}
                for i, f in enumerate(line["dice"])]})
        else:
            raise AssertionError(f"the phone seat has no input for {line}")

    def armed(self, seat: int, roll: int, count: int, timeout: float) -> bool:
        if seat == self.phone:
            try:
                _until(f"roll {roll} armed on the page",
                       lambda: _data(self.driver, "armed") == str(roll), timeout)
            except AssertionError:
                return False
            if self.on_first_roll is not None:
                self.on_first_roll()
                self.on_first_roll = None
        else:
            client = self.clients[seat]
            try:
                _until(f"roll {roll} armed at seat {seat}", lambda: any(
                    c.get("cmd") == "arm_dice" and c.get("roll") == roll
                    for c in list(client.commands)), timeout)
            except AssertionError:
                return False
        self.rolls[seat] = roll
        return True


def _journal_inputs(data_dir: Path, seat: int) -> tuple[int, list[tuple[int | None, int,
                                                                        dict[str, Any]]]]:
    with Journal(journal_path(data_dir), create=False) as journal:
        game = journal.current_game(TABLE)
        assert game is not None
    with contextlib.closing(sqlite3.connect(journal_path(data_dir))) as db:
        rows = db.execute("SELECT boot, seq, event FROM inputs WHERE game_id = ? AND seat = ?"
                          " ORDER BY id", (game, seat)).fetchall()
    return game, [(boot, seq, json.loads(event)) for boot, seq, event in rows]


def _fields(event: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in event.items() if k not in ("v", "t", "seat", "seq")}


def _login_refused(port: int, username: str, password: str) -> bool:
    client = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2,
                         client_id="probe", protocol=mqtt.MQTTv311)
    client.username_pw_set(username, password)
    result: list[bool] = []
    client.on_connect = lambda c, u, f, reason, p: result.append(bool(reason.is_failure))
    client.connect("127.0.0.1", port, 5)
    client.loop_start()
    try:
        return bool(_until("the broker's CONNACK", lambda: result, 10)[0])
    finally:
        client.disconnect()
        client.loop_stop()


@pytest.mark.slow
def test_a_phone_seat_plays_a_whole_game_through_its_page(tmp_path: Path, browser: Any) -> None:
    table = phone_table(tmp_path, TABLE, SEATS, RULES)
    folder, port, ws_port, creds = table.folder, table.port, table.ws_port, table.creds
    rules, cards, config = table.rules, table.cards, table.config
    data_dir = config.data_dir
    started = time.monotonic()
    with contextlib.ExitStack() as stack:
        broker = stack.enter_context(Mosquitto(mosquitto_binary(), folder, port=port,
                                               config_file=folder / "mosquitto.conf"))
        wait_for_port("127.0.0.1", ws_port)
        proxy = stack.enter_context(FaultProxy("127.0.0.1", ws_port, framed=False))
        ws_url = f"ws://127.0.0.1:{proxy.port}/"
        page = stack.enter_context(BoardPageServer(PageConfig(ws_url, TABLE, players=SEATS)))
        driver = browser
        set_viewport(driver, 390, 844)
        players = Players(driver, 0, {})
        pilot = SeatPilot(players.send, players.armed, cards, seed=SEED, timeout=30.0)
        service = TableService(config, rules=rules, card_uids=cards, seed=SEED, paused=True,
                               on_input=pilot.on_input)
        stack.callback(service.stop)
        service.start()
        # The phone takes the seat that acts first.
        phone = service.inspect(lambda s: s.seats[s.menu.player])
        players.phone = phone
        for seat in range(1, SEATS + 1):
            if seat != phone:
                account = creds["seats"][seat - 1]
                players.clients[seat] = stack.enter_context(SeatClient(
                    "127.0.0.1", port, TABLE, seat, username=account["username"],
                    password=account["password"]))
        account = creds["seats"][phone - 1]
        url = seat_page_url(page.url, TABLE, phone, account["username"], account["password"],
                            ws_url, KEEPALIVE)
        driver.get(url)
        assert service.hub.wait_for_seats(list(range(1, SEATS + 1)), 20)
        _until("the page's link", lambda: _data(driver, "link") == "up")
        _until("the page's first view", lambda: int(_data(driver, "views") or 0) > 0)
        # The password left the address bar (and the tab's history entry) once read.
        shown = driver.execute_script("return location.href")
        assert "#" not in shown and account["password"] not in shown, shown
        boot = int(_data(driver, "boot"))
        service.toggle_pause()

        def swipe(steps: int) -> None:
            from selenium.webdriver.common.action_chains import ActionChains

            display = driver.find_element("id", "display")
            ActionChains(driver).move_to_element_with_offset(display, -100, 0) \
                .click_and_hold().move_by_offset(45 * steps, 0).release().perform()
            players.sent.append({"kind": "encoder", "steps": steps})

        def outage(steps: int) -> None:
            # A silent disconnect: the path stops forwarding, nothing is closed. The
            # player keeps turning the knob (the pilot's turn and four more that cancel
            # out, so the pilot's plan still holds).
            before = len(players.sent)
            proxy.black_hole()
            players.phone_encoder(steps)
            # Separate turns of the knob, not one (the page joins taps 150 ms apart):
            # each is in the outbox before the next (it was empty: the pilot waits for
            # every answer).
            _until("the first turn queued", lambda: _data(driver, "outbox") == "1")
            players.phone_encoder(1)
            _until("the page noticing the dead path", lambda: _data(driver, "link") == "down",
                   15)
            assert service.hub.wait_for_seats([phone], 15, online=False)
            players.phone_encoder(-1)
            _until("the third turn queued", lambda: _data(driver, "outbox") == "3")
            # The phone reloads the page (or its OS drops it) while still cut off.
            driver.execute_script("window.beforeReload = true")
            driver.refresh()
            _until("the reloaded page", lambda: _data(driver, "outbox") == "3")
            assert driver.execute_script("return window.beforeReload === undefined")
            # The reload found the account in the tab's own storage, not in the address.
            assert account["password"] not in driver.execute_script("return location.href")
            assert int(_data(driver, "boot")) == boot
            swipe(2)  # a swipe over the display turns the knob too
            _until("the swipe queued", lambda: _data(driver, "outbox") == "4")
            players.phone_encoder(-2)
            _until("the fifth input queued", lambda: _data(driver, "outbox") == "5")
            proxy.black_hole(False)
            _until("the queued inputs answered", lambda: _data(driver, "outbox") == "0", 30)
            _, queued = _journal_inputs(data_dir, phone)
            assert [_fields(e) for _, _, e in queued[before:]] == [
                {"kind": "encoder", "steps": n} for n in (steps, 1, -1, 2, -2)]
            outages.append(before)
            # The screenshot: at the phone's next roll, with the board filled in.
            players.on_first_roll = screenshot

        def screenshot() -> None:
            time.sleep(0.3)  # the view that asks for the dice, drawn
            save_screenshot(driver, SCREENSHOT)
            players.roll_here = True  # the next one (the game goes its own way from there)

        outages: list[int] = []
        players.outage = outage
        inputs = pilot.play(service)
        assert service.inspect(lambda s: s.state.phase) == GAME_OVER
        assert outages, "the phone never turned its knob"
        assert any(e["kind"] == "dice" and e["dice"][0]["id"] == "e1" for e in players.sent)
        game, journaled = _journal_inputs(data_dir, phone)
        # Every input the phone made, applied once, in order, numbered without a gap.
        assert [(b, s, _fields(e)) for b, s, e in journaled] == [
            (boot, i + 1, sent) for i, sent in enumerate(players.sent)]
        assert len(journaled) > 50
        with Journal(journal_path(data_dir), create=False) as journal:
            final = board_message(journal.state(game))
        _until("the page's board at the end", lambda: driver.execute_script(
            _READ_BOARD, list(TERRITORIES)) == {"owners": final["owners"],
                                                "armies": final["armies"]})
        assert SCREENSHOT.is_file()

        # risktable seat qr N --rotate: a new password, the broker reloaded.
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["seat", "qr", str(phone), "--rotate", "--broker-dir", str(folder),
                         "--broker-pid", str(broker.process.pid if broker.process else 0),
                         "--page", page.url, "--ws-url", ws_url,
                         "--keepalive", str(KEEPALIVE)]) == 0
        printed = out.getvalue().splitlines()
        new_url = next(line.split(": ", 1)[1] for line in printed
                       if line.startswith(f"seat {phone} of table {TABLE}: "))
        assert new_url != url and "#" in new_url and "▀" in out.getvalue()
        new_password = json.loads((folder / "credentials.json").read_text())[
            "seats"][phone - 1]["password"]
        assert f"pass={new_password}" in new_url
        # mosquitto re-checks its clients' passwords when it reloads: the open page is
        # dropped there and then, and its next login is refused.
        # (mosquitto 2.0.11 publishes no Will for it: the hub hears of the seat again from
        # the new page's birth; docs/phone-seat.md.)
        _until("the old page cut off", lambda: _data(driver, "link") == "refused", 20)
        assert _login_refused(port, account["username"], account["password"])
        next_seq = _data(driver, "next")
        new_tab(driver)
        driver.get(new_url)
        _until("the new page's link", lambda: _data(driver, "link") == "up")
        # Same phone, same storage: the new page goes on with the seat's numbering.
        assert _data(driver, "next") == next_seq
        assert service.hub.wait_for_seats([phone], 10)
        # And the hub answers it (the game is over: a refusal, which closes the input too).
        driver.execute_script(_CLICK, "back", 1)
        _until("the new page's input answered", lambda: _data(driver, "outbox") == "0"
               and _data(driver, "next") == str(int(next_seq) + 1))
    elapsed = time.monotonic() - started
    print(f"phone seat: {len(journaled)} of {inputs} inputs through the page, {elapsed:.1f} s")
