"""A game night, end to end, by the setup checklist.

The test follows the checklist of docs/setup.md ("from an empty table to the first game")
line by line, as written, with a scratch folder for ``/etc/risktable`` and
``/var/lib/risktable`` and free loopback ports for 1883 and 1884: `risktable broker
config`, the table broker and the guest broker as real mosquitto processes, the hub as
``python -m risktable hub --config hub.toml`` (the checklist's TOML block; no LED board
or GPIO panel here), the seats' configurations from `risktable seat config`, each seat's
firmware under ``micropython`` on that configuration, as `risktable seat play` runs it
(the keyboard panel is left out: the test types the board's input lines). Between the
lines the seats do what people would: seat 1 taps every card of the deck to enroll it,
the seats roll their dice for the opening roll (faces the test chooses, typed into each
seat's emulated dice) and claim territories, one presses when it is not its turn, and
the referee's undo takes a claim back. Then a second game starts with `games new`, no
file touched, and `dice stats` counts exactly the faces typed into each seat's dice.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from itertools import cycle
from pathlib import Path
from typing import Any

import pytest

from risktable.demo.seats import SeatProcess
from risktable.processes import end_process
from risktable.rules import classic_board
from tests.support.mosquitto import Mosquitto, free_port
from tests.support.tools import ROOT, mosquitto_binary, subprocess_env
from tests.support.waiting import wait_until

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


def uid(card: int) -> str:
    return f"04{card:02X}5EA7C0FFEE"


def shows(words: str) -> Callable[[dict[str, Any]], bool]:
    """Whether a seat's display holds ``words`` (its lines joined by " | ")."""
    return lambda outputs: words in " | ".join(outputs.get("oled") or [])


class GameNight:
    """The table's processes, and what the seats were given, as the checklist runs."""

    def __init__(self, micropython: str, root: Path) -> None:
        self.micropython = micropython
        self.root = root
        self.etc = root / "etc"
        self.etc.mkdir()
        self.port, self.guest_port = free_port(), free_port()
        self.brokers: list[Mosquitto] = []
        self.hub: subprocess.Popen[bytes] | None = None
        self.hub_log = root / "hub.log"
        self.seats: dict[int, SeatProcess] = {}
        self.faces: dict[int, list[int]] = {}  # seat -> faces typed into its dice
        self.rolled: set[tuple[int, int]] = set()  # (seat, roll) rolled in this game
        self.out = ""  # the last command's standard output
        self.faces_to_roll = cycle([5, 5, 2, 6, 3, 4, 1, 6, 2, 5, 4, 1])

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
            config = Path(argv[argv.index("--config") + 1])
            self.seats[seat] = SeatProcess.of_file(self.micropython, seat, config).start()
            assert self.seats[seat].wait_until(lambda o: o.get("hub") == "up", WAIT), \
                self.tail(seat)
        else:
            self.out = self.shell(line)

    def shell(self, line: str) -> str:
        env = subprocess_env(PATH=f"{Path(sys.executable).parent}:/usr/bin:/bin")
        done = subprocess.run(["bash", "-c", line], cwd=self.root, env=env,
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

    def tail(self, seat: int) -> str:
        process = self.seats[seat]
        return f"seat {seat}: {process.outputs.get('oled')} {list(process.stderr_tail)}"

    def wait(self, seat: int, predicate: Callable[[dict[str, Any]], bool]) -> None:
        assert self.seats[seat].wait_until(predicate, WAIT), (self.tail(seat), self.hub_tail())

    # ---- what the people at the table do

    def enroll(self, seat: int) -> None:
        """Tap every card of the 1993 deck at ``seat``, each confirmed as the display asks."""
        size = classic_board().deck_size
        process = self.seats[seat]
        for card in range(size):
            self.wait(seat, shows(f"card {card + 1} of {size}"))
            if card == 1:
                # The other seats follow the progress, the player named.
                self.wait(2, shows(f"{NAMES[seat]} enrolls cards | 1 of {size}"))
            process.send({"card": uid(card)})
            self.wait(seat, shows("Confirm"))
            process.send({"button": "confirm"})
        deck = self.root / "data" / "cards.json"
        self.wait(seat, lambda _: deck.exists()
                  and len(json.loads(deck.read_text())["cards"]) == size)

    def claimer(self) -> int | None:
        for seat, process in self.seats.items():
            if "Claim a territory" in " | ".join(process.outputs.get("oled") or []):
                return seat
        return None

    def opening_roll(self) -> int:
        """Roll each seat's die when the hub arms it, until a seat is to claim; that seat."""
        # A new game numbers its rolls afresh.
        self.rolled.clear()
        deadline = time.monotonic() + WAIT
        # Until a seat is to claim, once every seat rolled in this game (the screens may
        # still show the game before for a moment).
        while (first := self.claimer()) is None or {s for s, _ in self.rolled} != set(
                self.seats):
            assert time.monotonic() < deadline, [self.tail(s) for s in self.seats]
            for seat, process in self.seats.items():
                armed = process.outputs.get("armed")
                if not armed or not armed[1] or (seat, armed[0]) in self.rolled:
                    continue
                self.rolled.add((seat, armed[0]))
                faces = [next(self.faces_to_roll) for _ in range(armed[1])]
                process.send({"dice": faces})
                self.faces.setdefault(seat, []).extend(faces)
            time.sleep(0.05)
        return first

    def claim(self, seat: int) -> int:
        """``seat`` claims the territory under its cursor; the next seat to claim."""
        self.seats[seat].send({"button": "confirm"})
        deadline = time.monotonic() + WAIT
        while (after := self.claimer()) in (None, seat):
            assert time.monotonic() < deadline, [self.tail(s) for s in self.seats]
            time.sleep(0.05)
        assert after is not None
        return after

    def close(self) -> None:
        for process in self.seats.values():
            process.stop()
        if self.hub is not None:
            end_process(self.hub)
        for broker in reversed(self.brokers):
            broker.stop()


@pytest.fixture
def night(micropython: str, tmp_path: Path) -> Iterator[GameNight]:
    table = GameNight(micropython, tmp_path)
    try:
        yield table
    finally:
        table.close()


def refusal_shown(process: SeatProcess, detail: str) -> bool:
    """Whether the seat's display tells its player why the hub refused (the firmware
    shows the reason for a few seconds, word-wrapped over the display's lines)."""
    return detail.lower() in " ".join(process.outputs.get("oled") or []).lower()


class Players:
    """What the people at the table do after each checklist line."""

    def __init__(self, night: GameNight) -> None:
        self.night = night
        self.first = self.second = 0  # the first two seats to claim in game 2
        self.done: list[str] = []  # the steps the players took part in, in order

    def told(self, seat: int, detail: str) -> None:
        process = self.night.seats[seat]
        wait_until(lambda: refusal_shown(process, detail), WAIT)

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
            night.seats[self.first].send({"button": "confirm"})
            self.told(self.first, f"{NAMES[self.second]} is playing: wait for your turn")
        elif words == ["table", "status"]:
            assert out.startswith("game 2 (3 seats, defence_dice=3): claim, "
                                  f"{NAMES[self.second]} to play"), out
        elif words == ["table", "pause"]:
            for seat in NAMES:
                night.wait(seat, shows("Paused by the referee"))
            # The player to claim presses anyway, and is told why nothing happens.
            night.seats[self.second].send({"button": "confirm"})
            self.told(self.second, "The referee has paused the game")
        elif words == ["table", "resume"]:
            night.wait(self.second, lambda o: "Paused" not in " ".join(o.get("oled") or [])
                       and "Claim a territory" in " ".join(o.get("oled") or []))
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

    stats = json.loads(night.risktable("dice", "stats", "--json"))["dice"]
    counts = {row["die"]: row["faces"] for row in stats}
    assert {row["kind"] for row in stats} == {"seat"}
    assert counts == {f"seat {seat} e1": [faces.count(f) for f in range(1, 7)]
                      for seat, faces in night.faces.items()}, (stats, night.faces)
    print(f"game night: {time.monotonic() - started:.1f} s")
