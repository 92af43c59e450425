"""A game night, end to end, by the setup checklist, played as people play it.

The test follows the checklist of docs/setup.md ("from an empty table to the first game")
line by line, as written, with a scratch folder for ``/etc/risktable`` and
``/var/lib/risktable`` and free loopback ports for 1883, 1884, 9001, 9002 and 8080: `risktable
broker config`, the table broker and the guest broker as real mosquitto processes, the
hub as ``python -m risktable hub --config hub.toml`` (the checklist's TOML block; no LED
board or GPIO panel here), the seats' configurations from `risktable seat config`, seats
1 to 3 the checklist's own `risktable seat play` lines, each run in a pseudo-terminal of
its own (NO_COLOR set, as a person's terminal may), and seat 4 the phone seat page that
`risktable seat qr` links to, in headless Chromium. The test is the people at the
table: they read each terminal's screen and the page, and type keys or tap the page's
buttons as a person does; nothing is written to a firmware's stdin but by `seat play`.
Between the lines the people do what the checklist says: seat 1 enrolls every card of
the deck with ``c`` and Enter; the first game (the 2016 beginner game, with a house rule)
is played to a winner (tests/e2e/table_people.py: Ana plays to win, the others
cautiously, so that it ends within minutes); on the way one player presses when it is
not their turn, and the referee pauses (a press is refused, and the screen says why),
resumes and undoes. Then the next game starts with `games new`, no file touched; `dice
stats` counts every die each seat rolled, each once, and `games report` writes the page of
the game won, naming the players.
"""

from __future__ import annotations

import json
import os
import pty
import re
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from risktable.config import TableConfig
from risktable.processes import end_process
from risktable.rules import classic_board
from risktable.rules.state import ATTACK, CLAIM, GAME_OVER
from risktable.table.session import TableSession
from tests.e2e.table_people import Controls, People, Watcher
from tests.support.mosquitto import Mosquitto, free_port
from tests.support.tools import ROOT, mosquitto_binary, subprocess_env
from tests.support.waiting import value_within

SETUP = ROOT / "docs" / "setup.md"
NAMES = {1: "Ana", 2: "Ben", 3: "Cleo", 4: "Dara"}
KEYBOARDS = (1, 2, 3)  # the seats played from a PC's keyboard
PHONE = 4  # the seat played from a phone
# The checklist's steps that people at the table follow up, in the checklist's order.
STEPS = ["seat qr", "cards enroll", "games new", "table status", "table pause",
         "table resume", "table undo", "games new", "games report"]
WAIT = 30.0  # seconds for anything the hub or a seat does


def checklist(path: Path) -> tuple[str, str]:
    """The checklist's shell block and hub.toml block, as written in ``path``."""
    text = path.read_text()
    shell = re.search(r"```sh\n(.*?)```", text, re.S)
    toml = re.search(r"```toml\n(.*?)```", text, re.S)
    assert shell is not None and toml is not None, f"no checklist in {path}"
    return shell.group(1), toml.group(1)


def commands(block: str) -> list[str]:
    return [line for line in block.splitlines() if line.strip() and not line.startswith("#")]


CLEAR = "\x1b[H\x1b[2J"  # seat play clears the terminal before each screen


class Terminal:
    """A checklist line run in a pseudo-terminal of its own, as in a person's terminal
    window: its screen (the last one the program drew) and the keys typed into it."""

    def __init__(self, line: str, env: dict[str, str], cwd: Path) -> None:
        self.line = line
        self.master, child = pty.openpty()
        self.process = subprocess.Popen(["bash", "-c", line], stdin=child, stdout=child,
                                        stderr=child, env=env, cwd=cwd, close_fds=True)
        os.close(child)
        self._output = ""
        self._changed = threading.Condition()
        # Read all along, as a terminal window does, so the program never waits on it.
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:  # the program ended and closed its side
                data = b""
            with self._changed:
                text = data.decode(errors="replace")
                self._output = (self._output + text)[-200_000:]
                self._changed.notify_all()
            if not data:
                return

    def screen(self) -> str:
        """What the terminal shows now: the program's last screen."""
        with self._changed:
            return self._output.rsplit(CLEAR, 1)[-1]

    def screens(self, count: int) -> str:
        """The program's last ``count`` screens, oldest first, for a failure's message."""
        with self._changed:
            return "\n-----\n".join(self._output.split(CLEAR)[-count:])

    def wait(self, shown: Callable[[str], bool], what: str, timeout: float = WAIT) -> str:
        """The screen once ``shown(screen)`` holds."""
        with self._changed:
            if not self._changed.wait_for(lambda: shown(self._output.rsplit(CLEAR, 1)[-1]),
                                          timeout):
                raise AssertionError(f"{what}: not on {self.line!r} within {timeout} s; "
                                     f"its screen:\n{self._output.rsplit(CLEAR, 1)[-1]}")
            return self._output.rsplit(CLEAR, 1)[-1]

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def close(self) -> None:
        """q leaves the seat, as a person leaves it."""
        if self.process.poll() is None:
            self.type("q")
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                end_process(self.process)
        os.close(self.master)


ARMED = re.compile(r"^  (\d+) di(?:e|ce) to roll \(press r\)", re.M)
ARROWS = {1: "\x1b[C", -1: "\x1b[D"}  # Right and Left: the encoder
BUTTONS = {"confirm": "\r", "back": "\x7f"}


class KeyboardSeat:
    """A person at a ``seat play`` terminal: the encoder is Left and Right, Confirm is
    Enter, Back is Backspace, the dice are r once the screen asks for a roll."""

    def __init__(self, term: Terminal) -> None:
        self.term = term

    def turn(self, steps: int) -> int:
        self.term.type(ARROWS[1 if steps > 0 else -1] * abs(steps))
        return abs(steps)  # the emulated encoder sends a detent at a time

    def press(self, button: str) -> None:
        self.term.type(BUTTONS[button])

    def roll(self) -> None:
        self.term.wait(lambda screen: ARMED.search(screen) is not None, "a roll asked for")
        self.term.type("r")

    def asks_roll(self) -> bool:
        return ARMED.search(self.term.screen()) is not None

    def screen(self) -> str:
        return self.term.screens(4)


_CLICK = """
const button = document.getElementById(arguments[0]);
for (let i = 0; i < arguments[1]; i++) button.click();
"""


class PhoneSeat:
    """A person with the phone seat page: the knob's two buttons, Confirm and Back, and
    "Roll on the phone" once the page asks for a roll."""

    def __init__(self, driver: Any) -> None:
        self.driver = driver
        self.rolled = ""  # the roll last made here: a new one is asked for by its number

    def data(self, name: str) -> str:
        return str(self.driver.execute_script(f"return document.body.dataset.{name} || ''"))

    def turn(self, steps: int) -> int:
        self.driver.execute_script(_CLICK, "right" if steps > 0 else "left", abs(steps))
        return 1  # the page sends the turns of a moment as one input

    def press(self, button: str) -> None:
        self.driver.execute_script(_CLICK, button, 1)

    def roll(self) -> None:
        value_within("a roll asked for on the page",
                     lambda: self.data("armed") not in ("", self.rolled), WAIT)
        self.rolled = self.data("armed")
        self.driver.execute_script(_CLICK, "dice-roll", 1)

    def asks_roll(self) -> bool:
        return self.data("armed") not in ("", self.rolled)

    def screen(self) -> str:
        return str(self.driver.execute_script(
            "return document.getElementById('display').innerText"))

    def wait(self, shown: Callable[[str], bool], what: str) -> str:
        return value_within(f"{what} on the phone seat page",
                            lambda: self.screen() if shown(self.screen()) else "", WAIT)


class GameNight:
    """The table's processes, and what the people at it did, as the checklist runs."""

    def __init__(self, root: Path, browser: Any) -> None:
        self.root = root
        self.browser = browser
        self.etc = root / "etc"
        self.etc.mkdir()
        # The checklist's ports, each for a free one: the brokers' TCP ports, the seat
        # WebSockets listener, the hub's page server.
        self.ports = {"1883": free_port(), "1884": free_port(), "9001": free_port(),
                      "9002": free_port(), "8080": free_port()}
        self.brokers: list[Mosquitto] = []
        self.hub: subprocess.Popen[bytes] | None = None
        self.hub_log = root / "hub.log"
        self.seats: dict[int, Terminal] = {}
        self.phone: PhoneSeat | None = None
        self.watcher: Watcher | None = None
        self.out = ""  # the last command's standard output
        # The commands as a person's shell finds them; a terminal without colours.
        self.env = subprocess_env(PATH=f"{Path(sys.executable).parent}:/usr/bin:/bin",
                                  NO_COLOR="1")

    def put(self, text: str) -> str:
        """The checklist's text with this run's folders and ports in."""
        # Ports first: the scratch folder's path may hold those digits.
        for written, port in self.ports.items():
            text = text.replace(written, str(port))
        return (text.replace("/etc/risktable", str(self.etc))
                .replace("/var/lib/risktable", str(self.root / "data")))

    def run(self, line: str) -> None:
        """One checklist line: started (brokers, hub, seats) or run to its end."""
        argv = shlex.split(line)
        if argv[0] == "mosquitto":
            config = Path(argv[2])
            port = self.ports["1884" if config.name == "guests.conf" else "1883"]
            self.brokers.append(Mosquitto(mosquitto_binary(), self.root / config.stem,
                                          port=port, config_file=config).start())
        elif argv[:2] == ["risktable", "hub"]:
            with open(self.hub_log, "ab") as log:
                self.hub = subprocess.Popen([sys.executable, "-m", *argv, "-v"],
                                            env=subprocess_env(), stdout=log, stderr=log)
        elif argv[:3] == ["risktable", "seat", "play"]:
            seat = int(argv[argv.index("--seat") + 1])
            self.seats[seat] = Terminal(line, self.env, self.root)
            self.seats[seat].wait(lambda screen: f"Seat {seat} | broker up | hub up" in screen,
                                  "the seat hearing the hub")
        else:
            self.out = self.shell(line)

    def shell(self, line: str) -> str:
        done = subprocess.run(["bash", "-c", line], cwd=self.root, env=self.env,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, (line, done.stdout, done.stderr, self.hub_tail())
        return done.stdout

    def risktable(self, *words: str, referee: bool = False) -> str:
        """A journal command, or a referee request to the running hub, found by the
        hub's configuration."""
        line = "risktable " + " ".join(words) + " --config /etc/risktable/hub.toml"
        if referee:
            line += " --credentials /etc/risktable/broker/credentials.json"
        return self.shell(self.put(line))

    def hub_tail(self) -> str:
        return self.hub_log.read_text(errors="replace")[-3000:] if self.hub_log.exists() else ""

    def wait(self, seat: int, shown: Callable[[str], bool], what: str = "") -> str:
        """Seat ``seat``'s display once ``shown`` holds for it (its lines joined by " | "
        at a keyboard, the page's display text at the phone)."""
        try:
            if seat == PHONE:
                assert self.phone is not None
                return self.phone.wait(lambda text: shown(" | ".join(text.splitlines())),
                                       what or "the phone seat")
            return self.seats[seat].wait(lambda screen: shown(display(screen)),
                                         what or f"seat {seat}")
        except AssertionError as exc:
            raise AssertionError(f"{exc}\nthe hub's log ends:\n{self.hub_tail()}") from None

    def open_phone(self, link: str) -> None:
        """Dara opens the link under the QR code; the page is seat 4 once the hub
        hears it."""
        self.browser.get(link)
        self.phone = PhoneSeat(self.browser)
        value_within("the phone seat page online", lambda: self.phone is not None and int(
            self.phone.data("views") or 0) > 0, WAIT)

    # ---- what the people at the table do

    def enroll(self, seat: int) -> None:
        """Seat ``seat`` enrolls every card of the 1993 deck: c taps the card its display
        names, Enter stores it, as the display asks."""
        size = classic_board().deck_size
        term = self.seats[seat]
        for card in range(size):
            self.wait(seat, lambda shown, n=card: f"card {n + 1} of {size}" in shown
                      and "Tap the card of" in shown, f"card {card + 1} asked for")
            if card == 1:
                # The other seats follow the progress, the player named.
                self.wait(2, lambda shown: f"{NAMES[seat]} enrolls cards | 1 of {size}"
                          in shown)
            term.type("c")
            self.wait(seat, lambda shown, n=card: "Confirm" in shown
                      and f"card {n + 1} of {size}" in shown, "the card tapped")
            term.type("\r")
        deck = self.root / "data" / "cards.json"
        value_within("the deck saved", lambda: deck.exists()
                     and len(json.loads(deck.read_text())["cards"]) == size, WAIT)

    def people(self) -> People:
        if self.watcher is None:
            self.watcher = Watcher(self.root / "data", TableConfig(
                id="den", seats=len(NAMES), names=NAMES))
        assert self.phone is not None
        controls: dict[int, Controls] = {seat: KeyboardSeat(self.seats[seat])
                                         for seat in KEYBOARDS}
        controls[PHONE] = self.phone
        return People(self.watcher, controls)

    def close(self) -> None:
        for term in self.seats.values():
            term.close()
        if self.watcher is not None:
            self.watcher.close()
        if self.hub is not None:
            end_process(self.hub)
        for broker in reversed(self.brokers):
            broker.stop()


def display(screen: str) -> str:
    """The seat's display lines on a seat play screen, joined by " | "."""
    return " | ".join(line[4:] for line in screen.splitlines() if line.startswith("  | "))


def shows(words: str) -> Callable[[str], bool]:
    """Whether a seat's display (its lines joined by " | ") holds ``words``."""
    return lambda shown: words in shown


@pytest.fixture
def night(tmp_path: Path, browser: Any) -> Iterator[GameNight]:
    table = GameNight(tmp_path, browser)
    try:
        yield table
    finally:
        table.close()


def attacking(session: TableSession) -> bool:
    """Ana has placed her first reinforcements and may attack."""
    return session.state.phase == ATTACK and session.state.player == 0


def over(session: TableSession) -> bool:
    return session.state.phase == GAME_OVER


class Players:
    """What the people at the table do after each checklist line."""

    def __init__(self, night: GameNight) -> None:
        self.night = night
        self.done: list[str] = []  # the steps the players took part in, in order
        self.people: People | None = None
        self.games = 0  # the games started with games new
        self.winner = ""

    def told(self, seat: int, detail: str) -> None:
        """The seat's display says why its press was refused (the firmware shows the
        reason for a few seconds, word-wrapped over the display's lines)."""
        self.night.wait(seat, lambda shown: detail.lower() in " ".join(
            shown.replace(" | ", " ").split()).lower(), f"told {detail!r}")

    def settled(self, seat: int) -> str:
        """Wait until the seat's display shows what the hub has for it, as a person looks
        at their screen before pressing (under load a screen may lag the game); what it
        shows."""
        assert self.people is not None
        lines = self.people.session().view(seat)["lines"]
        words = " ".join(" ".join(lines).split())
        self.night.wait(seat, lambda shown: " ".join(shown.replace(" | ", " ").split())
                        == words, f"the hub's screen for seat {seat}: {words!r}")
        return words

    def after(self, words: list[str]) -> None:
        night, out = self.night, self.night.out
        if " ".join(words) in STEPS:
            self.done.append(" ".join(words))
        if words == ["seat", "qr"]:
            found = re.search(r"seat 4 of table den: (\S+)", out)
            assert found is not None, out
            link = found[1]
            assert link.startswith(f"http://127.0.0.1:{night.ports['8080']}/seat.html"), out
            night.open_phone(link)
        elif words == ["cards", "enroll"]:
            assert out.startswith("enrolling the 1993 deck at seat 1: 0 of 44 cards"), out
            night.enroll(1)
        elif words == ["games", "new"] and self.games == 0:
            self.games = 1
            assert out.startswith("game 2 started") and "not enrolled" not in out, out
            self.people = night.people()
            # Every seat was dealt its territories; Ana places her armies and may attack.
            self.people.play(attacking)
            # A seat whose turn it is not presses, once its screen shows Ana's last move:
            # it is told why.
            self.settled(2)
            night.seats[2].type("\r")
            self.told(2, "Ana is playing: wait for your turn")
        elif words == ["table", "status"]:
            assert out.startswith("game 2 (4 seats, "), out
            assert ": attack, Ana to play" in out, out
        elif words == ["table", "pause"]:
            for seat in NAMES:
                night.wait(seat, shows("Paused by the referee"))
            # Ana presses anyway, and is told why nothing happens.
            night.seats[1].type("\r")
            self.told(1, "The referee has paused the game")
        elif words == ["table", "resume"]:
            # Ana's screen is back to her attack, as the hub has it.
            assert self.settled(1).startswith(("Attack from", "End attacks?"))
        elif words == ["table", "undo"]:
            assert out.startswith("undid 1 action; game 2 (4 seats, "), out
            # Back to her reinforcements: she places them again, and plays on to the end.
            assert self.people is not None
            ended = self.people.play(over)
            winner = ended.seats[ended.state.player]
            self.winner = NAMES[winner]
            # Every seat says who won; the winner's says so to them.
            for seat in NAMES:
                night.wait(seat, shows("You won!" if seat == winner else f"{self.winner} won"))
        elif words == ["games", "new"]:
            assert self.winner, "the next game started before the first was won"
            assert out.startswith("game 3 started"), out
            # The next game: every seat rolls for who begins, until someone claims.
            assert self.people is not None
            self.people.play(lambda session: session.state.phase == CLAIM)
        elif words == ["games", "report"]:
            page = (night.root / "game2.html").read_text()
            assert page.lower().startswith("<!doctype html>"), page[:200]
            # The report names every player by the name the hub's configuration gives
            # their seat, the winner too.
            assert all(name in page for name in NAMES.values()), page[:2000]


@pytest.mark.slow
@pytest.mark.timeout(600)  # a whole game at four seats: 1 to 3 minutes, more when loaded
def test_a_game_night_by_the_setup_checklist(night: GameNight) -> None:
    started = time.monotonic()
    block, toml = checklist(SETUP)
    players = Players(night)
    for line in commands(block):
        line = night.put(line)
        if line.startswith("risktable hub "):
            # No LED board or GPIO panel on a test machine.
            hub_toml = night.etc / "hub.toml"
            text = night.put(toml)
            for part in ("[leds]", "[panel]"):
                head, _, tail = text.partition(part)
                text = head + part + tail.replace("enabled = true", "enabled = false", 1)
            hub_toml.write_text(text)
        night.run(line)
        try:
            players.after(shlex.split(line)[1:3])
        except AssertionError as exc:
            if "the hub's log ends" in str(exc):
                raise
            raise AssertionError(f"{exc}\nthe hub's log ends:\n{night.hub_tail()}") from None
    assert players.done == STEPS
    assert night.hub is not None and night.hub.poll() is None, night.hub_tail()

    games = {g["id"]: g for g in json.loads(night.risktable("games", "list", "--json"))}
    assert [games[g]["status"] for g in (1, 2)] == ["abandoned", "finished"], games
    # games new --house set game 2's house rules in place of the configuration's; game 3
    # is the configuration's game again.
    assert games[2]["options"]["defence_dice"] == "3" and "second_set" not in games[2]["options"]
    assert games[3]["options"]["second_set"] == "forced" and "defence_dice" not in games[3][
        "options"]
    assert games[3]["current"] and games[3]["status"] == "running"

    # Every die rolled at a seat is counted for that seat's dice, once: as many as the
    # seat's screen asked for at each roll.
    assert players.people is not None
    stats = json.loads(night.risktable("dice", "stats", "--json"))["dice"]
    rolled: dict[int, int] = {}
    for row in stats:
        seat = int(row["die"].split()[1])
        rolled[seat] = rolled.get(seat, 0) + sum(row["faces"])
    assert rolled == players.people.tally.dice, (stats, players.people.tally.dice)
    print(f"game night: {time.monotonic() - started:.1f} s, "
          f"{players.people.tally.moves} moves in games 2 and 3, {players.winner} won")
