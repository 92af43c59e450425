"""The hub's work runs on one worker thread, never on paho's network thread.

A journal slowed to 500 ms per commit (a slow SD card) must not starve the
keepalive: with a 2 s keepalive the broker drops a client it hears nothing
from for 3 s, which is what a burst of inputs handled inside paho's callback
did.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from riskproto import messages, topics
from risktable.broker_address import BrokerAddress
from risktable.config import BrokerConfig, HubConfig, TableConfig
from risktable.journal import Journal, journal_path
from risktable.service.hub import HubService
from risktable.service.table_service import TableService
from risktable.service.worker import Worker
from tests.support.mosquitto import Mosquitto
from tests.support.mqtt_client import Recorder
from tests.support.seat_client import SeatClient
from tests.support.virtual_table import mirror_table
from tests.support.waiting import wait_until
from tests.table.inputs import cards_of

TABLE = "slow"
COMMIT_DELAY = 0.5
KEEPALIVE = 2
BURST = 12  # 6 s of commits: twice what the broker's 3 s of silence allows


class SlowJournal(Journal):
    """A journal whose every commit takes COMMIT_DELAY longer, as on a slow SD card."""

    @contextmanager
    def _write(self) -> Iterator[Any]:
        with super()._write() as db:
            yield db
            time.sleep(COMMIT_DELAY)


@pytest.mark.slow
def test_a_slow_journal_keeps_the_hub_connected_and_answers_in_order(
    fresh_mosquitto: Mosquitto, tmp_path: Path
) -> None:
    address = BrokerAddress(fresh_mosquitto.host, fresh_mosquitto.port)
    config = HubConfig(broker=BrokerConfig(address, keepalive=KEEPALIVE),
                       table=TableConfig(id=TABLE, seats=3), data_dir=tmp_path)
    probe = TableService(config, card_uids=cards_of("1993"), seed=7)
    rules = probe.rules
    probe.journal.close()
    applied: list[tuple[int, int]] = []
    service = TableService(config, card_uids=cards_of("1993"), seed=7,
                           journal=SlowJournal(journal_path(tmp_path)),
                           on_input=lambda seat, msg, error: applied.append((seat, msg["seq"])))
    # The seats' inputs are a script the mirror accepted, one after the other.
    mirror, pilot = mirror_table(rules, seed=3)
    script = []
    for _ in range(BURST):
        step = pilot.next_event()
        assert step is not None and mirror.handle(*step).error is None
        script.append(step)
    watcher = Recorder(address.host, address.port, "watcher")
    watcher.subscribe(topics.hub_status(TABLE))
    service.start()
    session = service.hub.link.session
    seats = {n: SeatClient(address.host, address.port, TABLE, n).start() for n in (1, 2, 3)}
    try:
        assert service.hub.wait_for_seats([1, 2, 3], timeout=10)
        # Each event reaches the broker before the next is sent, so the hub receives
        # them in script order; none waits for the one before it to be answered.
        sent = [(seat, seats[seat].send(event)) for seat, event in script]
        answers = [seats[seat].answer(seq, timeout=60) for seat, seq in sent]
        assert all(a.ack for a in answers), answers
        # The ack is flushed before the hub tells its on_input hook, so the last
        # answer can reach the seat before the hook has heard it.
        wait_until(lambda: len(applied) >= len(sent), timeout=10)
        assert applied == sent
        for n in seats:
            journalled = service.journal.input_seqs(service.game_id, n)[1]
            assert journalled == [seq for seat, seq in sent if seat == n]
    finally:
        for seat in seats.values():
            seat.close()
        service.stop()
    watcher.wait_for(lambda t, m, r: m is not None and not m["online"])  # the clean stop
    statuses = [json.loads(p) for t, p, _ in watcher.messages]
    watcher.close()
    # Never dropped by the broker: no Will, no second connection; the one offline
    # status is the stop's, and last.
    assert [s["session"] for s in statuses] == [session] * len(statuses)
    assert [s["online"] for s in statuses] == [True] * (len(statuses) - 1) + [False]
    assert service.hub.link.session == session


def hold(worker: Worker) -> threading.Event:
    """Give ``worker`` a task that holds its thread until the returned event is set."""
    started, release = threading.Event(), threading.Event()

    def task() -> None:
        started.set()
        release.wait(timeout=30)

    assert worker.submit(task) and started.wait(timeout=10)
    return release


def test_worker_runs_tasks_in_order_and_refuses_when_full() -> None:
    worker = Worker(capacity=3)
    done: list[int] = []
    worker.start()
    release = hold(worker)
    # The first task holds the thread; three more fill the queue, the fifth is refused.
    accepted = [worker.submit(lambda n=n: done.append(n)) for n in range(5)]
    assert accepted == [True, True, True, False, False] and worker.dropped == 2
    release.set()
    assert worker.wait_idle(timeout=5)
    assert done == [0, 1, 2]
    worker.stop()
    assert not worker.submit(lambda: done.append(9))


def test_worker_stop_drops_queued_tasks_and_survives_a_failing_one() -> None:
    worker = Worker(capacity=10)
    done: list[str] = []
    worker.start()
    worker.submit(lambda: 1 / 0)  # logged, and the next task still runs
    worker.submit(lambda: done.append("after the failure"))
    assert worker.wait_idle(timeout=5)
    release = hold(worker)
    worker.submit(lambda: done.append("never"))
    stopper = threading.Thread(target=worker.stop)
    stopper.start()
    # Once stopping, the worker takes nothing more (what it took before is dropped too).
    wait_until(lambda: not worker.submit(lambda: done.append("late")))
    release.set()  # the task in hand finishes; the queued ones are dropped
    stopper.join(timeout=5)
    assert done == ["after the failure"] and not stopper.is_alive()


def test_a_full_inbox_drops_messages_with_one_warning_and_answers_the_rest(
    fresh_mosquitto: Mosquitto, caplog: pytest.LogCaptureFixture
) -> None:
    release = threading.Event()
    stuck = threading.Event()
    handled: list[int] = []

    def on_event(seat: int, msg: dict[str, Any]) -> None:
        stuck.set()
        release.wait(timeout=30)  # the worker is stuck on the first input
        handled.append(msg["seq"])

    hub = HubService(BrokerAddress(fresh_mosquitto.host, fresh_mosquitto.port), TABLE, 1,
                     on_event=on_event, inbox=2)
    hub.start()
    seat = Recorder(fresh_mosquitto.host, fresh_mosquitto.port, "seat1")
    seat.subscribe(topics.seat(TABLE, 1, topics.SEAT_ACK))
    try:
        for seq in range(1, 11):
            seat.publish(topics.seat(TABLE, 1, topics.SEAT_EVENT), messages.encode(
                messages.message("event", seat=1, seq=seq, kind="encoder", steps=1)))
            if seq == 1:
                assert stuck.wait(timeout=10)
        # The network thread went on reading while the worker was stuck: it dropped
        # what the inbox could not hold (one in hand, two waiting) and said so once.
        wait_until(lambda: hub.worker.dropped == 7)
        busy = [r for r in caplog.records if "hub busy" in r.getMessage()]
        assert len(busy) == 1
        release.set()
        for seq in (1, 2, 3):
            seat.wait_for(lambda t, m, r, seq=seq: m is not None and m.get("seq") == seq)
        assert hub.worker.wait_idle(timeout=10) and handled == [1, 2, 3]
    finally:
        release.set()
        seat.close()
        hub.stop()



def test_inputs_that_arrive_while_the_hub_stops_are_not_called_an_overflow(
    fresh_mosquitto: Mosquitto, caplog: pytest.LogCaptureFixture
) -> None:
    # The demo's quit: the worker stops (finishing the input in hand, whose answer still
    # goes out) while the network thread keeps reading; what it reads then was said to be
    # "hub busy: 1024 messages wait already; dropping ...", as if the inbox had overflowed.
    release = threading.Event()
    stuck = threading.Event()

    def on_event(seat: int, msg: dict[str, Any]) -> None:
        stuck.set()
        release.wait(timeout=30)

    hub = HubService(BrokerAddress(fresh_mosquitto.host, fresh_mosquitto.port), TABLE, 1,
                     on_event=on_event)
    hub.start()
    seat = Recorder(fresh_mosquitto.host, fresh_mosquitto.port, "seat1")
    seat.subscribe(topics.seat(TABLE, 1, topics.SEAT_ACK))
    stopper = threading.Thread(target=hub.stop)

    def send(seq: int) -> None:
        seat.publish(topics.seat(TABLE, 1, topics.SEAT_EVENT), messages.encode(
            messages.message("event", seat=1, seq=seq, kind="encoder", steps=1)))

    try:
        caplog.set_level("INFO", logger="risktable.service.hub")
        send(1)
        assert stuck.wait(timeout=10)
        stopper.start()
        wait_until(lambda: hub.worker.stopping)
        for seq in range(2, 6):
            send(seq)
        wait_until(lambda: hub.worker.refused_stopping == 4)
        release.set()
        # The input in hand is answered before the hub disconnects.
        seat.wait_for(lambda t, m, r: m is not None and m.get("seq") == 1)
        stopper.join(timeout=10)
        assert not stopper.is_alive()
    finally:
        release.set()
        seat.close()
        if stopper.ident is None:  # never got as far as stopping
            hub.stop()
    said = [r.getMessage() for r in caplog.records if r.name == "risktable.service.hub"]
    assert not [line for line in said if "hub busy" in line], said
    assert hub.worker.dropped == 0
    assert [line for line in said if line.startswith("hub stopping:")] == [
        "hub stopping: messages that arrive now (from "
        f"{topics.seat(TABLE, 1, topics.SEAT_EVENT)} on) are left unanswered; their seats "
        "send them again to the next hub"]
