"""``TableSession.handle(views=False)`` with ``with_views``: the hub's way of acknowledging
an input before working out the seats' screens (issue 17) says exactly what the one-step
``handle`` says, and no view change is lost when something reads the session in between."""

from __future__ import annotations

from riskproto.messages import E_NOT_ALLOWED
from risktable.game_rules import rules_config
from risktable.rules.state import GAME_OVER
from risktable.table.session import Outcome, TableSession
from tests.support.virtual_table import mirror_table
from tests.table.inputs import cards_of

SEATS = 4


def _sessions(seed: int) -> tuple[TableSession, TableSession, TableSession, object]:
    config = rules_config("classic", SEATS)
    mirror, pilot = mirror_table(config, seed)
    cards = cards_of(config.options.deck)
    seats = list(range(1, SEATS + 1))
    return mirror, TableSession(config, seats, cards), TableSession(config, seats, cards), pilot


def _same(one_step: Outcome, deferred: Outcome) -> None:
    assert deferred.views == one_step.views
    assert deferred.highlight == one_step.highlight
    assert deferred.actions == one_step.actions
    assert deferred.commands == one_step.commands
    assert deferred.retracted == one_step.retracted
    assert deferred.dice == one_step.dice


def test_a_whole_game_deferred_says_what_handle_says() -> None:
    mirror, plain, deferred, pilot = _sessions(7)
    inputs = 0
    while mirror.state.phase != GAME_OVER:
        seat, event = pilot.next_event()  # type: ignore[attr-defined]
        mirror.handle(seat, event)
        one_step = plain.handle(seat, event)
        half = deferred.handle(seat, event, views=False)
        assert half.views == {}, "views=False worked the views out anyway"
        # What the hub reads before the ack: the journal's ui state, unaffected.
        assert deferred.ui_state() == plain.ui_state()
        _same(one_step, deferred.with_views(half))
        inputs += 1
    assert inputs > 1000
    assert deferred.state == plain.state


def test_reading_the_session_in_between_loses_no_view() -> None:
    # A checkpoint or a view() between handle(views=False) and with_views catches the
    # views up; the changes still reach the outcome, reported by the next one at the
    # latest, never dropped.
    mirror, plain, deferred, pilot = _sessions(3)
    for n in range(600):
        seat, event = pilot.next_event()  # type: ignore[attr-defined]
        mirror.handle(seat, event)
        one_step = plain.handle(seat, event)
        half = deferred.handle(seat, event, views=False)
        if n % 3 == 0:
            deferred.checkpoint()
        elif n % 3 == 1:
            assert deferred.view(seat) == plain.view(seat)
        _same(one_step, deferred.with_views(half))
    for seat in range(1, SEATS + 1):
        assert deferred.view(seat) == plain.view(seat)


def test_a_refused_input_deferred_changes_nothing() -> None:
    _, plain, deferred, _ = _sessions(1)
    before = {seat: deferred.view(seat) for seat in range(1, SEATS + 1)}
    # Seat 2 is not the one asked at the start: a button press is refused.
    event = {"kind": "button", "button": "confirm"}
    assert plain.handle(2, event).error is not None
    outcome = deferred.handle(2, event, views=False)
    assert outcome.error is not None and outcome.error.code == E_NOT_ALLOWED
    assert deferred.with_views(outcome).views == {}
    assert {seat: deferred.view(seat) for seat in range(1, SEATS + 1)} == before


def test_a_rollback_after_a_deferred_input_restores_the_views() -> None:
    # The journal refused the write: the hub rolls back to the checkpoint it took
    # before the input, views included, and the next input's outcome is still right.
    mirror, plain, deferred, pilot = _sessions(5)
    for _ in range(40):
        seat, event = pilot.next_event()  # type: ignore[attr-defined]
        mirror.handle(seat, event)
        plain.handle(seat, event)
        deferred.with_views(deferred.handle(seat, event, views=False))
    seat, event = pilot.next_event()  # type: ignore[attr-defined]
    before = deferred.checkpoint()
    views = {s: deferred.view(s) for s in range(1, SEATS + 1)}
    deferred.handle(seat, event, views=False)
    deferred.rollback(before)
    assert {s: deferred.view(s) for s in range(1, SEATS + 1)} == views
    mirror.handle(seat, event)
    _same(plain.handle(seat, event), deferred.with_views(deferred.handle(seat, event,
                                                                          views=False)))
