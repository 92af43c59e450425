"""Seat presence: births, Wills, and Wills that arrive after the next birth."""

from __future__ import annotations

from risktable.service.presence import Presence, SeatState


def test_late_will_of_older_session_is_ignored() -> None:
    presence = Presence()
    assert presence.update(1, SeatState(True, 5))
    assert not presence.update(1, SeatState(False, 4))
    assert presence.online() == {1}


def test_will_of_current_session_takes_seat_offline() -> None:
    presence = Presence()
    presence.update(1, SeatState(True, 5))
    assert presence.update(1, SeatState(False, 5))
    assert presence.online() == frozenset()


def test_rebirth_after_will_needs_new_session() -> None:
    presence = Presence()
    presence.update(2, SeatState(True, 1))
    presence.update(2, SeatState(False, 1))
    assert not presence.update(2, SeatState(True, 1))  # stale retained birth
    assert presence.update(2, SeatState(True, 2))
    assert presence.is_online(2)


def test_repeated_birth_is_no_change() -> None:
    presence = Presence()
    assert presence.update(3, SeatState(True, 9))
    assert not presence.update(3, SeatState(True, 9))
