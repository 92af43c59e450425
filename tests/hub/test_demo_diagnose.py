"""What a stalled demo says about its seats: which firmware ended, whether the hub is
waiting for a stalled disk, which seat never came online, or, when every seat is up, what
each shows and was armed for."""

from __future__ import annotations

from collections import deque
from typing import Any, cast

from risktable.demo.runner import _diagnose
from risktable.demo.seats import SeatProcess
from risktable.journal.store import Journal
from risktable.service.hub import HubService


class _Seat:
    def __init__(self, seat: int, outputs: dict[str, Any], said: list[str],
                 alive: bool = True) -> None:
        self.seat = seat
        self.outputs = outputs
        self.stderr_tail = deque(said)
        self._alive = alive

    def alive(self) -> bool:
        return self._alive


class _Hub:
    def __init__(self, online: set[int]) -> None:
        self._online = online

    def online_seats(self) -> set[int]:
        return self._online


class _Journal:
    def __init__(self, waiting: float) -> None:
        self._waiting = waiting

    def commit_waiting(self) -> float:
        return self._waiting


def _said(seats: list[_Seat], online: set[int], waiting: float = 0.0) -> str:
    return _diagnose(cast(list[SeatProcess], seats), cast(HubService, _Hub(online)),
                     cast(Journal, _Journal(waiting)))


def test_a_stall_with_every_seat_online_names_what_each_seat_shows() -> None:
    seats = [_Seat(1, {"oled": ["Attack from", "Alaska"]}, ["seat: connected, session 1"]),
             _Seat(2, {"oled": ["Tray: die 1 of 3", "4 4 0"], "armed": [17897, 3]}, [])]
    said = _said(seats, {1, 2})
    assert said.startswith("every seat firmware is running and online; "), said
    assert "seat 1 shows 'Attack from | Alaska', armed None" in said
    assert "last said 'seat: connected, session 1'" in said
    assert "seat 2 shows 'Tray: die 1 of 3 | 4 4 0', armed [17897, 3]" in said
    assert "last said 'nothing'" in said


def test_an_ended_firmware_or_a_seat_never_online_is_named() -> None:
    assert _said([_Seat(1, {}, ["MemoryError"], alive=False)], {1}) == (
        "seat 1 firmware exited: MemoryError")
    assert _said([_Seat(1, {}, []), _Seat(2, {}, ["cannot connect"])], {1}) == (
        "seats [2] did not come online though their firmware is running (it said: "
        "cannot connect)")


def test_a_hub_waiting_for_a_stalled_disk_says_so() -> None:
    # The journal's commit under way for 30 s: the hub answers nothing until it is on disk.
    seats = [_Seat(1, {"oled": ["Attack from", "Alaska"]}, [])]
    assert _said(seats, {1}, waiting=30.2) == (
        "the hub has waited 30 s for the disk to confirm a journal write; the machine's "
        "storage is stalled")
    # A commit under way for a moment is no stall.
    assert _said(seats, {1}, waiting=0.2).startswith("every seat firmware is running")
