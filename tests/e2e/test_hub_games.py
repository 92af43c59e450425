"""Whole games refereed by the hub over a real broker, driven only by seat events.

mosquitto, the hub's :class:`TableService` (in this process) and one
protocol-level :class:`SeatClient` per seat; autopilots decide what each seat
does and a mirror session checks every answer the hub gives
(:mod:`tests.support.virtual_table`). Now and then a seat that may not act
presses Confirm, so the hub also has refusals to get right.

One rule set is played whole here: master_1993, whose held rolls send the seats the
most kinds of dice commands. Every rule set is played whole by the service in process
against the same mirror (tests/hub/test_table_service_games.py): what the broker adds
(births and boots, the gate's numbering, retained views and board, answers that cross
a retransmission) does not depend on the rule set. A classic game goes on across a
broker restart below.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from riskproto import messages, topics
from risktable.broker_address import BrokerAddress
from risktable.config import BrokerConfig, HubConfig, LedConfig, TableConfig
from risktable.rules.goals import how_won
from risktable.service.table_service import TableService, chance_rng
from risktable.table.public import board_message
from tests.hub.test_table_service_games import (
    GAMES,
    HUB_SEED,
    POKE_EVERY,
    check_the_end,
    check_the_journal,
    off_turn_seat,
    rules_for,
)
from tests.support.mosquitto import Mosquitto
from tests.support.mqtt_client import Recorder
from tests.support.seat_client import BROKER_NO_DELAY, Answer, SeatClient
from tests.support.tools import mosquitto_binary
from tests.support.virtual_table import VirtualTable, mirror_table
from tests.support.waiting import wait_until
from tests.table.inputs import CARDS, cards_of

TABLE = "e2e-games"
# The rule sets played whole over the broker (tests/hub/test_table_service_games.py).
OVER_THE_BROKER = [game for game in GAMES if game.id == "master_1993-3"]


def hub_config(broker: Mosquitto, data_dir: Path, name: str, players: int) -> HubConfig:
    return HubConfig(
        broker=BrokerConfig(BrokerAddress(broker.host, broker.port), keepalive=5),
        table=TableConfig(TABLE, players, name),
        leds=LedConfig(enabled=False), panel_enabled=False, data_dir=data_dir,
    )


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    """A broker of the test's own, without Nagle's delay (see ``BROKER_NO_DELAY``)."""
    with Mosquitto(mosquitto_binary(), tmp_path / "mosquitto",
                   extra_config=BROKER_NO_DELAY) as started:
        yield started


@pytest.fixture
def seats_of(broker: Mosquitto) -> Iterator[dict[int, SeatClient]]:
    """The test's seat clients by seat number (filled by :func:`connect`), closed after it."""
    clients: dict[int, SeatClient] = {}
    yield clients
    for client in clients.values():
        client.close()


def connect(clients: dict[int, SeatClient], broker: Mosquitto, players: int) -> None:
    for seat in range(1, players + 1):
        clients[seat] = SeatClient(broker.host, broker.port, TABLE, seat, boot=100 + seat).start()


class OffTurnPresses:
    """Every ``POKE_EVERY`` events, a Confirm press from a seat the game is not waiting
    on (nor waiting for dice from); ``sent`` counts them."""

    def __init__(self) -> None:
        self.sent = 0

    def __call__(self, table: VirtualTable, n: int) -> None:
        if n % POKE_EVERY != POKE_EVERY // 2:
            return
        idle = off_turn_seat(table.mirror)
        if idle is not None:
            table.settle(table.send(idle, {"kind": "button", "button": "confirm",
                                           "press": "short"}))
            self.sent += 1


def final_views_name_the_winner(clients: dict[int, SeatClient], winner: int,
                                revealed: tuple[str, ...] = ()) -> None:
    """Every seat's last view names the winner, and then what they reveal (a mission)."""
    for seat, client in clients.items():
        expected = ["You won!"] if seat == winner else [f"Seat {winner} won"]
        expected += revealed
        view = client.wait_for_view(lambda v, e=expected: v.get("lines") == e)  # type: ignore[misc]
        assert view["phase"] == "over" and view["active"] is False


def retained_board(broker: Mosquitto, expected: dict[str, Any]) -> dict[str, Any]:
    """The retained board once it is ``expected`` (within 10 s), else the last one seen.

    The hub publishes the board after the input's ack and views, so a test that has
    seen those may still find the board before it retained; the one it waits for
    follows on the same subscription."""
    observer = Recorder(broker.host, broker.port, "e2e-observer")
    boards: list[dict[str, Any]] = []

    def board(topic: str, doc: dict[str, Any] | None, retained: bool) -> bool:
        if topic == topics.board(TABLE) and doc is not None:
            boards.append(doc)
            return doc == expected
        return False

    try:
        observer.subscribe(topics.board(TABLE))
        with contextlib.suppress(AssertionError):  # not within 10 s: the last one is shown
            observer.wait_for(board)
        assert boards, "no board retained"
        return boards[-1]
    finally:
        observer.close()


@pytest.mark.slow
@pytest.mark.parametrize(("name", "players", "options", "seed"), OVER_THE_BROKER)
def test_a_whole_game_refereed_by_the_hub_matches_the_mirror(
        broker: Mosquitto, seats_of: dict[int, SeatClient], tmp_path: Path,
        name: str, players: int, options: dict[str, str], seed: int) -> None:
    rules = rules_for(name, players, options)
    connect(seats_of, broker, players)
    service = TableService(hub_config(broker, tmp_path / "hub", name, players),
                           rules=rules, card_uids=cards_of(rules.options.deck), seed=HUB_SEED)
    # The hub deals the secret missions from its seeded RNG; the mirror draws from the
    # same one (no bots here use it first), so both deal the same missions.
    mirror, pilot = mirror_table(rules, seed, chance_rng(HUB_SEED, service.game_id, 0))
    service.start()
    try:
        table = VirtualTable(mirror, pilot, seats_of)
        pokes = OffTurnPresses()
        table.play(between=pokes)
        final = mirror.state
        winner, revealed = check_the_end(mirror, rules)
        final_views_name_the_winner(seats_of, winner, tuple(revealed))
        assert retained_board(broker, board_message(final)) == board_message(final)
        game = service.game_id
    finally:
        service.stop()

    tally = table.tally
    # Only the off-turn presses were refused, each as the mirror predicted (settle checks
    # the code), and nothing else came back as an error.
    assert len(tally.refused) == pokes.sent > 0
    assert {code for _, _, code in tally.refused} == {"not_allowed"}
    assert not tally.duplicates
    late = [a for c in seats_of.values() for a in c.late_answers]
    assert all(a.code == "duplicate" for a in late), late  # a retransmission crossing an ack

    acked = {seat: [seq for s, seq in tally.acked if s == seat] for seat in seats_of}
    boots = check_the_journal(tmp_path / "hub", game, mirror, acked)
    assert boots == {seat: client.boot for seat, client in seats_of.items()}


def test_a_seat_that_reboots_or_resyncs_is_armed_again(
        broker: Mosquitto, seats_of: dict[int, SeatClient], tmp_path: Path) -> None:
    connect(seats_of, broker, 3)
    service = TableService(hub_config(broker, tmp_path / "hub", "classic", 3), card_uids=CARDS)
    service.start()
    try:
        # The opening roll: one die armed on every seat. Seat 2 asks for everything once.
        seat2 = seats_of[2]
        assert seat2.request({"kind": "resync"}) == Answer(1)
        view = seat2.wait_for_view(lambda v: v.get("ring") == {"mode": "spin"})
        [(_, arm)] = service.session.standing_commands(2)

        # A reboot: a new connection and a new boot, numbering from 1 again. The birth
        # brings the view (retained) and the armed roll (re-sent: commands are not retained).
        seat2.close()
        seats_of[2] = reborn = SeatClient(broker.host, broker.port, TABLE, 2, boot=999).start()
        wait_until(lambda: reborn.commands == [arm])
        assert reborn.view == view
        # A resync re-sends it too, before the ack.
        assert reborn.request({"kind": "resync"}) == Answer(1)
        assert reborn.commands == [arm, arm]
        reading = {"kind": "dice", "roll": arm["roll"],
                   "dice": [{"id": "d1", "face": 4, "state": "settled"}]}
        assert reborn.request(reading) == Answer(2)
        # The ack goes out once the reading is journalled; the disarm follows it.
        disarm = messages.message("cmd", cmd="disarm", roll=arm["roll"])
        wait_until(lambda: reborn.commands[-1] == disarm)
    finally:
        service.stop()


def test_a_refused_roll_is_asked_again_and_a_new_game_ends_the_old_rolls(
        broker: Mosquitto, seats_of: dict[int, SeatClient], tmp_path: Path) -> None:
    # A seat keeps a roll it has sent until the hub disarms it (firmware seat/dice.py):
    # the hub asks for a refused roll again by a disarm and the same arm, and ends the
    # rolls of a game it abandons, whose numbers the new game's rolls may reuse.
    connect(seats_of, broker, 3)
    service = TableService(hub_config(broker, tmp_path / "hub", "classic", 3), card_uids=CARDS)
    service.start()

    def disarms(seat: int) -> list[dict[str, Any]]:
        return [c for c in seats_of[seat].commands if c["cmd"] == "disarm"]

    try:
        seat1 = seats_of[1]
        arms = {seat: service.session.standing_commands(seat)[0][1] for seat in seats_of}
        arm = arms[1]
        wait_until(lambda: arm in seat1.commands)
        disarm = messages.message("cmd", cmd="disarm", roll=arm["roll"])
        service.set_paused(True)
        reading = {"kind": "dice", "roll": arm["roll"],
                   "dice": [{"id": "d1", "face": 4, "state": "settled"}]}
        refused = seat1.request(reading)
        assert refused.code == "not_allowed" and "paused" in refused.detail, refused
        wait_until(lambda: seat1.commands[-2:] == [disarm, arm])
        service.set_paused(False)

        service.new_game()
        for seat in seats_of:
            old = messages.message("cmd", cmd="disarm", roll=arms[seat]["roll"])
            [(_, new_arm)] = service.session.standing_commands(seat)
            wait_until(lambda seat=seat, old=old, new_arm=new_arm: seats_of[seat].commands[
                -2:] == [old, new_arm] and len(disarms(seat)) == (2 if seat == 1 else 1))
    finally:
        service.stop()


RESTART_AT = 120  # events into the game


@pytest.mark.slow
def test_a_game_goes_on_across_a_broker_restart(
        broker: Mosquitto, seats_of: dict[int, SeatClient], tmp_path: Path) -> None:
    # The broker keeps nothing across a restart here (persistence off): the hub must
    # publish its retained status, board and views again when it reconnects, and the
    # seats' pending inputs must still be answered once each.
    rules = rules_for("classic", 3, {})
    mirror, pilot = mirror_table(rules, 5)
    connect(seats_of, broker, 3)
    links: list[bool] = []
    service = TableService(hub_config(broker, tmp_path / "hub", "classic", 3), rules=rules,
                           card_uids=CARDS, on_connection=links.append)
    service.start()

    def restart(table: VirtualTable, n: int) -> None:
        if n != RESTART_AT:
            return
        broker.stop()
        wait_until(lambda: links[-1:] == [False])
        time.sleep(1.0)
        broker.start()
        wait_until(lambda: links[-1:] == [True], timeout=30)
        # The seats reconnect on their own clocks: the next input waits for them.
        wait_until(lambda: all(c.connected() for c in seats_of.values()), timeout=30)
        # Retained state republished by the hub: a newcomer sees it at once.
        assert retained_board(broker, board_message(table.mirror.state)) == board_message(
            table.mirror.state)

    try:
        table = VirtualTable(mirror, pilot, seats_of)
        table.play(between=restart)
        final = mirror.state
        assert how_won(final) == ("capitals" if rules.options.goal == "capitals" else "conquest")
        # Connected, lost once at the restart, connected again: never a second loss.
        assert links == [True, False, True]
        final_views_name_the_winner(seats_of, mirror.seats[final.winner])
        assert retained_board(broker, board_message(final)) == board_message(final)
        observer = Recorder(broker.host, broker.port, "e2e-after-restart")
        try:
            observer.subscribe(topics.hub_status(TABLE))
            observer.subscribe(topics.seat(TABLE, 1, topics.SEAT_VIEW))
            _, status, retained = observer.wait_for(lambda t, m, r: t == topics.hub_status(TABLE))
            assert retained and status is not None and status["online"] is True
            _, view, retained = observer.wait_for(
                lambda t, m, r: t == topics.seat(TABLE, 1, topics.SEAT_VIEW))
            assert retained and view is not None and view["phase"] == "over"
        finally:
            observer.close()
    finally:
        service.stop()
    assert not table.tally.duplicates
