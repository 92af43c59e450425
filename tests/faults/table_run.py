"""A table of real seat firmwares and the real hub, played from a fixed script.

:func:`record` lets the demo's bots (``risktable.demo.pilot.SeatPilot``) play
the first moves of a game through the seat firmwares under MicroPython and the
hub over mosquitto, and keeps every input line they typed: the script, with the
hash of the journal's ``actions`` before each line. :func:`replay` plays that
script again on a new table, line by line, without re-planning anything, while
one seat's link to the broker goes through a
:class:`~tests.support.fault_proxy.FaultProxy` that may fail for a while. The
player at that seat keeps pressing through the fault (the script's next lines
of that seat), the others wait for the game to come back to them; the replay
goes on until that seat has typed a few more lines after the fault, and the run
reports what the journal holds: the hash of its ``actions`` table (to compare
with the reference's at the same line) and each seat's journaled sequence
numbers.
"""

from __future__ import annotations

import ast
import hashlib
import itertools
import sqlite3
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from riskproto.messages import ProtocolError
from risktable.broker_address import BrokerAddress
from risktable.config import BrokerConfig, HubConfig, LedConfig, TableConfig
from risktable.demo.pilot import SeatPilot, demo_card_uids
from risktable.demo.seats import SeatProcess
from risktable.game_rules import rules_config
from risktable.journal import journal_path
from risktable.paths import firmware_dir
from risktable.service.table_service import TableService
from tests.support.fault_proxy import FaultProxy

RULES = "classic"
PLAYERS = 3
SEED = 3
INPUT_KINDS = ("button", "encoder", "card", "dice")
STEP_TIMEOUT = 30.0  # an answer to a line typed outside a fault
HEAL_TIMEOUT = 90.0  # the answers to the lines typed during a fault, after it healed
# A replay ends once the faulted seat has typed this many lines after its fault's: its
# link works again, its sequence goes on, and nothing later involves the fault.
AFTER_FAULT = 3
RECONNECT_MAX_MS = 4000  # the proxied seat's longest wait between connection attempts
# Nothing here watches the rings or measures latency, and a test runs thirty seats at
# once: a ring frame a second (not 25) and a socket read every 20 ms (not every 2 ms)
# spare the machine most of an idle seat's wake-ups.
FRAME_MS = 1000
POLL_MS = 20
# The seat's own clocks (firmware/seat/config.py), which a fault may run shorter.
CLOCKS = ("retry_ms", "retry_max_ms", "hub_wait_ms")


def _read_firmware_defaults() -> dict[str, dict[str, Any]]:
    tree = ast.parse((firmware_dir() / "seat" / "config.py").read_text())
    return {ast.unparse(node.targets[0]): dict(ast.literal_eval(node.value))
            for node in tree.body
            if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]).endswith(
                "DEFAULTS")}


# Read once, at import: the tables run in threads, and CPython 3.11 keeps the AST
# constructor's recursion depth in state its threads share (CPython issue gh-106905):
# tables starting under load, each parsing this file, failed with "AST constructor
# recursion depth mismatch".
_FIRMWARE_DEFAULTS = _read_firmware_defaults()


def firmware_defaults(name: str = "_DEFAULTS") -> dict[str, Any]:
    """The seat configuration's defaults as the firmware has them: ``name`` in
    firmware/seat/config.py (``_DEFAULTS``, or ``_BROKER_DEFAULTS`` for its broker)."""
    if name not in _FIRMWARE_DEFAULTS:
        raise AssertionError(f"firmware/seat/config.py has no {name}")
    return dict(_FIRMWARE_DEFAULTS[name])


@dataclass(frozen=True)
class Step:
    """One input line typed into a seat's emulated board; a dice line also names
    the roll the seat must show armed before it (as a person waits for the prompt)."""

    seat: int
    line: dict[str, Any]
    armed: tuple[int, int] | None = None


@dataclass(frozen=True)
class Fault:
    """Seat ``seat``'s path black-holed for ``seconds`` from just before script line
    ``start``; the player types that seat's lines ``start``..``start+presses-1``
    while it lasts, evenly spread. The seat runs with MQTT keepalive ``keepalive`` and
    its own clocks (resends, the "waiting for the hub" timer, reconnect backoff)
    ``clock`` times shorter than the firmware's defaults."""

    seat: int
    start: int
    presses: int
    seconds: float
    keepalive: int = 2
    clock: float = 1.0


@dataclass
class Run:
    """What a table run left: the journal's ``actions`` hash and, per seat, its
    journaled ``(boot, seq)`` pairs in journal order, after the script's first
    ``lines`` lines; a recorded run also has the hash before each line (``hashes``,
    and after the last)."""

    actions_hash: str
    seqs: dict[int, list[tuple[int | None, int]]]
    lines: int = 0
    hashes: list[str] = field(default_factory=list)
    online_after_fault: bool = True
    answers: Counter[int] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    noticed_s: float | None = None  # fault start to the hub seeing the seat offline
    answered_s: float | None = None  # heal to every line typed in the fault answered
    online_s: float | None = None  # heal to the seat online at the hub again


def actions_hash(data_dir: Path) -> str:
    """SHA-256 over the live actions of the table's game in order (index, action,
    actor, origin, seat) and their dice; boots and times differ between runs."""
    db = sqlite3.connect(f"file:{journal_path(data_dir)}?mode=ro", uri=True)
    try:
        digest = hashlib.sha256()
        for row in db.execute(
            "SELECT a.idx, a.action, a.actor, a.origin, a.seat,"
            " (SELECT group_concat(d.die || ':' || d.face, ',') FROM"
            "  (SELECT * FROM dice WHERE action_id = a.id ORDER BY position) d)"
            " FROM actions a WHERE a.undo_id IS NULL ORDER BY a.idx"
        ):
            digest.update(repr(row).encode())
        return digest.hexdigest()
    finally:
        db.close()


def journaled_seqs(data_dir: Path) -> dict[int, list[tuple[int | None, int]]]:
    """Every seat's journaled inputs as ``(boot, seq)``, in the order they were applied."""
    db = sqlite3.connect(f"file:{journal_path(data_dir)}?mode=ro", uri=True)
    try:
        seqs: dict[int, list[tuple[int | None, int]]] = {}
        for seat, boot, seq in db.execute("SELECT seat, boot, seq FROM inputs ORDER BY id"):
            seqs.setdefault(int(seat), []).append((boot, int(seq)))
        return seqs
    finally:
        db.close()


def gaps(seqs: list[tuple[int | None, int]]) -> list[str]:
    """Where a seat's journaled sequence numbers fail to go up by exactly one (per boot)."""
    found = []
    for (boot_a, a), (boot_b, b) in itertools.pairwise(seqs):
        if boot_a == boot_b and b != a + 1:
            found.append(f"{a} then {b} (boot {boot_a})")
    return found


def differences(result: Run, reference: Run) -> list[str]:
    """What a replay did otherwise than the reference run: its actions after as many
    lines, each seat's journal order, refusals, the faulted seat back online. Empty
    when it held."""
    wrong = []
    if result.actions_hash != reference.hashes[result.lines]:
        wrong.append(f"the actions after {result.lines} lines differ from the reference run's")
    for seat, seqs in result.seqs.items():
        if gaps(seqs):
            wrong.append(f"seat {seat} journal order {gaps(seqs)}")
    if result.errors:
        wrong.append(f"refused {result.errors[:3]}")
    if not result.online_after_fault:
        wrong.append("the faulted seat not back online at the hub")
    return wrong



class Answers:
    """Counts the hub's answers to each seat's input events (``on_input``)."""

    def __init__(self) -> None:
        self.count: Counter[int] = Counter()
        self.errors: list[str] = []
        self._cond = threading.Condition()

    def __call__(self, seat: int, msg: dict[str, Any], error: ProtocolError | None) -> None:
        if msg.get("kind") not in INPUT_KINDS:
            return
        with self._cond:
            self.count[seat] += 1
            if error is not None:
                self.errors.append(f"seat {seat} seq {msg.get('seq')}: {error.message}")
            self._cond.notify_all()

    def wait(self, seat: int, count: int, timeout: float) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: self.count[seat] >= count, timeout)


class Table:
    """A hub (``TableService`` in this process) and its seat firmwares; the seat
    ``proxied`` (if any) reaches the broker through a fault proxy."""

    def __init__(self, broker: BrokerAddress, micropython: str, workdir: Path, table: str,
                 proxied: int | None = None, keepalive: int = 10, clock: float = 1.0) -> None:
        self.rules = rules_config(RULES, PLAYERS)
        self.cards = demo_card_uids(self.rules.board, self.rules.options.deck)
        self.data_dir = workdir / "hub"
        self.answers = Answers()
        self.hooks: list[Any] = []
        self.service = TableService(
            HubConfig(broker=BrokerConfig(broker), table=TableConfig(id=table, seats=PLAYERS,
                                                                     rules=RULES),
                      leds=LedConfig(enabled=False), panel_enabled=False,
                      data_dir=self.data_dir),
            rules=self.rules, card_uids=self.cards, seed=SEED, paused=True,
            on_input=self._on_input)
        self.proxy = FaultProxy(broker.host, broker.port) if proxied is not None else None
        self.seats: dict[int, SeatProcess] = {}
        defaults = firmware_defaults()
        backoff = firmware_defaults("_BROKER_DEFAULTS")["backoff_ms"]
        for seat in range(1, PLAYERS + 1):
            extra: dict[str, Any] = {"frame_ms": FRAME_MS, "broker": {
                "host": broker.host, "port": broker.port, "keepalive": keepalive,
                "poll_ms": POLL_MS}}
            if seat == proxied and self.proxy is not None:
                # Reconnect attempts at most RECONNECT_MAX_MS apart (the firmware's
                # default is 30 s): the seat is back soon after the path heals, so
                # the suite waits less; nothing else about the link changes.
                extra["broker"] = {"host": self.proxy.host, "port": self.proxy.port,
                                   "keepalive": keepalive, "poll_ms": POLL_MS,
                                   "backoff_ms": round(backoff / clock),
                                   "backoff_max_ms": round(RECONNECT_MAX_MS / clock)}
                extra.update({key: round(defaults[key] / clock) for key in CLOCKS})
            self.seats[seat] = SeatProcess(micropython, seat, table, broker, workdir,
                                           keepalive=keepalive, extra_config=extra)

    def _on_input(self, seat: int, msg: dict[str, Any], error: ProtocolError | None) -> None:
        self.answers(seat, msg, error)
        for hook in self.hooks:
            hook(seat, msg, error)

    def start(self) -> Table:
        self.service.start()
        for number, seat in self.seats.items():
            seat.start()
            if not self.service.hub.wait_for_seats([number], STEP_TIMEOUT):
                raise AssertionError(f"seat {number} never came online: "
                                     f"{list(seat.stderr_tail)}")
        self.service.toggle_pause()
        return self

    def armed(self, seat: int, roll: int, count: int, timeout: float) -> bool:
        return self.seats[seat].wait_until(
            lambda outputs: outputs.get("armed") == [roll, count], timeout)

    def close(self) -> None:
        for seat in self.seats.values():
            seat.stop()
        self.service.stop()
        if self.proxy is not None:
            self.proxy.close()

    def run(self, seconds: float, lines: int) -> Run:
        return Run(actions_hash(self.data_dir), journaled_seqs(self.data_dir), lines,
                   answers=Counter(self.answers.count), errors=list(self.answers.errors),
                   seconds=seconds)


def record(broker: BrokerAddress, micropython: str, workdir: Path, steps: int,
           table: str = "script") -> tuple[list[Step], Run]:
    """The first ``steps`` inputs the demo's bots make on a fault-free table, and
    that table's run (the reference every replay must match, line for line)."""
    started = time.monotonic()
    table_ = Table(broker, micropython, workdir, table)
    script: list[Step] = []
    hashes: list[str] = []
    pilot: SeatPilot | None = None
    armed_now: dict[int, tuple[int, int]] = {}

    def armed(seat: int, roll: int, count: int, timeout: float) -> bool:
        armed_now[seat] = (roll, count)
        return table_.armed(seat, roll, count, timeout)

    def send(seat: int, line: dict[str, Any]) -> None:
        assert pilot is not None
        script.append(Step(seat, line, armed_now.pop(seat) if "dice" in line else None))
        hashes.append(actions_hash(table_.data_dir))  # every earlier line is answered
        type_line(table_, seat, line)
        if len(script) >= steps:
            pilot.stop()

    pilot = SeatPilot(send, armed, table_.cards, seed=SEED, timeout=STEP_TIMEOUT)
    table_.hooks.append(pilot.on_input)
    try:
        table_.start()
        pilot.play(table_.service)
        run = table_.run(time.monotonic() - started, len(script))
    finally:
        table_.close()
    run.hashes = [*hashes, run.actions_hash]
    return script, run


def fault_windows(script: list[Step], presses: int) -> list[tuple[int, int]]:
    """``(seat, start)`` of every place where one seat types ``presses`` lines in a
    row without a dice line among them (a roll waits for the hub to arm it)."""
    found = []
    for start in range(1, len(script) - presses):
        seat = script[start].seat
        window = script[start:start + presses]
        if all(s.seat == seat and s.armed is None for s in window):
            found.append((seat, start))
    return found


def replay(broker: BrokerAddress, micropython: str, workdir: Path, script: list[Step],
           fault: Fault | None, table: str) -> Run:
    """Play ``script`` on a new table, with ``fault`` on one seat's path; every line
    outside the fault waits for the hub's answer before the next. With a fault, the
    replay ends once the faulted seat has typed AFTER_FAULT lines after the fault's."""
    started = time.monotonic()
    proxied = fault.seat if fault is not None else None
    keepalive = fault.keepalive if fault is not None else 10
    clock = fault.clock if fault is not None else 1.0
    table_ = Table(broker, micropython, workdir, table, proxied, keepalive, clock)
    sent: Counter[int] = Counter()
    timings: dict[str, float] = {}
    online = True
    after = 0  # the faulted seat's lines typed after the fault's
    try:
        table_.start()
        at = 0
        while at < len(script) and after < AFTER_FAULT:
            if fault is not None and at == fault.start:
                typed, online = _through_fault(table_, script, fault, sent, timings)
                at += typed
                continue
            step = script[at]
            _type(table_, step, sent)
            if not table_.answers.wait(step.seat, sent[step.seat], STEP_TIMEOUT):
                raise AssertionError(f"line {at} of seat {step.seat} ({step.line}) not "
                                     f"answered; answers {dict(table_.answers.count)}, "
                                     f"errors {table_.answers.errors[-3:]}")
            if fault is not None and step.seat == fault.seat and \
                    at >= fault.start + fault.presses:
                after += 1
            at += 1
        run = table_.run(time.monotonic() - started, at)
        run.online_after_fault = online
        run.noticed_s = timings.get("noticed")
        run.answered_s = timings.get("answered")
        run.online_s = timings.get("online")
        return run
    finally:
        table_.close()


def _type(table: Table, step: Step, sent: Counter[int]) -> None:
    if step.armed is not None:
        roll, count = step.armed
        if not table.armed(step.seat, roll, count, STEP_TIMEOUT):
            raise AssertionError(f"seat {step.seat} never showed roll {roll} armed")
    type_line(table, step.seat, step.line)
    sent[step.seat] += 1


#: What a seat's display says above the view while it holds input back (firmware
#: after issue 13): Confirm is not sent while the hub has not answered for
#: hub_wait_ms, and nothing while the outbox is full.
NOTICES = ("waiting for the hub", "outbox full")


def _holding(outputs: dict[str, Any]) -> bool:
    oled = outputs.get("oled")
    return isinstance(oled, list) and bool(oled) and oled[0] in NOTICES


def press(table: Table, seat: int, line: dict[str, Any]) -> bool:
    """Type ``line`` into ``seat``'s board and wait for what the seat made of it: True
    once it numbered it (an event for the hub), False when it refused it (it waits for
    the hub, or its outbox is full). Only a numbered line counts as sent: the screen
    read before typing may be late to say that the seat has begun to wait."""
    process = table.seats[seat]
    told = len(process.verdicts)
    process.send(line)
    while True:
        verdict = process.wait_verdict(told, STEP_TIMEOUT)
        if verdict is None:
            raise AssertionError(f"seat {seat} neither numbered nor refused {line}: "
                                 f"{list(process.stderr_tail)}")
        said, what = verdict
        if said == "refused":
            return False
        if what[1] in INPUT_KINDS:
            return True
        told += 1  # an event of the seat's own making (a resync), numbered meanwhile


def type_line(table: Table, seat: int, line: dict[str, Any]) -> None:
    """Type ``line`` until the seat numbers it: a line it refused is typed again once
    the seat no longer holds input back, as a person presses again. Outside a fault
    that happens when the hub is slow (a busy machine): the answer to the seat's last
    line took longer than hub_wait_ms, or is still on its way when the next line comes."""
    while not press(table, seat, line):
        if not table.seats[seat].wait_until(lambda outputs: not _holding(outputs),
                                            STEP_TIMEOUT):
            raise AssertionError(f"seat {seat} held input back for {STEP_TIMEOUT:g} s: "
                                 f"{table.seats[seat].outputs.get('oled')}")


def _through_fault(table: Table, script: list[Step], fault: Fault, sent: Counter[int],
                   timings: dict[str, float]) -> tuple[int, bool]:
    # Black-hole the seat's path, type its lines through it, heal it, and wait for
    # every one of them to be answered and the seat to be online again. Returns how
    # many of the fault's lines the seat took (numbered) and whether it is online again.
    #
    # A seat that waits for the hub does not take Confirm: the player presses it anyway
    # (and again at every later moment of the fault: the seat must take none of them),
    # types nothing after it, and presses it for real once the seat no longer waits, as
    # a person at the table would. A line counts as typed only once the seat numbered
    # it; one it refused is pressed again.
    assert table.proxy is not None
    pace = fault.seconds / (fault.presses + 1)
    began = time.monotonic()
    noticed = False
    typed = 0

    def until(moment: float) -> None:
        # Waits, watching for the hub to see the seat go offline meanwhile.
        nonlocal noticed
        left = moment - time.monotonic()
        if not noticed and left > 0:
            noticed = table.service.hub.wait_for_seats([fault.seat], left, online=False)
            if noticed:
                timings["noticed"] = time.monotonic() - began
        time.sleep(max(0.0, moment - time.monotonic()))

    table.proxy.black_hole()
    try:
        for moment in range(1, fault.presses + 1):
            until(began + pace * moment)
            step = script[fault.start + typed]
            if press(table, fault.seat, step.line):
                sent[fault.seat] += 1
                typed += 1
        until(began + fault.seconds)
    finally:
        table.proxy.black_hole(False)
    healed = time.monotonic()
    if not noticed:
        # The broker gives up on a silent seat (its Will reaches the hub) before the
        # path heals: the fault is one the link has to recover from.
        raise AssertionError(f"the hub never saw seat {fault.seat} offline during the fault")
    if not table.answers.wait(fault.seat, sent[fault.seat], HEAL_TIMEOUT):
        seat = table.seats[fault.seat]
        raise AssertionError(
            f"after the fault seat {fault.seat} got {table.answers.count[fault.seat]} of "
            f"{sent[fault.seat]} answers; errors {table.answers.errors[-3:]}; "
            f"journal {journaled_seqs(table.data_dir).get(fault.seat, [])[-14:]}; "
            f"the seat numbered {seat.verdicts[-12:]}, shows {seat.outputs.get('oled')}, "
            f"net {seat.outputs.get('net')}, logged {list(seat.stderr_tail)[-8:]}")
    timings["answered"] = time.monotonic() - healed
    online = table.service.hub.wait_for_seats([fault.seat], HEAL_TIMEOUT)
    timings["online"] = time.monotonic() - healed
    if typed < fault.presses and not table.seats[fault.seat].wait_until(
            lambda outputs: not _holding(outputs), HEAL_TIMEOUT):
        raise AssertionError(f"seat {fault.seat} still holds input back after the fault")
    return typed, online
