"""A seat's events reach the game once and in order, whatever arrives (issue 13).

The hub here is a real ``TableService`` (in this process, or ``python -m
risktable hub`` where it is killed) on a real mosquitto; the seats are
protocol-level seat clients played by autopilots checked by a mirror session
(``tests.support.virtual_table``). A :class:`~tests.e2e.hub_driver.Watcher`
publishes on a seat's topics what a broken link or a holder of the seat's
credentials would send: events in the wrong order, an event numbered far ahead,
payloads built to break the parser.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from riskproto import MAX_MESSAGE_BYTES, OUTBOX_CAPACITY, messages, topics
from riskproto.messages import MAX_COUNTER
from risktable.journal import Journal, journal_path
from risktable.rules import Config
from risktable.service.table_service import TableService
from tests.e2e.hub_driver import LedLog, Watcher, replies_of, seat_clients, start_service
from tests.e2e.test_hub_crash import HubProcess
from tests.support.mosquitto import Mosquitto
from tests.support.seat_client import BROKER_NO_DELAY, SeatClient
from tests.support.tools import mosquitto_binary
from tests.support.virtual_table import VirtualTable, mirror_table

TABLE = "seq"
SEATS = 3
SEED = 13


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    with Mosquitto(mosquitto_binary(), tmp_path / "mosquitto",
                   extra_config=BROKER_NO_DELAY) as running:
        yield running


class Table:
    """The in-process hub, its seats, their mirror and a watcher, torn down together."""

    def __init__(self, broker: Mosquitto, data_dir: Path) -> None:
        self.service: TableService = start_service(broker.host, broker.port, TABLE, SEATS,
                                                   data_dir, LedLog())
        self.watcher = Watcher(broker.host, broker.port, TABLE)
        self.clients: dict[int, SeatClient] = {}
        self.clients.update(seat_clients(broker.host, broker.port, TABLE, SEATS))
        # Each birth makes the hub republish that seat's view and armed roll: wait until
        # it has heard them all, so that what it sends for them comes before anything a
        # test sends afterwards (a sentinel's ack would otherwise overtake them).
        assert self.service.hub.wait_for_seats(list(self.clients), 10)
        self.table = VirtualTable(*mirror_table(self.service.rules, SEED), self.clients)

    def play(self, events: int) -> None:
        for _ in range(events):
            answer = self.table.step()
            assert answer is not None and answer.ack, answer

    def answers_since(self, mark: int, seat: int) -> list[tuple[str, int | None]]:
        """(code or "ack", seq) of every answer to ``seat`` the watcher got after ``mark``."""
        got = []
        for r in replies_of(self.watcher.received[mark:], TABLE):
            if int(r.topic.split("/")[3]) == seat and r.doc is not None:
                code = "ack" if r.topic.endswith("/ack") else str(r.doc["code"])
                got.append((code, r.doc.get("seq")))
        return got

    def take_seq(self, seat: int) -> int:
        """The seat's next number, for an event the watcher sends in its name."""
        outbox = self.clients[seat].outbox
        seq = outbox.next_seq
        outbox.next_seq = seq + 1
        return seq

    def resync_sentinel(self, seat: int) -> int:
        """Send a resync as ``seat`` on the watcher's connection (so after everything it
        published before) and wait for its ack; returns its seq."""
        seq = self.take_seq(seat)
        resync = messages.message("event", seat=seat, seq=seq, kind="resync")
        self.watcher.publish(_event_topic(seat), messages.encode(resync))
        self.watcher.wait_until(lambda got: any(
            r.topic == topics.seat(TABLE, seat, topics.SEAT_ACK) and r.doc is not None
            and r.doc.get("seq") == seq for r in got), 10)
        return seq

    def close(self) -> None:
        for client in self.clients.values():
            client.close()
        self.watcher.close()
        self.service.stop()


@pytest.fixture
def table(broker: Mosquitto, tmp_path: Path) -> Iterator[Table]:
    running = Table(broker, tmp_path / "hub")
    try:
        yield running
    finally:
        running.close()


def _event_topic(seat: int) -> str:
    return topics.seat(TABLE, seat, topics.SEAT_EVENT)


def test_one_event_numbered_far_ahead_does_not_poison_a_seat(table: Table) -> None:
    table.play(12)
    seat = table.table.pilot.next_event()
    assert seat is not None
    victim = seat[0]
    expected = table.clients[victim].outbox.next_seq
    mark = len(table.watcher.received)
    # Any holder of the seat's credentials: a valid event with a huge number, twice.
    for seq in (MAX_COUNTER, expected + OUTBOX_CAPACITY):
        forged = messages.message("event", seat=victim, seq=seq, kind="resync")
        table.watcher.publish(_event_topic(victim), messages.encode(forged))
    error_topic = topics.seat(TABLE, victim, topics.SEAT_ERROR)

    def refusals() -> list[dict[str, object]]:
        return [r.doc for r in table.watcher.received[mark:]
                if r.topic == error_topic and r.doc is not None]

    table.watcher.wait_until(lambda got: len(refusals()) >= 2, 10)
    assert [(d["code"], d["seq"], d["field"]) for d in refusals()] == [
        ("not_allowed", MAX_COUNTER, "seq"), ("not_allowed", expected + OUTBOX_CAPACITY, "seq")]
    assert all(f"expects {expected}" in str(d["detail"]) for d in refusals())
    # The seat's genuine events go on being applied, the game with them.
    table.play(40)
    assert table.service.session.state == table.table.mirror.state


def test_an_input_is_acknowledged_before_the_views_and_board_it_changes(table: Table) -> None:
    # The ack goes out once the input is committed; what the input changed follows it
    # (one connection, so the watcher gets the hub's messages in the order it sent them).
    changed_after = 0
    for _ in range(30):
        table.resync_sentinel(1)  # everything the hub sent before this point has arrived
        mark = len(table.watcher.received)
        pending = table.table.send_next()
        assert pending is not None
        ack_topic = topics.seat(TABLE, pending.seat, topics.SEAT_ACK)
        assert table.table.settle(pending).ack
        table.resync_sentinel(1)
        got = table.watcher.received[mark:]
        first = got[0]
        assert (first.topic, first.doc and first.doc.get("seq")) == (ack_topic, pending.seq), (
            [r.topic for r in got])
        # The second sentinel's view and ack close the list.
        changed_after += any(not r.topic.endswith("/ack") for r in got[1:-2])
    assert changed_after > 20  # most inputs change a view, the board or the LEDs


def test_events_that_arrive_before_an_earlier_one_are_applied_in_order(table: Table) -> None:
    # Play on until the autopilot's next nine events all come from one seat; send
    # the last eight of them first and the first one last, as a seat does whose
    # oldest copy was lost in a partition and whose later ones got through.
    run: list[tuple[int, dict[str, object]]] = []
    for _ in range(400):
        mirror, pilot = copy.deepcopy((table.table.mirror, table.table.pilot))
        run = []
        for _ in range(9):
            nxt = pilot.next_event()
            if nxt is None or (run and nxt[0] != run[0][0]):
                break
            assert mirror.handle(*nxt).error is None
            run.append(nxt)
        if len(run) == 9:
            break
        table.play(1)
    assert len(run) == 9, "no run of nine events from one seat"
    seat = run[0][0]
    numbered = [dict(event, seq=table.take_seq(seat)) for _, event in run]
    first = numbered[0]["seq"]
    assert isinstance(first, int)
    mark = len(table.watcher.received)
    for event in numbered[1:] + numbered[:1]:
        table.watcher.publish(_event_topic(seat), messages.encode(event))
    table.watcher.wait_until(lambda got: len(table.answers_since(mark, seat)) >= 9, 20)
    assert table.answers_since(mark, seat) == [("ack", first + i) for i in range(9)]
    table.table.mirror, table.table.pilot = mirror, pilot
    assert table.service.session.state == mirror.state
    assert table.service.session.ui_state() == mirror.ui_state()
    _, seqs = table.service.journal.input_seqs(table.service.game_id, seat)
    assert seqs[-9:] == list(range(first, first + 9))
    table.play(20)
    assert table.service.session.state == table.table.mirror.state


PATHOLOGICAL = [
    b"[" * 2000,  # over the contract's 1 KiB, under the broker's packet limit
    b"[" * 1990,
    b"[" * 1020,  # within the size limit, deeper than CPython's parser can recurse
    b"[" * 500 + b"]" * 500,
    b"{" * 1000,
    b'{"a":' * 200 + b"1" + b"}" * 200,
    b'{"v":1,"t":"event","seat":1,"seq":1,"kind":"encoder","steps":' + b"[" * 950,
    b'["' + b"\\" * 1000 + b'"]',
    b"\x00" * MAX_MESSAGE_BYTES,
    b"\xef\xbb\xbf{}",
    b"",
]


def test_pathological_payloads_each_get_exactly_one_answer(table: Table) -> None:
    table.play(3)
    mark = len(table.watcher.received)
    for payload in PATHOLOGICAL:
        table.watcher.publish(_event_topic(1), payload)
    sentinel = table.resync_sentinel(1)
    answers = table.answers_since(mark, 1)
    assert answers[-1] == ("ack", sentinel)
    assert len(answers) == len(PATHOLOGICAL) + 1, answers
    assert {code for code, seq in answers[:-1]} <= {"malformed", "too_large", "schema"}
    assert all(seq is None for _, seq in answers[:-1]), answers
    assert table.service.hub.link.connected.is_set()
    table.play(10)
    assert table.service.session.state == table.table.mirror.state


def test_a_message_the_gate_cannot_judge_is_answered_malformed_and_logged(
        table: Table, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    # The last resort: whatever a bug in the gate raises, the seat gets its one
    # answer and the network thread goes on.
    from riskproto import gate

    real = gate.decode_from

    def fragile(topic: str, payload: bytes, seats: int) -> object:
        if b"boom" in payload:
            raise RuntimeError("a bug in the gate")
        return real(topic, payload, seats)

    monkeypatch.setattr(gate, "decode_from", fragile)
    mark = len(table.watcher.received)
    with caplog.at_level(logging.ERROR, logger="risktable"):
        table.watcher.publish(_event_topic(2), b'{"boom":1}')
        sentinel = table.resync_sentinel(2)
    assert table.answers_since(mark, 2) == [("malformed", None), ("ack", sentinel)]
    assert any("could not judge" in r.getMessage() and r.exc_info for r in caplog.records)


def test_a_hub_killed_right_after_a_refusal_expects_the_next_event(
        broker: Mosquitto, tmp_path: Path) -> None:
    # The refusal's number is in the journal before the refusal goes out, so the
    # restarted hub neither holds the seat's next event for it nor calls it stale.
    rules = Config(SEATS)
    hub = HubProcess(broker, tmp_path / "hub")
    mirror, pilot = mirror_table(rules, SEED)
    clients = {seat: SeatClient(broker.host, broker.port, "crash", seat, boot=400 + seat)
               .start() for seat in mirror.seats}
    table = VirtualTable(mirror, pilot, clients)
    try:
        hub.start()
        for client in clients.values():
            client.wait_for_hub_birth(0)
        for _ in range(8):
            assert table.step() is not None
        nxt = pilot.next_event()
        assert nxt is not None
        idle = next(seat for seat in mirror.seats if seat != nxt[0])
        refused_seq = clients[idle].outbox.next_seq
        answer = table.settle(table.send(idle, {"kind": "encoder", "steps": 1}))
        assert answer.code == "not_allowed", answer
        hub.kill()
        hub.start()
        for client in clients.values():
            client.wait_for_hub_birth(1)
        # Play on until the idle seat's next genuine event has been applied.
        for _ in range(60):
            assert table.step() is not None
            if any(seat == idle and seq > refused_seq for seat, seq in table.tally.acked):
                break
        assert any(seat == idle and seq == refused_seq + 1 for seat, seq in table.tally.acked)
        assert [code for _, _, code in table.tally.refused] == ["not_allowed"]
        hub.stop()
    except BaseException:
        print(f"hub log:\n{hub.tail()}")
        raise
    finally:
        for client in clients.values():
            client.close()
        hub.stop()
    with Journal(journal_path(hub.data_dir)) as journal:
        [game] = journal.list_games()
        assert journal.answered_seqs("crash", idle)[400 + idle] == clients[idle].outbox.next_seq - 1
        assert journal.state(game.id) == mirror.state
