"""The coach at the seat (docs/bots.md): a long press of Confirm shows the asking seat
what the hard bot would do now, on its own display only, worked out from what that
seat may see; the hint changes nothing of the game, is never journalled as a move,
and goes away at the seat's next input or the next move. A seat listed in
``[table] coach`` has its hint on the live board page too."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from riskproto import messages, topics
from risktable.broker_address import BrokerAddress
from risktable.config import (
    BrokerConfig,
    ConfigError,
    HubConfig,
    LedConfig,
    TableConfig,
    parse_config,
)
from risktable.rules import Config
from risktable.rules.bots import HeuristicBot
from risktable.rules.bots.hard import HardBot
from risktable.rules.bots.seat_view import seat_view
from risktable.rules.state import ATTACK, REINFORCE, State
from risktable.service.table_service import TableService
from risktable.table import menus
from risktable.table.autopilot import Autopilot
from risktable.table.coach import COACH_SEED, Advice
from risktable.table.public import scene_message
from risktable.table.session import TableSession
from tests.support.mosquitto import Mosquitto
from tests.support.mqtt_client import Recorder
from tests.support.seat_client import SeatClient
from tests.table.inputs import CARDS, UIDS

TABLE = "coach"


def hint_event(seat: int, seq: int) -> dict[str, Any]:
    return messages.validate(messages.message("event", seat=seat, seq=seq, kind="button",
                                              button="confirm", press="long"))


def play_until(session: TableSession, pilot: Autopilot, ready: Any,
                send: Any = None) -> tuple[int, int]:
    """Play the autopilot's events into ``send`` (default the session) until ``ready``
    says the seat the game waits on may ask for a hint; returns (seat, its last seq)."""
    handle = send or (lambda seat, event: session.handle(seat, event).error)
    for _ in range(20_000):
        menu = session.menu
        if menu.player >= 0 and menu.stage not in (menus.DICE, menus.CARD) \
                and ready(session.state, menu):
            seat = session.seats[menu.player]
            return seat, pilot._seq[seat]
        step = pilot.next_event()
        if step is None:  # a bot seat the session plays itself
            assert session.step_bots() is not None
            continue
        assert handle(*step) is None
    raise AssertionError("the position never came")


def reinforcing(state: State, menu: menus.Menu) -> bool:
    # A turn's reinforcement after the setup, with the pool still whole.
    return state.phase == REINFORCE and state.turn >= 4 and menu.stage == menus.PLACE


def pilot_for(session: TableSession, seed: int = 3) -> Autopilot:
    return Autopilot(session, {seat: HeuristicBot(seed * 10 + seat) for seat in session.seats},
                     UIDS, random.Random(seed))


def test_a_hint_shows_the_hard_bots_move_on_the_asking_seat_only_and_changes_nothing() -> None:
    session = TableSession(Config(players=3), [1, 2, 3], CARDS, coached=())
    pilot = pilot_for(session)
    seat, seq = play_until(session, pilot, reinforcing)
    player = session.seats.index(seat)
    state, log, ui, views = session.state, session.log, session.ui_state(), {
        s: session.view(s) for s in session.seats}

    outcome = session.handle(seat, hint_event(seat, seq + 1))
    assert outcome.error is None and not outcome.actions and not outcome.commands
    assert list(outcome.views) == [seat]  # the other seats see nothing of it
    lines = outcome.views[seat]["lines"]
    # What the hard bot decides for this seat, from what the seat may see.
    expected = HardBot(COACH_SEED).choose(seat_view(state, player))
    assert lines[0] == f"Hint: Place {expected.armies} armies"  # type: ignore[union-attr]
    assert lines[1] == f"on {state.config.board.territory_names[expected.territory]}"  # type: ignore[union-attr]
    assert 2 <= len(lines) <= 4 and all(len(line) <= 24 for line in lines)
    # Nothing of the game moved: state, record, half-made choice, the other screens.
    assert session.state is state and session.log == log and session.ui_state() == ui
    assert {s: session.view(s) for s in session.seats} == views
    # Not a coached seat: the board page gets nothing.
    assert session.public_hint() is None

    # The seat's next input takes the hint down: its own screen again.
    turned = session.handle(seat, pilot._event(seat, "encoder", steps=1)[1])
    assert turned.error is None
    assert not turned.views[seat]["lines"][0].startswith("Hint:")


def test_a_hint_ends_at_a_refused_input_and_at_the_next_move() -> None:
    session = TableSession(Config(players=3), [1, 2, 3], CARDS, coached=[1, 2, 3])
    pilot = pilot_for(session, seed=4)
    seat, seq = play_until(session, pilot, reinforcing)
    shown = session.handle(seat, hint_event(seat, seq + 1))
    assert shown.views[seat]["lines"][0].startswith("Hint:")
    assert session.public_hint() is not None
    # A refused input (Back with nothing to take back) brings the seat's screen back.
    refused = session.handle(seat, pilot._event(seat, "button", button="back",
                                                press="short")[1])
    assert refused.error is not None
    assert refused.views == {seat: session.view(seat)}
    assert session.public_hint() is None
    # Asked again, then a move of the game (the seat's placement) takes it down too.
    session.handle(seat, hint_event(seat, pilot._seq[seat] + 1))
    pilot._seq[seat] += 1
    moved = session.handle(*pilot._event(seat, "button", button="confirm", press="short"))
    assert moved.actions and not moved.views[seat]["lines"][0].startswith("Hint:")
    assert session.public_hint() is None


def test_only_the_seat_the_game_waits_on_gets_a_hint() -> None:
    session = TableSession(Config(players=3), [1, 2, 3], CARDS,
                           bots={3: HeuristicBot(3)}, dice=random.Random(1))
    pilot = Autopilot(session, {1: HeuristicBot(1), 2: HeuristicBot(2)}, UIDS, random.Random(1))
    seat, _ = play_until(session, pilot, lambda s, m: m.stage == menus.CLAIM_STAGE
                          and s.player == 0)
    other = 2 if seat == 1 else 1
    refused = session.handle(other, hint_event(other, 900))
    assert refused.error is not None and refused.error.code == "not_allowed"
    assert refused.error.message.endswith("is playing: wait for your turn")
    assert not refused.views
    bot = session.handle(3, hint_event(3, 901))
    assert bot.error is not None and "bot plays this seat" in bot.error.message
    claimed = session.handle(seat, hint_event(seat, 902))
    assert claimed.views[seat]["lines"][0].startswith("Hint: Claim")


def test_the_hint_reads_nothing_the_seat_may_not_see() -> None:
    # Other players' hands and the draw pile swapped: the same hint, in every phase seen.
    session = TableSession(Config(players=4), [1, 2, 3, 4], CARDS)
    pilot = pilot_for(session, seed=5)
    seen = 0
    for ready in (reinforcing, lambda s, m: s.phase == ATTACK and s.turn >= 8
                  and m.stage == menus.ATTACK_FROM):
        seat, _ = play_until(session, pilot, ready)
        state = session.state
        player = session.seats.index(seat)
        others = [q for q in range(4) if q != player]
        pool = sorted(c for q in others for c in state.hands[q]) + list(state.draw_pile)
        random.Random(seen).shuffle(pool)
        hands = list(state.hands)
        for q in others:
            hands[q], pool = tuple(pool[:len(state.hands[q])]), pool[len(state.hands[q]):]
        swapped = state._replace(hands=tuple(hands), draw_pile=tuple(pool))
        assert swapped != state or not pool
        assert Advice(swapped, player).steps == Advice(state, player).steps
        assert Advice(state, player).lines()  # something to tell
        seen += 1
    assert seen == 2


def test_a_coached_seats_hint_goes_in_the_scene_without_its_secrets() -> None:
    session = TableSession(Config(players=3), [1, 2, 3], CARDS, coached=[1, 2, 3])
    pilot = pilot_for(session, seed=6)
    seat, seq = play_until(session, pilot, reinforcing)
    session.handle(seat, hint_event(seat, seq + 1))
    hint = session.public_hint()
    assert hint is not None and hint["seat"] == seat and hint["k"] in ("place", "trade")
    scene = scene_message(session.state, *session.scene(), session.bot_levels, hint)
    assert messages.validate(scene)["hint"] == hint
    assert "cards" not in hint  # which cards a trade would be: never


def test_the_configuration_lists_the_coached_seats() -> None:
    assert parse_config("[table]\nseats = 4\ncoach = [2, 4]").table.coach == {2, 4}
    assert parse_config("[table]\nseats = 4").table.coach == frozenset()
    with pytest.raises(ConfigError, match="coach"):
        parse_config("[table]\nseats = 4\ncoach = [5]")


def _hub_config(mosquitto: Mosquitto, data: Path, coach: frozenset[int]) -> HubConfig:
    return HubConfig(broker=BrokerConfig(BrokerAddress(mosquitto.host, mosquitto.port)),
                     table=TableConfig(TABLE, 3, "classic", coach=coach),
                     leds=LedConfig(enabled=False), panel_enabled=False, data_dir=data)


@pytest.mark.parametrize("coached", [False, True], ids=["private", "coached"])
def test_the_hub_journals_no_hint_and_a_restart_carries_on_after_it(
        mosquitto: Mosquitto, tmp_path: Path, coached: bool) -> None:
    data = tmp_path / "hub"
    service = TableService(_hub_config(mosquitto, data, frozenset({1, 2, 3} if coached
                                                                   else ())),
                           card_uids=CARDS, seed=9)
    service.start()
    watcher = Recorder(mosquitto.host, mosquitto.port, "coach-watcher")
    watcher.subscribe(f"{topics.ROOT}/{TABLE}/#")
    seat_client: SeatClient | None = None
    try:
        # The setup and the first turns go straight to the service; the hint and what
        # follows it come from a seat over the broker, numbered by the hub's gate.
        pilot = pilot_for(service.session, seed=7)
        seat, _ = service.inspect(lambda session: play_until(
            session, pilot, reinforcing, service._on_event))
        game = service.game_id
        actions = len(service.journal.actions(game))
        inputs = service.journal.input_seqs(game, seat)[1]
        state = service.session.state
        seat_client = SeatClient(mosquitto.host, mosquitto.port, TABLE, seat).start()
        seat_client.wait_for_view(lambda view: view.get("active") is True)
        heard = len(watcher.messages)

        answer = seat_client.request(hint_event(seat, 1))
        assert answer.ack
        view = seat_client.wait_for_view(lambda v: v["lines"][0].startswith("Hint:"))
        assert view["active"] is True
        if coached:
            _, scene, _ = watcher.wait_for(lambda topic, msg, _: topic.endswith("/scene")
                                           and bool(msg) and "hint" in msg)
            assert scene is not None and scene["hint"]["seat"] == seat
        # No action, no input row: only the hint's number, answered.
        assert len(service.journal.actions(game)) == actions
        assert service.journal.input_seqs(game, seat)[1] == inputs
        assert service.journal.answered_seqs(TABLE, seat)[seat_client.boot] == 1
        assert service.session.state is state
    finally:
        service.stop()
    # The hub's last word (its status going offline) comes after everything it published
    # for the hint: the hint went to this seat's view alone, and to the scene only for
    # a coached seat.
    watcher.wait_for(lambda topic, msg, _: topic.endswith("/hub/status") and bool(msg)
                     and msg["online"] is False)
    told = [(t, p) for t, p, _ in watcher.messages[heard:] if b"Hint:" in p or b'"hint"' in p]
    assert {t for t, _ in told} == {f"{topics.ROOT}/{TABLE}/seat/{seat}/view",
                                    *([f"{topics.ROOT}/{TABLE}/scene"] if coached else [])}

    # A restarted hub replays the same game and takes the seat's next number.
    restarted = TableService(_hub_config(mosquitto, data, frozenset()), card_uids=CARDS,
                             seed=9)
    restarted.start()
    try:
        assert restarted.session.state == state
        pilot.session = restarted.session
        sent = []
        while len(restarted.journal.actions(game)) == actions:  # to the next placement
            step = restarted.inspect(lambda session: pilot.next_event())
            assert step is not None and step[0] == seat
            answer = seat_client.request(step[1])
            assert answer.ack, answer
            sent.append(answer.seq)
        assert sent[0] == 2  # the number after the hint's
        seat_client.wait_for_view(lambda v: not v["lines"][0].startswith("Hint:"))
        # Under the seat's boot the journal holds its inputs from 2 on: the hint, none.
        assert restarted.journal.input_seqs(game, seat) == (seat_client.boot, sent)
    finally:
        seat_client.close()
        watcher.close()
        restarted.stop()
