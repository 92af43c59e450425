"""The hub under hostile input (issue 6): a seeded flood of bad seat messages.

A 4-seat ``TableService`` referees a game through a real mosquitto, its seats
played by protocol-level seat clients (``tests.support.virtual_table``), up to
an armed battle roll. Then, from one more connection, more than 10,000
generated messages go to it: byte garbage, truncated JSON, non-JSON numbers,
wrong types in every field, missing fields, unknown kinds and types, other
protocol versions, oversized payloads, events on another seat's topic, status
topics carrying junk, seats 5 and 6 (not at this table), seats 0, 7, ``01``
and ``x`` (not seat topics at all), replays of answered events, very old
sequence numbers, numbers too far ahead (sequence poisoning), pairs that
arrive in the wrong order (the later one held, both answered in order when the
earlier one comes), and valid events the game does not allow now (other seats,
wrong roll numbers and dice counts, crooked dice, unknown cards).

Each message that names a seat must get exactly one answer with the contract's
code (and ``seq``/``field`` where the contract gives them), in order, on that
seat's topic. Messages on topics that do not parse as a seat topic of a
1..6-seat table cannot be answered (there is no seat to answer) and are
ignored by design: the test checks they get nothing. Afterwards the journal
and the rules state are exactly as before, and the game plays on.

The expected verdicts come from a model written here: the per-field rules of
``protocol/README.md`` for schema errors, a plain next-expected-number model
for held, far-ahead, duplicate and stale, and a copy of the mirror session for
``not_allowed``.
"""

from __future__ import annotations

import copy
import json
import logging
import random
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from riskproto import MAX_MESSAGE_BYTES, OUTBOX_CAPACITY, messages, topics
from riskproto.messages import MAX_COUNTER, ProtocolError
from risktable.rules import state as st
from risktable.service.table_service import TableService
from risktable.table import menus
from risktable.table.session import TableSession
from tests.e2e.hub_driver import (
    LedLog,
    Received,
    Watcher,
    replies_of,
    seat_clients,
    start_service,
)
from tests.support.mosquitto import Mosquitto
from tests.support.seat_client import BROKER_NO_DELAY, SeatClient
from tests.support.tools import mosquitto_binary
from tests.support.virtual_table import Pending, VirtualTable, mirror_table
from tests.table.inputs import UIDS

TABLE = "fuzz"
SEATS = 4  # so that seats 5 and 6 are valid seat numbers that are not at this table
SEED = 20260611
FLOOD = 10_500
BATCH = 500
WINDOW = 64  # the contract's duplicate memory



@dataclass(frozen=True)
class Expect:
    """The one answer a message must get; ``field`` None means "not checked"."""

    seat: int
    code: str  # an error code, or "ack"
    seq: int | None
    field: str | None = None


@dataclass(frozen=True)
class Case:
    family: str
    topic: str
    payload: bytes
    # The answers it brings, in order: none when ignored by design (no seat to
    # answer) or held; a held event's answer comes with the one that fills the gap.
    expect: tuple[Expect, ...]


class SeqModel:
    """What the hub has answered for one seat, independent of ``riskproto.sequence``:
    every number below ``expected``, in order."""

    def __init__(self, answered: set[int]) -> None:
        self.expected = max(answered, default=0) + 1
        assert answered == set(range(1, self.expected)), "the game's events, in order"

    def record(self, seq: int) -> None:
        assert seq == self.expected
        self.expected += 1

    def duplicate(self, rng: random.Random) -> int | None:
        # Only numbers the contract guarantees to remember: the last WINDOW.
        recent = range(max(1, self.expected - WINDOW), self.expected)
        return rng.choice(recent) if recent else None

    def stale(self, rng: random.Random) -> int | None:
        floor = self.expected - WINDOW - 1
        return rng.randint(max(1, floor - 500), floor) if floor >= 1 else None

    def far_ahead(self, rng: random.Random) -> int:
        return rng.choice((MAX_COUNTER, self.expected + OUTBOX_CAPACITY,
                           self.expected + rng.randint(OUTBOX_CAPACITY, 10**6)))


def _event(seat: int, seq: int, rng: random.Random) -> dict[str, Any]:
    """A well-formed event of a random kind (whether the game wants it is another matter)."""
    kind = rng.choice(("encoder", "button", "dice", "card"))
    if kind == "encoder":
        return messages.message("event", seat=seat, seq=seq, kind=kind,
                                steps=rng.randint(-64, 64))
    if kind == "button":
        return messages.message("event", seat=seat, seq=seq, kind=kind,
                                button=rng.choice(messages.BUTTONS),
                                press=rng.choice(messages.PRESSES))
    if kind == "dice":
        dice = [{"id": f"die-{i}", "face": rng.randint(1, 6), "state": "settled"}
                for i in range(rng.randint(1, 3))]
        return messages.message("event", seat=seat, seq=seq, kind=kind,
                                roll=rng.randint(0, 400), dice=dice)
    return messages.message("event", seat=seat, seq=seq, kind=kind,
                            uid=rng.choice(list(UIDS.values())))


def _raw(doc: Any) -> bytes:
    # json.dumps, not messages.encode: these documents are invalid on purpose.
    return json.dumps(doc, separators=(",", ":")).encode()


# Wrong values by the kind of field: each is refused by the schema (never a
# version error, never a JSON error: NaN/Infinity are in the malformed family).
_NOT_INT = ["3", 3.0, True, None, [], {}, "", [1]]
_NOT_ENUM = ["", "teleport", "CONFIRM", 1, None, ["confirm"], {"x": 1}, False]
_WRONG: dict[str, list[Any]] = {
    "seat": [*_NOT_INT, 0, 7, -1, 99],
    "seq": [*_NOT_INT, 0, -1, MAX_COUNTER + 1, 2**63],
    "kind": _NOT_ENUM,
    "steps": [*_NOT_INT, 65, -65, 10**6],
    "button": _NOT_ENUM,
    "press": _NOT_ENUM,
    "roll": [*_NOT_INT, -1, MAX_COUNTER + 1],
    "dice": [{}, "dice", 3, None, [], [1], ["x"], [None], "[]"],
    "uid": ["04a1b2c3", "ABC", "0" * 22, "GHIJKLMN", 12345678, None, "04A1B2C", ""],
    "id": ["", "x" * 25, 5, None, []],
    "face": [*_NOT_INT, 0, 7, -3],
    "state": _NOT_ENUM,
}
_FIELDS_BY_KIND = {
    "encoder": ["seat", "seq", "kind", "steps"],
    "button": ["seat", "seq", "kind", "button", "press"],
    "dice": ["seat", "seq", "kind", "roll", "dice", "id", "face", "state"],
    "card": ["seat", "seq", "kind", "uid"],
}


class Flood:
    """Generates the hostile messages and what each must be answered with."""

    def __init__(self, table: VirtualTable, played: list[Pending], rng: random.Random) -> None:
        # `played`: every event the seats sent before, each answered (ack or refusal).
        self.table = table
        self.rng = rng
        self.seq = {seat: SeqModel({p.seq for p in played if p.seat == seat})
                    for seat in range(1, SEATS + 1)}
        self.sent_payloads: dict[tuple[int, int], bytes] = {
            (p.seat, p.seq): messages.encode(p.event) for p in played}
        self.probe = copy.deepcopy(table.mirror)

    def topic(self, seat: int | str, leaf: str = topics.SEAT_EVENT) -> str:
        return f"risk/{TABLE}/seat/{seat}/{leaf}"

    def seat(self) -> int:
        return self.rng.randint(1, SEATS)

    def any_seq(self) -> int:
        # For messages the gate refuses before its tracker: any number will do.
        return self.rng.randint(1, MAX_COUNTER)

    # -- families ---------------------------------------------------------

    def garbage(self) -> Case:
        seat = self.seat()
        junk = bytes(self.rng.getrandbits(8) for _ in range(self.rng.randint(0, 80)))
        # A 0xFF byte can start neither UTF-8 text nor JSON: always malformed.
        payload = self.rng.choice((b"\xff" + junk, b"", b"{" + junk.replace(b"}", b"")))
        leaf = self.rng.choice((topics.SEAT_EVENT, topics.SEAT_STATUS))
        return Case("garbage", self.topic(seat, leaf), payload, (Expect(seat, "malformed", None),))

    def truncated(self) -> Case:
        seat = self.seat()
        whole = messages.encode(_event(seat, self.any_seq(), self.rng))
        cut = whole[: self.rng.randint(1, len(whole) - 1)]
        return Case("truncated", self.topic(seat), cut, (Expect(seat, "malformed", None),))

    def not_json(self) -> Case:
        seat = self.seat()
        seq = self.any_seq()
        if self.rng.random() < 0.5:
            text = self.rng.choice((
                "{'v':1,'t':'event','seat':%d,'seq':%d}",
                '{"v":1,"t":"event","seat":%d,"seq":%d,}',
            )) % (seat, seq)
            return Case("not_json", self.topic(seat), text.encode(),
                        (Expect(seat, "malformed", None),))
        constant = self.rng.choice(("NaN", "Infinity", "-Infinity"))
        text = (f'{{"v":1,"t":"event","seat":{seat},"seq":{seq},"kind":"encoder",'
                f'"steps":{constant}}}')
        # The contract gives a malformed reply no seq, NaN and Infinity included.
        return Case("not_json", self.topic(seat), text.encode(),
                    (Expect(seat, "malformed", None),))

    def not_object(self) -> Case:
        seat = self.seat()
        payload = self.rng.choice((b"[]", b"1", b'"event"', b"null", b"true", b"[{}]", b"3.5"))
        return Case("not_object", self.topic(seat), payload, (Expect(seat, "schema", None),))

    def wrong_field(self) -> Case:
        seat = self.seat()
        seq = self.any_seq()
        doc = _event(seat, seq, self.rng)
        name = self.rng.choice(_FIELDS_BY_KIND[doc["kind"]])
        value = self.rng.choice(_WRONG[name])
        delete = self.rng.random() < 0.15
        if name in ("id", "face", "state"):
            index = self.rng.randrange(len(doc["dice"]))
            die = doc["dice"][index]
            if delete:
                del die[name]
            else:
                die[name] = value
            path = f"dice[{index}].{name}"
        else:
            if delete:
                del doc[name]
            else:
                doc[name] = value
            path = name
        if name == "dice" and not delete and isinstance(value, list) and 1 <= len(value) <= 3:
            path = "dice[0]"  # a list of the right length: its first item is refused
        reply_seq = None if name == "seq" else seq
        return Case(f"wrong_{name}", self.topic(seat), _raw(doc),
                    (Expect(seat, "schema", reply_seq, path),))

    def wrong_type(self) -> Case:
        seat = self.seat()
        seq = self.any_seq()
        doc = _event(seat, seq, self.rng)
        choice = self.rng.choice(("evnt", "", 5, None, "ack", "view", "cmd", "board", "delete"))
        if choice == "delete":
            del doc["t"]
        else:
            doc["t"] = choice
        return Case("wrong_t", self.topic(seat), _raw(doc), (Expect(seat, "schema", seq),))

    def version(self) -> Case:
        seat = self.seat()
        seq = self.any_seq()
        doc = _event(seat, seq, self.rng)
        doc["v"] = self.rng.choice((0, 2, 3, -1, 99, MAX_COUNTER))
        return Case("version", self.topic(seat), _raw(doc),
                    (Expect(seat, "version", seq, "v"),))

    def version_type(self) -> Case:
        seat = self.seat()
        seq = self.any_seq()
        doc = _event(seat, seq, self.rng)
        value = self.rng.choice(("1", 1.0, True, None, [1], "delete"))
        if value == "delete":
            del doc["v"]
        else:
            doc["v"] = value
        return Case("version_type", self.topic(seat), _raw(doc),
                    (Expect(seat, "schema", seq, "v"),))

    def oversized(self) -> Case:
        seat = self.seat()
        seq = self.any_seq()
        if self.rng.random() < 0.7:
            doc = _event(seat, seq, self.rng)
            doc["pad"] = "x" * self.rng.randint(MAX_MESSAGE_BYTES, 3000)
            # An oversize payload is never parsed, so its seq is not known either.
            return Case("oversized", self.topic(seat), _raw(doc),
                        (Expect(seat, "too_large", None),))
        size = self.rng.choice((MAX_MESSAGE_BYTES + 1, 4096, 65536))
        return Case("oversized_junk", self.topic(seat), b"\xff" * size,
                    (Expect(seat, "too_large", None),))

    def other_seat(self) -> Case:
        # An event claiming seat `claimed` on the topic of seat `topic_seat`.
        topic_seat = self.seat()
        claimed = self.rng.choice([s for s in range(1, 7) if s != topic_seat])
        seq = self.any_seq()
        doc = _event(claimed, seq, self.rng)
        return Case("other_seat", self.topic(topic_seat), messages.encode(doc),
                    (Expect(topic_seat, "schema", seq, "seat"),))

    def status_junk(self) -> Case:
        seat = self.seat()
        form = self.rng.randrange(4)
        if form == 0:  # an event on the status topic: wrong type for the topic
            seq = self.any_seq()
            return Case("status_event", self.topic(seat, topics.SEAT_STATUS),
                        messages.encode(_event(seat, seq, self.rng)),
                        (Expect(seat, "schema", seq, "t"),))
        if form == 1:  # a birth on the event topic
            birth = messages.message("seat_status", seat=seat, online=True, session=1, boot=9)
            return Case("event_status", self.topic(seat), messages.encode(birth),
                        (Expect(seat, "schema", None, "t"),))
        doc = messages.message("seat_status", seat=seat, online=True, session=5, boot=77)
        if form == 2:
            doc["online"] = self.rng.choice(("yes", 1, None))
            path = "online"
        else:
            doc["seat"] = self.rng.choice([s for s in range(1, 7) if s != seat])
            path = "seat"
        return Case("status_schema", self.topic(seat, topics.SEAT_STATUS), _raw(doc),
                    (Expect(seat, "schema", None, path),))

    def unknown_seat(self) -> Case:
        seat = self.rng.choice((5, 6))
        form = self.rng.randrange(3)
        number = self.any_seq()
        seq: int | None = number
        if form == 0:
            payload = messages.encode(_event(seat, number, self.rng))
        elif form == 1:
            payload, seq = b"\xff garbage", None
        else:  # oversize: never parsed, so no seq
            payload, seq = _raw({**_event(seat, number, self.rng), "pad": "y" * 2000}), None
        leaf = self.rng.choice((topics.SEAT_EVENT, topics.SEAT_STATUS))
        return Case("unknown_seat", self.topic(seat, leaf), payload,
                    (Expect(seat, "unknown_seat", seq, "seat"),))

    def ignored(self) -> Case:
        seat = self.rng.choice(("0", "7", "9", "01", "x", "1a"))
        payload = self.rng.choice((
            messages.encode(_event(1, self.any_seq(), self.rng)), b"\xff", b"{}"))
        leaf = self.rng.choice((topics.SEAT_EVENT, topics.SEAT_STATUS))
        return Case("ignored", self.topic(seat, leaf), payload, ())

    def duplicate(self) -> Case | None:
        seat = self.seat()
        seq = self.seq[seat].duplicate(self.rng)
        if seq is None:
            return None
        payload = self.sent_payloads[(seat, seq)]  # the very bytes answered before
        return Case("duplicate", self.topic(seat), payload,
                    (Expect(seat, "duplicate", seq, "seq"),))

    def stale(self) -> Case | None:
        seat = self.seat()
        seq = self.seq[seat].stale(self.rng)
        if seq is None:
            return None
        # Content the game would accept right now: only the number refuses it.
        step = self.table.pilot.next_event()
        doc = _event(seat, seq, self.rng) if step is None or step[0] != seat \
            else dict(step[1], seq=seq)
        return Case("stale", self.topic(seat), messages.encode(doc),
                    (Expect(seat, "stale", seq, "seq"),))

    def not_allowed(self) -> Case | None:
        seat = self.seat()
        made = self._refused(seat, self.seq[seat].expected)
        if made is None:
            return None
        self.seq[seat].record(self.seq[seat].expected)
        return made[0]

    def _refused(self, seat: int, seq: int) -> tuple[Case, Expect] | None:
        # A valid event numbered `seq` that the game refuses, and its answer.
        refused = self._refused_event(seat)
        if refused is None:
            return None
        doc, error = refused
        doc["seq"] = seq
        if self.rng.random() < 0.2:
            doc["x_future"] = [1, {"a": None}]  # unknown fields are ignored (contract)
        payload = messages.encode(doc)
        self.sent_payloads[(seat, seq)] = payload
        armed = bool(self.probe.standing_commands(seat)) and doc["kind"] == "dice"
        expect = Expect(seat, error.code, seq, error.field)
        return (Case("not_allowed_armed_dice" if armed else "not_allowed", self.topic(seat),
                     payload, (expect,)), expect)

    def reordered(self) -> list[Case] | None:
        # The later of two events arrives first: held, unanswered, until the earlier
        # one comes; then both are answered, in order.
        seat = self.seat()
        first = self.seq[seat].expected
        gap = self.rng.randint(1, OUTBOX_CAPACITY - 1)
        early = self._refused(seat, first + gap)
        fills = [self._refused(seat, seq) for seq in range(first, first + gap)]
        if early is None or None in fills:
            return None
        cases = [Case("held", early[0].topic, early[0].payload, ())]
        if self.rng.random() < 0.3:  # a repeat of a held event: not answered again
            cases.append(Case("held", early[0].topic, early[0].payload, ()))
        for made in fills:
            assert made is not None
            cases.append(Case("reordered", made[0].topic, made[0].payload, (made[1],)))
        last = cases[-1]
        cases[-1] = Case(last.family, last.topic, last.payload, (*last.expect, early[1]))
        for _ in range(gap + 1):
            self.seq[seat].record(self.seq[seat].expected)
        return cases

    def far_ahead(self) -> Case:
        # Sequence poisoning: valid, but numbered beyond any genuine seat's outbox.
        seat = self.seat()
        seq = self.seq[seat].far_ahead(self.rng)
        payload = messages.encode(_event(seat, seq, self.rng))
        return Case("far_ahead", self.topic(seat), payload,
                    (Expect(seat, "not_allowed", seq, "seq"),))

    def resync(self) -> Case:
        seat = self.seat()
        seq = self.seq[seat].expected
        self.seq[seat].record(seq)
        payload = messages.encode(messages.message("event", seat=seat, seq=seq, kind="resync"))
        self.sent_payloads[(seat, seq)] = payload
        return Case("resync", self.topic(seat), payload, (Expect(seat, "ack", seq),))

    def _refused_event(self, seat: int) -> tuple[dict[str, Any], ProtocolError] | None:
        # A valid event the game refuses now: checked on a copy of the mirror, which
        # is thrown away whenever it accepts one.
        armed = self.probe.standing_commands(seat)
        for _ in range(8):
            doc = _event(seat, 1, self.rng)
            if armed and doc["kind"] == "dice" and self.rng.random() < 0.7:
                cmd = armed[0][1]
                doc["roll"] = max(0, cmd["roll"] + self.rng.choice((0, 0, -1, 1, 8, -8)))
                count = self.rng.choice((cmd["count"], max(1, cmd["count"] - 1), 3))
                state = self.rng.choice(("settled", "crooked"))
                doc["dice"] = [{"id": f"die-{i}", "face": self.rng.randint(1, 6),
                                "state": state if i == 0 else "settled"} for i in range(count)]
            outcome = self.probe.handle(seat, doc)
            if outcome.error is not None:
                return doc, outcome.error
            self.probe = copy.deepcopy(self.table.mirror)
        return None

    def cases(self, count: int) -> Iterator[Case]:
        families: list[tuple[Callable[[], Case | list[Case] | None], int]] = [
            (self.garbage, 6), (self.truncated, 6), (self.not_json, 3), (self.not_object, 2),
            (self.wrong_field, 16), (self.wrong_type, 3), (self.version, 3),
            (self.version_type, 2), (self.oversized, 3), (self.other_seat, 5),
            (self.status_junk, 4), (self.unknown_seat, 5), (self.ignored, 4),
            (self.duplicate, 10), (self.stale, 8), (self.not_allowed, 14), (self.resync, 2),
            (self.reordered, 1), (self.far_ahead, 3),
        ]
        makers = [maker for maker, _ in families]
        weights = [weight for _, weight in families]
        made = 0
        while made < count:
            case = self.rng.choices(makers, weights)[0]()
            for one in case if isinstance(case, list) else [] if case is None else [case]:
                made += 1
                yield one


def _answer(r: Received) -> tuple[int, str, int | None, str | None]:
    seat = int(r.topic.split("/")[3])
    assert r.doc is not None, f"undecodable answer on {r.topic}: {r.payload!r}"
    code = "ack" if r.topic.endswith("/ack") else str(r.doc["code"])
    return seat, code, r.doc.get("seq"), r.doc.get("field")


def _journal_snapshot(
    service: TableService,
) -> tuple[str, dict[int, tuple[int | None, list[int]]], int]:
    # The live actions, every seat input's sequence number, and the row count with
    # undone actions (a refused Back must not withdraw anything either).
    game = service.game_id
    return (service.journal.export(game),
            {seat: service.journal.input_seqs(game, seat) for seat in range(1, SEATS + 1)},
            len(service.journal.actions(game, include_undone=True)))


class _Errors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    # Without TCP_NODELAY mosquitto holds each small packet for the peer's delayed
    # ACK (~40 ms), which would make the game before the flood needlessly slow.
    with Mosquitto(mosquitto_binary(), tmp_path / "mosquitto",
                   extra_config=BROKER_NO_DELAY) as running:
        yield running


def _at_armed_battle(mirror: TableSession) -> bool:
    # Mid-game, with the attacker's dice armed: every family has something to hit.
    return (len(mirror.log) >= 150 and mirror.state.phase == st.ROLL
            and mirror.menu.stage == menus.DICE
            and any(mirror.standing_commands(seat) for seat in mirror.seats))


@pytest.mark.slow
def test_flood_of_hostile_messages_changes_nothing(broker: Mosquitto, tmp_path: Path) -> None:
    errors = _Errors()
    logging.getLogger("risktable").addHandler(errors)
    leds = LedLog()
    service = start_service(broker.host, broker.port, TABLE, SEATS, tmp_path / "hub", leds)
    watcher = Watcher(broker.host, broker.port, TABLE)
    clients: dict[int, SeatClient] = {}
    try:
        clients.update(seat_clients(broker.host, broker.port, TABLE, SEATS))
        table = VirtualTable(*mirror_table(service.rules, SEED), clients)
        played: list[Pending] = []
        while not _at_armed_battle(table.mirror) and len(played) < 3000:
            pending = table.send_next()
            assert pending is not None, table.mirror.menu
            table.settle(pending)
            played.append(pending)
        assert _at_armed_battle(table.mirror), f"no armed battle after {len(played)} inputs"
        if any(n > 1 for client in clients.values() for n in client.sends.values()):
            # A seat retransmitted an event whose answer was slow (a loaded machine):
            # let the hub's duplicate answer to it arrive before the flood's count starts.
            time.sleep(1.0)
        # The seat's answer can overtake, on another connection, the board and views
        # the hub sent before it: wait until the watcher has the answer too, so the
        # flood's count starts after everything the game published.
        last = played[-1]
        answer_topics = {topics.seat(TABLE, last.seat, leaf)
                         for leaf in (topics.SEAT_ACK, topics.SEAT_ERROR)}
        watcher.wait_until(lambda got: any(
            r.topic in answer_topics and r.doc is not None and r.doc.get("seq") == last.seq
            for r in got), 10)
        assert service.session.state == table.mirror.state
        # The views, board and LED scene of that input follow its answer: a resync,
        # answered after everything the hub sent before it, marks the end of them.
        flood = Flood(table, played, random.Random(SEED))
        quiet = flood.resync()
        quiet_ack = topics.seat(TABLE, quiet.expect[0].seat, topics.SEAT_ACK)
        watcher.publish(quiet.topic, quiet.payload)
        watcher.wait_until(lambda got: any(
            r.topic == quiet_ack and r.doc is not None and r.doc.get("seq") == quiet.expect[0].seq
            for r in got), 10)

        before_journal = _journal_snapshot(service)
        before_state = service.session.state
        before_ui = service.session.ui_state()
        armed = {seat: service.session.standing_commands(seat) for seat in service.session.seats}
        leds_before = len(leds.scenes)
        mark = len(watcher.received)
        views = {r.topic: r.doc for r in watcher.received if r.topic.endswith("/view")}

        cases = list(flood.cases(FLOOD))
        expected = [e for c in cases for e in c.expect]
        answered_before = watcher.answers
        sent_answered = 0
        for start in range(0, len(cases), BATCH):
            batch = cases[start:start + BATCH]
            for case in batch:
                watcher.publish(case.topic, case.payload)
            sent_answered += sum(len(c.expect) for c in batch)
            watcher.wait_answers(answered_before + sent_answered, 30)

        # A last legal-but-inert input: once it is answered, everything before it
        # (the ignored messages too) has been handled.
        sentinel = flood.resync()
        watcher.publish(sentinel.topic, sentinel.payload)
        expected.extend(sentinel.expect)
        watcher.wait_answers(answered_before + len(expected), 30)

        during = watcher.received[mark:]
        # Nothing reached seats 0, 7, 01, x: only real seat numbers are answered.
        assert {r.topic.split("/")[3] for r in during} <= {str(s) for s in range(1, 7)}
        got = [_answer(r) for r in replies_of(during, TABLE)]
        want = [(e.seat, e.code, e.seq, e.field) for e in expected]
        # Every answered message got exactly one answer with the right code, seq
        # and field (the field only where the model names it), in publish order.
        assert len(got) == len(want), Counter(g[1] for g in got) - Counter(w[1] for w in want)
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            field_ok = w[3] is None or g[3] == w[3]
            assert g[:3] == w[:3] and field_ok, f"answer {i}: got {g}, expected {w}"
        families = Counter(c.family for c in cases)
        assert len(cases) >= 10_000 and families["ignored"] > 100
        for family in ("duplicate", "stale", "not_allowed", "unknown_seat", "version",
                       "oversized", "truncated", "garbage", "other_seat", "far_ahead",
                       "held", "reordered"):
            assert families[family] > 100, families
        # Wrong roll numbers, dice counts and crooked dice from the seat that is armed.
        assert families["not_allowed_armed_dice"] > 50, families
        codes = Counter(w[1] for w in want)
        assert set(codes) == {"malformed", "schema", "version", "too_large", "unknown_seat",
                              "duplicate", "stale", "not_allowed", "ack"}, codes

        # Nothing changed: journal, rules state, choice state, board, LEDs, views.
        assert _journal_snapshot(service) == before_journal
        assert service.session.state == before_state
        assert service.session.ui_state() == before_ui
        assert service.session.state == table.mirror.state
        assert len(leds.scenes) == leds_before
        assert not [r for r in during if r.topic.endswith("/board")]
        for r in during:
            if r.topic.endswith("/view"):
                assert r.doc == views[r.topic], f"a view changed: {r.topic}"
        # A resync re-sends the standing command of an armed seat, and a refused roll of
        # the armed number is asked again (disarm, then the same arm); nothing else.
        asked_again = 0
        for seat, standing in armed.items():
            sent = [r.doc for r in during if r.topic == topics.seat(TABLE, seat,
                                                                     topics.SEAT_CMD)]
            for i, cmd in enumerate(sent):
                if cmd is not None and cmd["cmd"] == "disarm":
                    arm = sent[i + 1] if i + 1 < len(sent) else None
                    assert arm in [c for _, c in standing] and arm is not None and \
                        cmd["roll"] == arm["roll"], sent[i:i + 2]
                    asked_again += 1
                else:
                    assert cmd in [c for _, c in standing], cmd
        assert asked_again > 0
        resynced_armed = {e.seat for e in expected if e.code == "ack" and armed[e.seat]}
        commanded = {int(r.topic.split("/")[3]) for r in during if r.topic.endswith("/cmd")}
        assert resynced_armed <= commanded

        # A birth (a reconnect: no new boot) gets the armed roll re-sent too.
        armed_seat = next(seat for seat, cmds in armed.items() if cmds)
        birth_mark = len(watcher.received)
        watcher.publish(topics.seat(TABLE, armed_seat, topics.SEAT_STATUS), messages.encode(
            messages.message("seat_status", seat=armed_seat, online=True, session=1)))
        cmd_topic = topics.seat(TABLE, armed_seat, topics.SEAT_CMD)
        watcher.wait_until(lambda got: any(r.topic == cmd_topic for r in got[birth_mark:]), 10)
        assert [r.doc for r in watcher.received[birth_mark:] if r.topic == cmd_topic] == \
            [cmd for _, cmd in armed[armed_seat]]

        # The hub plays on: more legal inputs, numbered past the flood's, all acked.
        for seat, client in clients.items():
            client.outbox.next_seq = flood.seq[seat].expected
        inputs_before = sum(len(seqs) for _, seqs in before_journal[1].values())
        acked = len(table.tally.acked)
        for _ in range(60):
            answer = table.step()
            assert answer is not None and answer.ack, answer
        assert len(table.tally.acked) == acked + 60
        assert service.session.state == table.mirror.state
        after = _journal_snapshot(service)[1]
        assert sum(len(seqs) for _, seqs in after.values()) == inputs_before + 60
        assert service.hub.link.connected.is_set()
        assert not errors.records, [r.getMessage() for r in errors.records]
    finally:
        logging.getLogger("risktable").removeHandler(errors)
        for client in clients.values():
            client.close()
        watcher.close()
        service.stop()
