"""The hub on a full disk: it says so, takes no input it cannot journal, and recovers alone.

On a real 2 MiB file system (a tmpfs, mounted for the test; that needs root):
the hub starts with too little room, every seat's view says "hub storage full"
and an input stays unanswered (the seat keeps sending it) without changing
anything; room comes back and the hub takes the input on its own. Then the
margin is set to nothing and the disk filled to the last byte, so that SQLite
itself refuses the write ("database or disk is full"): the table stays as
journalled, without replaying the game, and recovers the same way.
"""

from __future__ import annotations

import contextlib
import errno
import os
import random
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from risktable.broker_address import BrokerAddress
from risktable.config import BrokerConfig, HubConfig, TableConfig
from risktable.rules.bots import HeuristicBot
from risktable.service import storage
from risktable.service.hub import Unanswered
from risktable.service.table_service import STORAGE_NOTICE, TableService
from risktable.table.autopilot import Autopilot
from tests.support.mosquitto import Mosquitto
from tests.support.seat_client import SeatClient
from tests.support.virtual_table import mirror_table
from tests.support.waiting import wait_until
from tests.table.inputs import cards_of

TABLE = "full"
SIZE = 2 * 1024 * 1024


@contextlib.contextmanager
def small_filesystem(path: Path) -> Iterator[Path]:
    path.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a 2 MiB tmpfs needs root (the in-process test below runs anyway)")
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={SIZE}", "tmpfs", str(path)],
                   check=True)
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=True)


def fill(filler: Path, leave: int) -> None:
    """Grow ``filler`` until ``leave`` bytes are free (0: until the disk refuses)."""
    chunk = b"\0" * 4096
    with open(filler, "ab", buffering=0) as out:  # unbuffered: close() has nothing to flush
        try:
            while storage.free_bytes(filler.parent) > leave:
                out.write(chunk)
            while leave == 0:
                out.write(b"\0")
        except OSError as exc:
            assert exc.errno == errno.ENOSPC


def shows_notice(view: dict[str, Any]) -> bool:
    return view.get("lines", [None])[0] == STORAGE_NOTICE


@pytest.mark.slow
def test_a_full_disk_stops_inputs_and_the_hub_recovers_alone(
    fresh_mosquitto: Mosquitto, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with small_filesystem(tmp_path / "small") as small:
        address = BrokerAddress(fresh_mosquitto.host, fresh_mosquitto.port)
        config = HubConfig(broker=BrokerConfig(address), table=TableConfig(id=TABLE, seats=3),
                           data_dir=small)
        filler = small / "filler"
        fill(filler, leave=config.min_free_bytes // 2)
        panel: list[bool] = []
        service = TableService(config, card_uids=cards_of("1993"), seed=5,
                               on_storage=panel.append)
        assert service.storage.full and panel == [True]  # measured at start
        mirror, pilot = mirror_table(service.rules, seed=5)
        seats = {n: SeatClient(address.host, address.port, TABLE, n) for n in (1, 2, 3)}
        applied: dict[int, list[int]] = {n: [] for n in seats}

        def next_input() -> tuple[int, int]:
            step = pilot.next_event()
            assert step is not None and mirror.handle(*step).error is None
            return step[0], seats[step[0]].send(step[1])

        def held_until_room(seat: int, seq: int) -> None:
            client = seats[seat]
            # The seat sends it again and again: no answer comes while the disk is full.
            wait_until(lambda: client.sends.get(seq, 0) >= 3, timeout=30)
            assert seq not in client.answers
            for other in seats.values():
                other.wait_for_view(shows_notice)
            # Nothing of it is in the journal or in the table's memory.
            assert service.journal.input_seqs(service.game_id, seat)[1] == applied[seat]
            assert service.session.log == journalled(service)
            filler.unlink()  # room again: the hub notices alone and takes the resend
            assert client.answer(seq).ack
            applied[seat].append(seq)
            for other in seats.values():
                other.wait_for_view(lambda view: not shows_notice(view))

        service.start()
        try:
            for seat in seats.values():
                seat.start()
                seat.wait_for_view(shows_notice)
            assert service.hub.wait_for_seats([1, 2, 3], timeout=10)

            def no_replay(game_id: int) -> Any:
                raise AssertionError("a refused write replayed the game from the journal")

            monkeypatch.setattr(service.journal, "load", no_replay)
            held_until_room(*next_input())
            assert panel == [True, False]

            # No margin, and the disk full to the last byte: SQLite refuses the write.
            service.storage.min_free = 0
            fill(filler, leave=0)
            for _ in range(40):
                seat, seq = next_input()
                answers = seats[seat].answers
                wait_until(lambda: seq in answers or service.storage.full, 30)  # noqa: B023
                if seq not in answers:
                    break
                assert answers[seq].ack  # it fitted in the pages SQLite had
                applied[seat].append(seq)
            else:
                raise AssertionError("a full disk never refused a write")
            # SQLite refused it, not the margin (the worker logs it just after saying full).
            wait_until(lambda: any("journal has no room" in r.getMessage()
                                   for r in caplog.records))
            held_until_room(seat, seq)
            assert panel == [True, False, True, False]
            for n in seats:
                assert service.journal.input_seqs(service.game_id, n)[1] == applied[n]
        finally:
            for seat in seats.values():
                seat.close()
            service.stop()


def journalled(service: TableService) -> list[Any]:
    return [entry.action for entry in service.journal.actions(service.game_id)]


def test_low_space_leaves_inputs_unanswered_until_room_returns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without root: the free space the hub measures comes from a seam.
    free = [100 * 1024]
    monkeypatch.setattr(storage, "free_bytes", lambda path: free[0])
    panel: list[bool] = []
    service = TableService(HubConfig(table=TableConfig(seats=3), data_dir=tmp_path),
                           card_uids=cards_of("1993"), on_storage=panel.append)
    assert service.storage.full and panel == [True]
    pilot = Autopilot(service.session, {s: HeuristicBot(s) for s in (1, 2, 3)}, {},
                      random.Random(4))
    step = pilot.next_event()
    assert step is not None
    before = service.session.view(step[0])
    with pytest.raises(Unanswered, match="hub storage full"):
        service._on_event(*step)
    assert service.session.view(step[0]) == before and journalled(service) == []
    free[0] = 10 * 1024 * 1024
    service._check_storage()  # what the storage poll runs on the worker
    assert panel == [True, False] and not service.storage.full
    assert service._on_event(*step) is None
    service.journal.close()
