"""A game night, end to end, by the setup checklist, played as people play it.

The test follows the checklist of docs/setup.md ("from an empty table to the first game")
line by line, as written, with a scratch folder for ``/etc/risktable`` and
``/var/lib/risktable`` and free loopback ports for 1883 and 1884: `risktable broker
config`, the table broker and the guest broker as real mosquitto processes, the hub as
``python -m risktable hub --config hub.toml`` (the checklist's TOML block; no LED board
or GPIO panel here), the seats' configurations from `risktable seat config`, and every
seat the checklist's own `risktable seat play` line, run in a pseudo-terminal of its own
(NO_COLOR set, as a person's terminal may). The test is the people at the table: it
reads each terminal's screen (the seat's display, the roll it waits for, its last
refusal) and types keys as a person does; nothing is written to a firmware's stdin but
by `seat play`. Between the lines the people do what the checklist says: seat 1 enrolls
every card of the deck with ``c`` and Enter, the seats roll their dice with ``r`` for the
opening roll and claim territories with Enter, one presses when it is not its turn, the
referee pauses (a press is refused, and the screen says why), resumes and undoes a
claim. Then a second game starts with `games new`, no file touched; `dice stats` counts
exactly the rolls made at each seat, and `games report` writes the page of the game the
referee ran.
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

import pytest

from risktable.processes import end_process
from risktable.rules import classic_board
from tests.support.mosquitto import Mosquitto, free_port
from tests.support.tools import ROOT, mosquitto_binary, subprocess_env

SETUP = ROOT / "docs" / "setup.md"
NAMES = {1: "Ana", 2: "Ben", 3: "Cleo"}
# The checklist's steps that people at the table follow up, in the checklist's order.
STEPS = ["cards enroll", "games new", "table status", "table pause", "table resume",
         "table undo"]
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
        self.frames = 0  # screens drawn so far
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
                # A clear-screen sequence may arrive split over two reads.
                self.frames += (self._output[-(len(CLEAR) - 1):] + text).count(CLEAR)
                self._output = (self._output + text)[-200_000:]
                self._changed.notify_all()
            if not data:
                return

    def screen(self) -> str:
        """What the terminal shows now: the program's last screen."""
        with self._changed:
            return self._output.rsplit(CLEAR, 1)[-1]

    def screens_since(self, frames: int) -> list[str]:
        """Every screen drawn since ``frames`` screens had been drawn, oldest first."""
        with self._changed:
            count = self.frames - frames
            return self._output.split(CLEAR)[-count:] if count > 0 else []

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


def display(screen: str) -> str:
    """The seat's display lines on a seat play screen, joined by " | "."""
    return " | ".join(line[4:] for line in screen.splitlines() if line.startswith("  | "))


def shows(words: str) -> Callable[[str], bool]:
    """Whether a seat's display holds ``words`` (its lines joined by " | ")."""
    return lambda screen: words in display(screen)


ARMED = re.compile(r"^  (\d+) di(?:e|ce) to roll \(press r\)", re.M)


class GameNight:
    """The table's processes, and what the people at it did, as the checklist runs."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.etc = root / "etc"
        self.etc.mkdir()
        self.port, self.guest_port = free_port(), free_port()
        self.brokers: list[Mosquitto] = []
        self.hub: subprocess.Popen[bytes] | None = None
        self.hub_log = root / "hub.log"
        self.seats: dict[int, Terminal] = {}
        self.rolls: dict[int, int] = {}  # seat -> dice rolled there with r
        self.rolled: set[tuple[int, int]] = set()  # (seat, n) the rolls made in this game
        # seat: (screens drawn, when, dice asked) as it pressed r
        self.asked: dict[int, tuple[int, float, int]] = {}
        self.out = ""  # the last command's standard output
        # The commands as a person's shell finds them; a terminal without colours.
        self.env = subprocess_env(PATH=f"{Path(sys.executable).parent}:/usr/bin:/bin",
                                  NO_COLOR="1")

    def put(self, text: str) -> str:
        """The checklist's text with this run's folders and ports in."""
        # Ports first: the scratch folder's path may hold those digits.
        text = text.replace("1883", str(self.port)).replace("1884", str(self.guest_port))
        return (text.replace("/etc/risktable", str(self.etc))
                .replace("/var/lib/risktable", str(self.root / "data")))

    def run(self, line: str) -> None:
        """One checklist line: started (brokers, hub, seats) or run to its end."""
        argv = shlex.split(line)
        if argv[0] == "mosquitto":
            config = Path(argv[2])
            port = self.guest_port if config.name == "guests.conf" else self.port
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
        try:
            return self.seats[seat].wait(shown, what or f"seat {seat}")
        except AssertionError as exc:
            raise AssertionError(f"{exc}\nthe hub's log ends:\n{self.hub_tail()}") from None

    # ---- what the people at the table do

    def enroll(self, seat: int) -> None:
        """Seat ``seat`` enrolls every card of the 1993 deck: c taps the card its display
        names, Enter stores it, as the display asks."""
        size = classic_board().deck_size
        term = self.seats[seat]
        for card in range(size):
            self.wait(seat, shows(f"card {card + 1} of {size}"), f"card {card + 1} asked for")
            self.wait(seat, shows("Tap the card of"))
            if card == 1:
                # The other seats follow the progress, the player named.
                self.wait(2, shows(f"{NAMES[seat]} enrolls cards | 1 of {size}"))
            term.type("c")
            self.wait(seat, lambda screen, n=card: "Confirm" in display(screen)
                      and f"card {n + 1} of {size}" in display(screen), "the card tapped")
            term.type("\r")
        deck = self.root / "data" / "cards.json"
        self.wait(seat, lambda _: deck.exists()
                  and len(json.loads(deck.read_text())["cards"]) == size, "the deck saved")

    def claimer(self) -> int | None:
        for seat, term in self.seats.items():
            if "Claim a territory" in display(term.screen()):
                return seat
        return None

    def opening_roll(self) -> int:
        """Each seat rolls (r) when its screen asks for a roll, until a seat is to claim;
        that seat."""
        # A new game numbers its rolls afresh.
        self.rolled.clear()
        self.asked.clear()
        deadline = time.monotonic() + WAIT
        # Until a seat is to claim, once every seat rolled in this game (the screens may
        # still show the game before for a moment).
        while (first := self.claimer()) is None or {s for s, _ in self.rolled} != set(
                self.seats):
            assert time.monotonic() < deadline, {s: t.screen() for s, t in self.seats.items()}
            for seat, term in self.seats.items():
                # As a person presses: r when the screen asks for a roll; the roll was
                # taken once a screen without the ask is drawn after the press (a tie
                # asks again in the same words). A press the seat did not take (the
                # screen still showed the game before) is pressed again after a while.
                pressed = self.asked.get(seat)
                if pressed is not None:
                    frames, at, dice = pressed
                    if not all(ARMED.search(shown) for shown in term.screens_since(frames)):
                        del self.asked[seat]
                        self.rolled.add((seat, len(self.rolled)))
                        self.rolls[seat] = self.rolls.get(seat, 0) + dice
                        continue
                    if time.monotonic() - at < 2:
                        continue
                armed = ARMED.search(term.screen())
                if armed is None:
                    continue
                self.asked[seat] = (term.frames, time.monotonic(), int(armed[1]))
                term.type("r")
            time.sleep(0.05)
        return first

    def claim(self, seat: int) -> int:
        """``seat`` claims the territory under its cursor (Enter); the next to claim."""
        self.seats[seat].type("\r")
        deadline = time.monotonic() + WAIT
        while (after := self.claimer()) in (None, seat):
            assert time.monotonic() < deadline, {s: t.screen() for s, t in self.seats.items()}
            time.sleep(0.05)
        assert after is not None
        return after

    def close(self) -> None:
        for term in self.seats.values():
            term.close()
        if self.hub is not None:
            end_process(self.hub)
        for broker in reversed(self.brokers):
            broker.stop()


@pytest.fixture
def night(tmp_path: Path) -> Iterator[GameNight]:
    table = GameNight(tmp_path)
    try:
        yield table
    finally:
        table.close()


class Players:
    """What the people at the table do after each checklist line."""

    def __init__(self, night: GameNight) -> None:
        self.night = night
        self.first = self.second = 0  # the first two seats to claim in game 2
        self.done: list[str] = []  # the steps the players took part in, in order

    def told(self, seat: int, detail: str) -> None:
        """The seat's display says why its press was refused (the firmware shows the
        reason for a few seconds, word-wrapped over the display's lines)."""
        self.night.wait(seat, lambda screen: detail.lower() in " ".join(
            display(screen).replace(" | ", " ").split()).lower(), f"told {detail!r}")

    def after(self, words: list[str]) -> None:
        night, out = self.night, self.night.out
        if " ".join(words) in STEPS:
            self.done.append(" ".join(words))
        if words == ["cards", "enroll"]:
            assert out.startswith("enrolling the 1993 deck at seat 1: 0 of 44 cards"), out
            # The hub said so at its start, once connected.
            assert "the 1993 deck is not enrolled (0 of 44 cards)" in night.hub_log.read_text()
            night.enroll(1)
        elif words == ["games", "new"]:
            assert out.startswith("game 2 started") and "not enrolled" not in out, out
            self.first = night.opening_roll()
            self.second = night.claim(self.first)
            for seat in set(NAMES) - {self.second}:
                night.wait(seat, shows(f"{NAMES[self.second]} to play"))
            # The seat that just claimed presses again: not its turn, and it is told why.
            night.seats[self.first].type("\r")
            self.told(self.first, f"{NAMES[self.second]} is playing: wait for your turn")
        elif words == ["table", "status"]:
            assert out.startswith("game 2 (3 seats, defence_dice=3): claim, "
                                  f"{NAMES[self.second]} to play"), out
        elif words == ["table", "pause"]:
            for seat in NAMES:
                night.wait(seat, shows("Paused by the referee"))
            # The player to claim presses anyway, and is told why nothing happens.
            night.seats[self.second].type("\r")
            self.told(self.second, "The referee has paused the game")
        elif words == ["table", "resume"]:
            night.wait(self.second, lambda screen: "Paused" not in display(screen)
                       and "Claim a territory" in display(screen))
        elif words == ["table", "undo"]:
            assert out == (f"undid 1 action; game 2 (3 seats, defence_dice=3): claim, "
                           f"{NAMES[self.first]} to play\n"), out
            # The claim is withdrawn: the first seat is to claim again.
            night.wait(self.first, shows("Claim a territory"))


@pytest.mark.slow
def test_a_game_night_by_the_setup_checklist(night: GameNight) -> None:
    started = time.monotonic()
    block, toml = checklist(SETUP)
    players = Players(night)
    for line in commands(block):
        line = night.put(line)
        if line.startswith("risktable hub "):
            # No LED board or GPIO panel on a test machine.
            hub_toml = night.etc / "hub.toml"
            hub_toml.write_text(night.put(toml).replace("enabled = true", "enabled = false"))
        night.run(line)
        players.after(shlex.split(line)[1:3])
    assert players.done == STEPS
    assert night.hub is not None and night.hub.poll() is None, night.hub_tail()

    # The second game: no file touched, one referee command.
    assert night.risktable("games", "new", referee=True).startswith("game 3 started")
    night.opening_roll()
    games = {g["id"]: g for g in json.loads(night.risktable("games", "list", "--json"))}
    assert [games[g]["status"] for g in (1, 2)] == ["abandoned", "abandoned"]
    # games new --house set game 2's house rules in place of the configuration's; game 3
    # is the configuration's game again.
    assert games[2]["options"]["defence_dice"] == "3" and "second_set" not in games[2]["options"]
    assert games[3]["options"]["second_set"] == "forced" and "defence_dice" not in games[3][
        "options"]
    assert games[3]["current"] and games[3]["status"] == "running"

    # Every die rolled with r at a seat is counted for that seat's dice, once.
    stats = json.loads(night.risktable("dice", "stats", "--json"))["dice"]
    rolled: dict[int, int] = {}
    for row in stats:
        assert row["kind"] == "seat", row
        seat = int(row["die"].split()[1])
        rolled[seat] = rolled.get(seat, 0) + sum(row["faces"])
    assert rolled == night.rolls, (stats, night.rolls)

    # The report of the game the referee ran: a page of its own, naming every player by
    # the name the hub's configuration gives their seat.
    report = night.root / "game2.html"
    night.risktable("games", "report", "2", "--out", str(report))
    page = report.read_text()
    assert page.lower().startswith("<!doctype html>"), page[:200]
    assert all(name in page for name in NAMES.values()), page[:2000]
    print(f"game night: {time.monotonic() - started:.1f} s")
