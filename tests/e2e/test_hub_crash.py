"""The hub killed with SIGKILL twenty times during one game loses nothing it acknowledged.

The hub runs as a real process (``python -m risktable hub --config FILE``) on
one data directory. Three protocol-level seats play a classic game through it
(autopilots checked by a mirror session, :mod:`tests.support.virtual_table`).
At 20 seeded points of the game the hub is killed and started again; the seats
keep retransmitting their unanswered event (at once when they see the new hub's
birth, as real seats do) and the game carries on. Each kill lands in one of
three moments:

- ``in_flight``: right after the seat published an event, not waiting for
  anything: the hub may not have it, may be judging it, or may have acked it;
- ``journalled``: the broker is frozen (SIGSTOP) just after it took the event,
  the hub journals the input (the test watches the journal file) but its ack
  cannot reach the seat; the hub is killed then, and the broker thawed: the
  window between journalling an input and the seat hearing the ack;
- ``quiet``: after the seat had its answer.

The game must end exactly as the same inputs and dice end it without a hub,
with the same number of seat events (no event had to be made again), and every
event the hub acknowledged (or called a duplicate) must be in the journal.
"""

from __future__ import annotations

import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from riskproto import topics
from risktable.cards.deck_file import EnrolledCard, deck_path, save_deck
from risktable.journal import Journal, journal_path
from risktable.rules import Config, replay
from risktable.rules.record import loads
from risktable.table.public import board_message
from risktable.table.session import TableSession
from tests.support.mosquitto import Mosquitto
from tests.support.mqtt_client import Recorder
from tests.support.seat_client import BROKER_NO_DELAY, SeatClient
from tests.support.tools import mosquitto_binary, subprocess_env
from tests.support.virtual_table import Pending, VirtualTable, mirror_table, reference_game
from tests.table.inputs import UIDS

TABLE = "crash"
PLAYERS = 3
SEED = 4
KILLS = 20
MODES = ("in_flight", "journalled", "quiet")


class HubProcess:
    """``python -m risktable hub --config FILE`` on ``data_dir``, killable and restartable."""

    def __init__(self, broker: Mosquitto, data_dir: Path) -> None:
        self.data_dir = data_dir
        data_dir.mkdir(parents=True)
        board = Config(PLAYERS).board
        # The enrolled deck, with the map file's own symbols so the rules stay the mirror's.
        save_deck(deck_path(data_dir), board,
                  {uid: EnrolledCard(card, board.card_symbols[card]) for card, uid in UIDS.items()})
        self.config = data_dir.parent / "hub.toml"
        self.config.write_text(
            f'[broker]\nhost = "{broker.host}"\nport = {broker.port}\nkeepalive = 5\n'
            f'[table]\nid = "{TABLE}"\nseats = {PLAYERS}\nrules = "classic"\n'
            '[leds]\nenabled = false\n[panel]\nenabled = false\n'
            f'[data]\ndir = "{data_dir}"\n')
        self.log = data_dir.parent / "hub.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self) -> None:
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "risktable", "hub", "--config", str(self.config), "-v"],
                env=subprocess_env(), stdout=log, stderr=log)
        self.starts += 1

    def kill(self) -> None:
        assert self.process is not None and self.process.poll() is None, self.tail()
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        """SIGTERM: the hub's own clean shutdown."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-3000:]


def journalled(path: Path, pending: Pending, boot: int, timeout: float = 2.0) -> bool:
    """Wait until the journal file holds the input ``pending``; False on timeout."""
    deadline = time.monotonic() + timeout
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1.0)
    try:
        while time.monotonic() < deadline:
            try:
                row = db.execute("SELECT 1 FROM inputs WHERE seat = ? AND boot = ? AND seq = ?",
                                 (pending.seat, boot, pending.seq)).fetchone()
            except sqlite3.OperationalError:
                row = None  # the hub is between transactions or not there yet
            if row is not None:
                return True
            time.sleep(0.001)
        return False
    finally:
        db.close()


def kill_once_journalled(broker: Mosquitto, hub: HubProcess, pending: Pending,
                         boot: int) -> bool:
    """Freeze the broker and kill the hub once ``pending`` is journalled, so its ack is
    held by the frozen broker; False (nothing killed) when the broker froze before it
    passed the input on."""
    assert broker.process is not None
    broker.process.send_signal(signal.SIGSTOP)
    try:
        written = journalled(journal_path(hub.data_dir), pending, boot)
        if written:
            hub.kill()
    finally:
        broker.process.send_signal(signal.SIGCONT)
    return written


def wait_for_mirror_views(clients: dict[int, SeatClient], mirror: TableSession) -> None:
    """Wait until the restarted hub shows every seat what the mirror shows, cursor
    included."""
    for seat, client in clients.items():
        shown = mirror.view(seat)
        client.wait_for_view(
            lambda v, s=shown: all(v.get(k) == x for k, x in s.items()))  # type: ignore[misc]


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    with Mosquitto(mosquitto_binary(), tmp_path / "mosquitto",
                   extra_config=BROKER_NO_DELAY) as started:
        yield started


@pytest.mark.slow
def test_a_game_survives_twenty_hub_kills_without_losing_an_acknowledged_input(
        broker: Mosquitto, tmp_path: Path) -> None:
    rules = Config(PLAYERS)
    reference, expected_events = reference_game(rules, SEED)
    rng = random.Random(SEED)
    points = sorted(rng.sample(range(3, expected_events - 3), KILLS))
    modes = [MODES[i % len(MODES)] for i in range(KILLS)]
    rng.shuffle(modes)
    kill_at = dict(zip(points, modes, strict=True))

    hub = HubProcess(broker, tmp_path / "hub")
    mirror, pilot = mirror_table(rules, SEED)
    clients = {seat: SeatClient(broker.host, broker.port, TABLE, seat, boot=200 + seat).start()
               for seat in mirror.seats}
    table = VirtualTable(mirror, pilot, clients, timeout=30.0)
    windows: Counter[str] = Counter()

    def restart(births: int) -> None:
        hub.start()
        for client in clients.values():
            client.wait_for_hub_birth(births)

    def births() -> int:
        return min(len(c.hub_sessions) for c in clients.values())

    try:
        restart(births())
        events = 0
        due: list[str] = []  # kills whose point has come, oldest first
        while not table.over:
            if events in kill_at:
                due.append(kill_at[events])
            events += 1
            if not due:
                assert table.step() is not None
                continue
            mode = due[0]
            seen = births()
            pending = table.send_next(wait_broker=mode != "in_flight")
            assert pending is not None
            if mode == "quiet":
                table.settle(pending)
                hub.kill()
                windows["after the answer"] += 1
            elif mode == "journalled":
                written = kill_once_journalled(broker, hub, pending, clients[pending.seat].boot)
                if not written:
                    # The broker froze before it passed the event on: no kill this
                    # time, the next event tries again.
                    table.settle(pending)
                    windows["(froze too early, retried)"] += 1
                    continue
                windows["journalled, ack held by the frozen broker"] += 1
            else:
                hub.kill()
                windows["right after publishing"] += 1
            due.pop(0)
            restart(seen)
            if mode != "quiet":
                answer = table.settle(pending)
                windows[f"  then answered {answer.code or 'ack'}"] += 1
            wait_for_mirror_views(clients, mirror)
        assert not due
        for seat, client in clients.items():
            expected = "You won!" if mirror.seats.index(seat) == mirror.state.winner \
                else f"Seat {mirror.seats[mirror.state.winner]} won"
            client.wait_for_view(lambda v, e=expected: v.get("lines") == [e])  # type: ignore[misc]
        observer = Recorder(broker.host, broker.port, "crash-observer")
        try:
            observer.subscribe(topics.board(TABLE))
            # The board of the game's end: the seats' views of it may arrive before it,
            # and the broker then still holds the board before (beside another copy of
            # the suite, once in a run).
            _, board, _ = observer.wait_for(
                lambda t, m, r: t == topics.board(TABLE) and m is not None
                and m.get("turn", {}).get("phase") == "over")
        finally:
            observer.close()
        hub.stop()
    except BaseException:
        print(f"hub log:\n{hub.tail()}")  # shown by pytest with the failure
        raise
    finally:
        for client in clients.values():
            client.close()
        hub.stop()
    print(f"\n{hub.starts} hub starts; kills: {dict(windows)}")

    # The interrupted game is the uninterrupted one: same events, same actions, same state.
    assert events == expected_events
    assert mirror.log == reference.log and mirror.state == reference.state
    assert board == board_message(reference.state)
    assert hub.starts == KILLS + 1
    assert windows["journalled, ack held by the frozen broker"] == modes.count("journalled")

    tally = table.tally
    assert not tally.refused
    with Journal(journal_path(hub.data_dir)) as journal:
        [game] = journal.list_games()
        assert game.status == "finished" and game.winner == reference.state.winner
        log = loads(journal.export(game.id))
        actions = list(log.actions())
        assert actions == reference.log and replay(log.config, actions) == reference.state
        for seat, client in clients.items():
            # Every input the hub answered as applied is journalled, and nothing else is.
            boot, seqs = journal.input_seqs(game.id, seat)
            answered = sorted(seq for s, seq in tally.acked + tally.duplicates if s == seat)
            assert boot == client.boot and seqs == answered


def test_a_restarted_hub_shows_every_seat_its_view_before_its_birth(
        broker: Mosquitto, tmp_path: Path) -> None:
    mirror, pilot = mirror_table(Config(PLAYERS), SEED)
    hub = HubProcess(broker, tmp_path / "hub")
    clients = {seat: SeatClient(broker.host, broker.port, TABLE, seat, boot=300 + seat).start()
               for seat in mirror.seats}
    table = VirtualTable(mirror, pilot, clients)
    try:
        hub.start()
        for client in clients.values():
            client.wait_for_hub_birth(0)
        for _ in range(60):  # into the claims, with a cursor standing somewhere
            assert table.step() is not None
        marks = {seat: len(client.received) for seat, client in clients.items()}
        hub.kill()
        hub.start()
        for client in clients.values():
            client.wait_for_hub_birth(1)
    finally:
        for client in clients.values():
            client.close()
        hub.stop()
    for seat, client in clients.items():
        since = client.received[marks[seat]:]
        birth = next(i for i, (leaf, msg) in enumerate(since) if leaf == "hub" and msg["online"])
        views = [msg for leaf, msg in since[:birth] if leaf == "view"]
        assert views, since
        shown = mirror.view(seat)
        assert all(views[-1].get(k) == x for k, x in shown.items()), (views[-1], shown)
        # Never a bare view (colour and name only) in between.
        assert all("lines" in msg for leaf, msg in since if leaf == "view"), since
