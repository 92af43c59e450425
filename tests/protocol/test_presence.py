"""Presence from births and Last Wills: a late Will of an older session is ignored."""

from __future__ import annotations

import pytest

from riskproto.messages import message
from riskproto.presence import BIRTH, DEATH, IGNORED, REPEAT, Presence, SeatPresence


def test_birth_death_and_a_late_will() -> None:
    hub = Presence()
    assert hub.update(False, 3) == IGNORED, "a Will of a peer never seen online"
    assert hub.update(True, 3) == BIRTH
    assert hub.update(True, 3) == REPEAT, "the retained birth seen again"
    assert hub.update(True, 4) == BIRTH, "reconnected before the old Will fired"
    assert hub.update(False, 3) == IGNORED, "the old connection's late Will"
    assert (hub.online, hub.session) == (True, 4)
    assert hub.update(False, 4) == DEATH
    assert hub.online is False
    assert hub.update(False, 4) == IGNORED


def test_a_birth_is_believed_even_with_a_smaller_session() -> None:
    peer = Presence()
    peer.update(True, 900)
    assert peer.update(True, 2) == BIRTH, "sessions need only differ, not grow"
    assert peer.update(False, 900) == IGNORED


def test_seat_presence_tracks_each_seat() -> None:
    seats = SeatPresence(3)
    birth = message("seat_status", seat=2, online=True, session=10)
    will = message("seat_status", seat=2, online=False, session=10)
    assert seats.apply(birth) == BIRTH
    assert seats.apply(message("seat_status", seat=3, online=True, session=1)) == BIRTH
    assert seats.online() == [2, 3]
    assert seats.apply(will) == DEATH
    assert seats.online() == [3]
    with pytest.raises(ValueError):
        seats.apply(message("seat_status", seat=4, online=True, session=1))
