"""End to end: battles at an emulated table resolved from tray photos. The hub (``[tray]
enabled``) and three seat firmwares under the MicroPython unix port (typed dice) on a real
mosquitto; the tray reads photos composed from real dice (red attack, white defence) and
publishes them; the hub passes each read to the rolling seats, where the attacker accepts
it and the defender corrects a die with the knob, or each problem the tray has is one
line on both seats and the roll is typed. ``dice stats`` counts the dice accepted as read
as camera dice of their colour, the others as typed in."""

from __future__ import annotations

import contextlib
import json
import logging
import re
import shutil
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from risktable.broker_address import BrokerAddress
from risktable.config import TableConfig, TrayConfig
from risktable.demo.seats import SeatProcess
from risktable.dice_camera.frames import FrameSourceError, open_source
from risktable.dice_camera.reader import DiceReader
from risktable.game_rules import rules_config
from risktable.journal import ActionMeta, Journal, journal_path
from risktable.rules.actions import Roll
from risktable.rules.state import ROLL
from risktable.service.table_service import TableService
from risktable.tray import colours
from risktable.tray.judge import Armed
from risktable.tray.service import TrayService
from tests.e2e.hub_driver import LedLog, start_service
from tests.support.cli import run
from tests.support.fault_proxy import DOWN, UP, FaultProxy
from tests.support.mosquitto import Mosquitto
from tests.support.virtual_table import mirror_table
from tests.support.waiting import value_within
from tests.tray import photos

SEATS = 3
WAIT = 30.0
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "dice_photos"
ATTACK, DEFENCE = [6, 5, 3], [4, 2]  # the faces laid in the tray, as many as are armed


@dataclass
class Battle:
    service: TableService
    seats: dict[int, SeatProcess]
    attacker: int
    defender: int
    attack: int  # how many dice
    defence: int
    roll: int  # the attacker's roll number
    broker: BrokerAddress
    table: str
    data_dir: Path
    tmp: Path
    calibration: Path


def _game_at_first_battle(data_dir: Path, table: str) -> None:
    """Journal a game of the default rules up to its first battle with both sides armed
    (played by autopilots), so that the hub starts there."""
    config = rules_config(TableConfig().rules, SEATS)
    mirror, pilot = mirror_table(config, seed=31)
    for _ in range(5000):
        armed = [s for s in mirror.seats if mirror.standing_commands(s)]
        if mirror.state.phase == ROLL and len(armed) == 2:
            break
        step = pilot.next_event()
        assert step is not None
        assert mirror.handle(*step).error is None
    else:
        raise AssertionError("no battle within 5000 inputs")
    with Journal(journal_path(data_dir)) as journal:
        game = journal.create_game(config, table)
        journal.set_current_game(table, game)
        journal.append_all(game, [(a, ActionMeta("seat")) for a in mirror.log])


def _calibrate(capsys: pytest.CaptureFixture[str], tmp: Path) -> Path:
    folder = tmp / "calibration"
    photos.write(folder, "1.png", [(6, "red"), (3, "red"), (1, "red")], seed=3)
    photos.write(folder, "2.png", [(5, "white"), (2, "white")], seed=4)
    code, _, err = run(capsys, "tray", "calibrate", "--source", str(folder), "--data-dir",
                       str(tmp / "tray"))
    assert code == 0, err
    return colours.colours_path(tmp / "tray")


@contextlib.contextmanager
def _battle(mosquitto: Mosquitto, micropython: str, tmp_path: Path,
            capsys: pytest.CaptureFixture[str],
            proxy: FaultProxy | None = None) -> Iterator[Battle]:
    """The table at its first battle, both rolls armed and shown; with ``proxy`` (to
    ``mosquitto``) the attacker's seat reaches the broker through it."""
    table = "traybattle"
    broker = BrokerAddress(mosquitto.host, mosquitto.port)
    data_dir = tmp_path / "hub"
    data_dir.mkdir()
    _game_at_first_battle(data_dir, table)
    calibration = _calibrate(capsys, tmp_path)
    service = start_service(broker.host, broker.port, table, SEATS, data_dir, LedLog(),
                            tray=TrayConfig(enabled=True))
    player = service.inspect(lambda s: s.seats[s.state.player])
    # Behind the proxy, a keepalive longer than any hold of the test: the broker keeps
    # a seat whose packets wait in the path.
    seats = {n: SeatProcess(micropython, n, table,
                            BrokerAddress(proxy.host, proxy.port) if proxy and n == player
                            else broker, tmp_path, keepalive=60 if proxy and n == player else 5,
                            extra_config={"dice": "manual"}) for n in range(1, SEATS + 1)}
    try:
        for seat in seats.values():
            seat.history = []
            seat.start()
        armed = service.inspect(lambda s: [c for n in s.seats for c in s.standing_commands(n)])
        attacker = service.inspect(lambda s: s.seats[s.state.player])
        ((_, attack),) = [c for c in armed if c[0] == attacker]
        ((defender, defence),) = [c for c in armed if c[0] != attacker]
        for armed_seat, command in armed:
            wanted = [command["roll"], command["count"]]

            def shows_armed(out: dict[str, Any], w: list[int] = wanted) -> bool:
                return out.get("armed") == w

            assert seats[armed_seat].wait_until(shows_armed, WAIT)
        yield Battle(service, seats, attacker, defender, attack["count"], defence["count"],
                     attack["roll"], broker, table, data_dir, tmp_path, calibration)
    finally:
        for seat in seats.values():
            seat.stop()
        service.stop()


@pytest.fixture
def battle(fresh_mosquitto: Mosquitto, micropython: str, tmp_path: Path,
           capsys: pytest.CaptureFixture[str]) -> Iterator[Battle]:
    with _battle(fresh_mosquitto, micropython, tmp_path, capsys) as b:
        yield b


def _tray(b: Battle, source: str) -> None:
    """The tray reads ``source`` once it has heard the armed battle."""
    tray = TrayService(b.broker, b.table, DiceReader().read, colours.load(b.calibration))
    tray.connect()
    try:
        assert tray.wait_armed(lambda a: a.roll == b.roll, WAIT), tray.armed
        # A source that gives no frames is published as no_camera: the seats show it.
        with contextlib.suppress(FrameSourceError):
            tray.run(lambda: open_source(source))
    finally:
        tray.close()


def _shows(seat: SeatProcess, words: str) -> bool:
    """Whether the seat's display showed ``words`` (word-wrapped over its lines)."""
    def found(_: dict[str, Any]) -> bool:
        return any(words.lower() in " ".join(" ".join(h["oled"]).split()).lower()
                   for h in list(seat.history or []))
    return seat.wait_until(found, WAIT)


def _entry(seat: SeatProcess, count: int) -> tuple[int, list[int]]:
    """The tray's read as the seat shows it: the die under the cursor and the faces."""
    def prefilled(out: dict[str, Any]) -> bool:
        oled = out.get("oled") or [""]
        return oled[0].startswith("Tray: die ") and oled[0].endswith(f" of {count}") \
            and len(oled) > 1 and len(oled[1].split()) == count
    assert seat.wait_until(prefilled, WAIT), seat.outputs
    title, faces = seat.outputs["oled"][:2]
    return int(title.split()[2]) - 1, [int(f) for f in faces.split()]


def _enter(seat: SeatProcess, at: int, shown: list[int], wanted: list[int]) -> None:
    """Set every die that differs from ``wanted``, moving the cursor with the knob's
    press, and send with Confirm (one press when nothing differs)."""
    n = len(shown)
    for k in range(n):
        i = (at + k) % n
        if shown[i] != wanted[i]:
            seat.send({"encoder": wanted[i] - shown[i]})  # from 0 (unknown) too
        if any(shown[(at + j) % n] != wanted[(at + j) % n] for j in range(k + 1, n)):
            seat.send({"button": "encoder"})
    seat.send({"button": "confirm"})


def _filled(shown: list[int], laid: list[int]) -> list[int]:
    # The read's unknown dice (0) set to the laid faces the sure reads did not take.
    left = list((Counter(laid) - Counter(f for f in shown if f)).elements())
    return [f if f else left.pop(0) for f in shown]


def _rolled(service: TableService) -> Roll:
    rolls = value_within("the battle resolved", lambda: [
        a for a in service.inspect(lambda s: list(s.log)) if isinstance(a, Roll)], WAIT)
    return rolls[-1]


def _taken(service: TableService, seat: int) -> None:
    # Until the hub took the seat's roll: nothing is armed at it any more.
    value_within(f"seat {seat}'s roll taken",
                 lambda: not service.inspect(lambda s: s.standing_commands(seat)), WAIT)


def _stats(capsys: pytest.CaptureFixture[str], data_dir: Path) -> dict[str, int]:
    code, out, err = run(capsys, "dice", "stats", "--json", "--data-dir", str(data_dir))
    assert code == 0, err
    return {d["die"]: d["rolls"] for d in json.loads(out)["dice"]}


def test_the_attacker_accepts_the_read_and_the_defender_corrects_a_die(
        battle: Battle, capsys: pytest.CaptureFixture[str]) -> None:
    b = battle
    attack, defence = ATTACK[:b.attack], DEFENCE[:b.defence]
    folder = b.tmp / "rolls"
    photos.write(folder, "battle.png", [(v, "red") for v in attack] +
                 [(v, "white") for v in defence], seed=7)
    _tray(b, str(folder))
    att, dfn = b.seats[b.attacker], b.seats[b.defender]
    at, shown_attack = _entry(att, b.attack)
    # Every sure read is a laid face, largest first; an unsure die is a "?" to ask.
    assert not Counter(f for f in shown_attack if f) - Counter(attack)
    assert shown_attack == sorted(shown_attack, key=lambda f: -f if f else 7)
    attack_faces = _filled(shown_attack, attack)
    _enter(att, at, shown_attack, attack_faces)
    at, shown_defence = _entry(dfn, b.defence)
    defence_faces = _filled(shown_defence, defence)
    defence_faces[0] = defence_faces[0] % 6 + 1  # the player sees another face on die 1
    _enter(dfn, at, shown_defence, defence_faces)
    roll = _rolled(b.service)
    assert sorted(roll.attack) == sorted(attack_faces)
    assert sorted(roll.defend) == sorted(defence_faces)
    # Camera dice: the faces accepted as the tray read them, per colour; the rest typed.
    stats = _stats(capsys, b.data_dir)
    accepted_red = sum((Counter(attack_faces) & Counter(f for f in shown_attack if f)).values())
    accepted_white = sum((Counter(defence_faces) & Counter(f for f in shown_defence if f))
                         .values())
    assert stats.get("cam-red", 0) == accepted_red >= 1
    assert stats.get("cam-white", 0) == accepted_white
    typed = sum(n for die, n in stats.items() if die.endswith((" m1", " m2", " m3")))
    assert typed == b.attack + b.defence - accepted_red - accepted_white >= 1
    # The game report counts them the same way, with their kind.
    game = b.service.game_id
    code, out, err = run(capsys, "games", "report", str(game), "--json", "--data-dir",
                         str(b.data_dir))
    assert code == 0, err
    reported = {d["die"]: d for d in json.loads(out)["dice"]}
    assert reported["cam-red"]["kind"] == "camera"
    assert reported["cam-red"]["rolls"] == accepted_red


def test_a_read_accepted_while_the_game_is_paused_is_asked_again(battle: Battle) -> None:
    """The attacker accepts the tray's read while the referee has paused the game: the
    seat says why it was refused, then shows the same read again (the hub disarms the
    roll and arms it again with the read), and once the game resumes one press of the
    same entry rolls it."""
    b = battle
    attack = ATTACK[:b.attack]
    folder = b.tmp / "paused"
    photos.write(folder, "attack.png", [(v, "red") for v in attack], seed=7)
    _tray(b, str(folder))
    att = b.seats[b.attacker]
    at, shown = _entry(att, b.attack)
    faces = _filled(shown, attack)
    b.service.set_paused(True)
    _enter(att, at, shown, faces)
    assert _shows(att, "The referee has paused the game")
    again = len(att.history or [])
    assert att.wait_until(lambda _: any(
        (h["oled"] or [""])[0].startswith("Tray: die ") for h in (att.history or [])[again:]),
        WAIT), att.history
    at, shown_again = _entry(att, b.attack)
    assert shown_again == shown
    b.service.set_paused(False)
    _enter(att, at, shown_again, faces)
    for _ in range(b.defence):
        b.seats[b.defender].send({"encoder": 2})  # 1 turns to 3
        b.seats[b.defender].send({"button": "confirm"})
    roll = _rolled(b.service)
    assert sorted(roll.attack) == sorted(faces) and roll.defend == (3,) * b.defence


def test_each_problem_is_one_line_on_both_seats_and_the_roll_can_be_typed(
        battle: Battle) -> None:
    b = battle
    folder = b.tmp / "problems"
    photos.write_dark(folder, "1-dark.png")
    photos.write(folder, "2-too-many.png", [(4, "red")] * (b.attack + 1), seed=8)
    shutil.copy(FIXTURES / "IMG_20191208_111816.jpg", folder / "3-other-colours.jpg")
    _tray(b, str(folder))
    _tray(b, "camera:57")
    for seat in (b.attacker, b.defender):
        for line in ("The tray is too dark to read: enter your dice",
                     "Too many dice in the tray: roll again",
                     "Dice of another colour in the tray: roll again",
                     "The tray has no camera: enter your dice"):
            assert _shows(b.seats[seat], line), (seat, line, b.seats[seat].history)
    # The roll is typed as before the tray: the dice one by one with the knob.
    for seat, count in ((b.attacker, b.attack), (b.defender, b.defence)):
        for _ in range(count):
            b.seats[seat].send({"encoder": 2})  # 1 turns to 3
            b.seats[seat].send({"button": "confirm"})
    roll = _rolled(b.service)
    assert roll.attack == (3,) * b.attack and roll.defend == (3,) * b.defence


def test_a_read_that_reaches_the_seat_after_its_roll_was_typed_is_dropped(
        fresh_mosquitto: Mosquitto, micropython: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    """A player types the roll while the tray reads it: the hub takes the tray's read
    before the seat's dice event (still on its way) and sends the seat its prefilled
    entry, which reaches the seat after the roll left it. The seat keeps its entered
    roll: the player's next input is the hub's, not a die of an entry opened again (its
    Confirm would send the roll twice, refused, and a knob turn or Back would be lost)."""
    caplog.set_level(logging.INFO, logger="risktable.service.tray_desk")
    with FaultProxy(fresh_mosquitto.host, fresh_mosquitto.port) as proxy, \
            _battle(fresh_mosquitto, micropython, tmp_path, capsys, proxy) as b:
        att = b.seats[b.attacker]
        # What the attacker's seat sends waits in the path; what the hub sends reaches it.
        proxy.hold(UP)
        first = len(att.verdicts)
        for _ in range(b.attack):
            att.send({"encoder": 2})  # 1 turns to 3
            att.send({"button": "confirm"})
        verdict = att.wait_verdict(first, WAIT)
        assert verdict is not None and verdict[0] == "numbered" and verdict[1][1] == "dice"
        folder = b.tmp / "late"
        photos.write(folder, "1-read.png", [(v, "red") for v in ATTACK[:b.attack]], seed=7)
        photos.write(folder, "2-too-many.png", [(4, "red")] * (b.attack + 1), seed=8)
        _tray(b, str(folder))
        # The second read's line shows once the hub has taken both: it sent the first to
        # the seat as its prefilled entry, ahead of the line (one hub, in order), and
        # keeps it no more (a resync would bring back a read the tray has taken back).
        assert _shows(att, "Too many dice in the tray: roll again")
        assert any(re.match(rf"tray: read \d+ to seat {b.attacker} ", r.getMessage())
                   for r in caplog.records), caplog.text
        assert b.service.inspect(lambda _s: b.service.tray is not None and
                                 b.service.tray.prefilled(b.attacker, b.roll) is None)
        turned = len(att.verdicts)
        att.send({"encoder": 1})
        assert att.wait_verdict(turned, WAIT) == ("numbered", [verdict[1][0] + 1, "encoder"])
        shown = [h["oled"][0] for h in att.history or [] if h["oled"]]
        entered = len(shown) - 1 - shown[::-1].index("Entered")
        assert not [t for t in shown[entered:] if t.startswith("Tray: die")], shown
        proxy.hold(UP, False)
        for _ in range(b.defence):
            b.seats[b.defender].send({"encoder": 2})
            b.seats[b.defender].send({"button": "confirm"})
        roll = _rolled(b.service)
        assert roll.attack == (3,) * b.attack and roll.defend == (3,) * b.defence
        assert [v for k, v in att.verdicts if k == "numbered" and v[1] == "dice"] == [
            verdict[1]]


def test_a_read_of_the_defence_made_before_the_tray_heard_the_attack_is_taken(
        battle: Battle) -> None:
    """The attacker's roll is in, and the defender rolls before the tray has heard so
    (its tray/armed still the battle with both sides to roll): the read answers the same
    battle, and the defender's seat shows it to accept."""
    b = battle
    att, dfn = b.seats[b.attacker], b.seats[b.defender]
    folder = b.tmp / "defence"
    defence = DEFENCE[:b.defence]
    photos.write(folder, "defence.png", [(v, "white") for v in defence], seed=9)
    with FaultProxy(b.broker.host, b.broker.port) as proxy:
        tray = TrayService(BrokerAddress(proxy.host, proxy.port), b.table, DiceReader().read,
                           colours.load(b.calibration))
        tray.connect()
        reading: threading.Thread | None = None
        try:
            assert tray.wait_armed(Armed(b.roll, b.attack, b.defence).__eq__, WAIT), tray.armed
            proxy.hold(DOWN)  # the tray hears nothing more from the hub
            for _ in range(b.attack):
                att.send({"encoder": 2})  # 1 turns to 3
                att.send({"button": "confirm"})
            _taken(b.service, b.attacker)
            reading = threading.Thread(target=tray.run,
                                       args=(lambda: open_source(str(folder)),))
            reading.start()
            at, shown = _entry(dfn, b.defence)
            assert not Counter(f for f in shown if f) - Counter(defence)
        finally:
            proxy.hold(DOWN, False)
            if reading is not None:
                reading.join(WAIT)
            tray.close()
    defence_faces = _filled(shown, defence)
    _enter(dfn, at, shown, defence_faces)
    roll = _rolled(b.service)
    assert roll.attack == (3,) * b.attack
    assert sorted(roll.defend) == sorted(defence_faces)


def test_the_tray_hears_the_battle_armed_under_the_attackers_number_to_its_end(
        battle: Battle) -> None:
    """What the tray hears armed (``TrayService.wait_armed``, which the demo's bots wait
    on before they lay a photo: the tray reads one at once, and a read made before it
    heard the roll armed names the roll before): the battle by the attacker's roll
    number, with the dice still to roll, until both sides are in."""
    b = battle
    tray = TrayService(b.broker, b.table, DiceReader().read, colours.load(b.calibration))
    tray.connect()
    try:
        assert tray.wait_armed(Armed(b.roll, b.attack, b.defence).__eq__, WAIT), tray.armed
        for _ in range(b.attack):
            b.seats[b.attacker].send({"encoder": 2})
            b.seats[b.attacker].send({"button": "confirm"})
        assert tray.wait_armed(Armed(b.roll, 0, b.defence).__eq__, WAIT), tray.armed
        for _ in range(b.defence):
            b.seats[b.defender].send({"button": "confirm"})
        assert tray.wait_armed(Armed().__eq__, WAIT), tray.armed
    finally:
        tray.close()


def test_the_demos_bots_roll_through_the_tray(battle: Battle) -> None:
    """``risktable demo --tray``: a bot's battle roll becomes a composed photo, read by
    the real reader and tray service, and made at the seat through its accept-or-correct
    step; the photo and its read are kept for the board page."""
    from risktable.demo.tray import DemoTray
    from risktable.tray import LAST_PHOTO, LAST_READ

    b = battle
    tray = DemoTray(b.service, b.broker, b.table, b.seats, seed=5, timeout=WAIT).start()
    try:
        rolls = {b.attacker: (b.roll, [6, 1, 4][:b.attack])}
        defence_roll = b.service.inspect(
            lambda s: s.standing_commands(b.defender)[0][1]["roll"])
        rolls[b.defender] = (defence_roll, [5, 5][:b.defence])
        for seat, (number, faces) in rolls.items():
            tray.enter(seat, {"kind": "dice", "roll": number, "dice": [
                {"id": f"m{i + 1}", "face": f, "state": "settled"} for i, f in enumerate(faces)]})
        rolled = _rolled(b.service)
    finally:
        tray.stop()
    assert sorted(rolled.attack) == sorted(rolls[b.attacker][1])
    assert sorted(rolled.defend) == sorted(rolls[b.defender][1])
    assert tray.photos == 2
    kept = json.loads((b.data_dir / LAST_READ).read_text())
    assert kept["t"] == "tray_roll" and kept["seq"] == 2
    assert (b.data_dir / LAST_PHOTO).read_bytes()[:2] == b"\xff\xd8"  # a JPEG


def test_the_persons_roll_lays_their_dice_in_the_demo_tray(battle: Battle) -> None:
    """``risktable demo --tray --play``: the person's r lays a photo of their armed battle
    dice, rolled at random, in the tray; the hub fills its read into their seat's entry,
    which they accept or correct as at a real tray. Once their roll is in, r lays nothing
    (and goes to the seat as its Roll button)."""
    from risktable.demo.keyboard import seat_panel
    from risktable.demo.tray import DemoTray

    b = battle
    seat = b.seats[b.attacker]
    # The person's panel says so while their battle roll is armed.
    armed = {"armed": [b.roll, b.attack]}
    panel = b.service.inspect(lambda s: seat_panel(s, b.attacker, armed, typed=True, tray=True))
    dice = "die" if b.attack == 1 else "dice"
    assert (f"  {b.attack} {dice} to roll into the tray (press r) or enter (<- -> set a die, "
            "Enter sends)") in panel.splitlines()
    tray = DemoTray(b.service, b.broker, b.table, b.seats, seed=5, timeout=WAIT).start()
    try:
        assert tray.roll(b.attacker)
        at, shown = _entry(seat, b.attack)
        assert tray.photos == 1
        _enter(seat, at, shown, [f or 1 for f in shown])  # a die read unsure: typed as 1
        _taken(b.service, b.attacker)
        assert not tray.roll(b.attacker)
        assert tray.photos == 1
    finally:
        tray.stop()


def test_the_roll_button_of_a_typed_seat_says_how_to_give_its_dice(battle: Battle) -> None:
    """A seat with no dice of its own (a tray table's) asked for a battle roll: its Roll
    button is answered with how to give the dice (into the tray, or entered with the
    knob), not with "waiting for the dice" as if another seat were to roll."""
    b = battle
    att = b.seats[b.attacker]
    att.send({"button": "roll"})
    assert _shows(att, "Roll your dice into the tray, or enter them: turn, press Confirm")
