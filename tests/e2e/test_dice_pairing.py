"""Smart dice that belong to a seat, end to end: two seat firmwares under
``micropython`` (emulated boards, smart dice "pixels"), three emulated smart dice and a
fourth that replaces one, a real mosquitto and the real hub (TableService).

Die A is paired to seat 1, B and C to seat 2. Seat 2 cannot claim A (its display names
seat 1), and A rolled into seat 2's armed roll is refused with a reason seat 2 shows;
the roll is armed again and seat 2's own die counts. The pairing holds through a hub
restart and a seat reboot; B is replaced by D mid-game, C is given back and paired
again, and ``risktable dice list`` shows every die with its battery level."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from risktable.broker_address import BrokerAddress
from risktable.cli import main
from risktable.config import BrokerConfig, HubConfig, LedConfig, TableConfig
from risktable.dice_registry import REGISTRY_FILE, DiceRegistry
from risktable.service.table_service import TableService
from tests.firmware.seats import SeatProcess, write_config
from tests.support.mosquitto import Mosquitto
from tests.support.waiting import wait_until
from tests.table.inputs import CARDS

TABLE = "fw-pair"
WAIT = 20.0


@dataclass
class SmartDie:
    """An emulated Pixels die: the reading lines a seat's radio would hand its seat."""

    pixel_id: int
    battery: int
    rssi: int = -45  # next to the seat

    @property
    def id(self) -> str:
        return f"px-{self.pixel_id:08x}"

    def line(self, state: str, face: int = 0) -> dict[str, Any]:
        return {"reading": [self.id, state, face], "battery": self.battery, "rssi": self.rssi}

    def roll(self, seat: SeatProcess, face: int) -> None:
        seat.send(self.line("rolling"))
        seat.send(self.line("rolled", face))


A, B, C, D = SmartDie(0xA1, 80), SmartDie(0xB2, 70), SmartDie(0xC3, 60), SmartDie(0xD4, 45)
FAR = SmartDie(0xEE, 90, rssi=-88)  # rolled at another seat: too weak to pair here


def shows(*words: str) -> Callable[[dict[str, Any]], bool]:
    """Whether an output line is a display holding every one of ``words``."""
    def match(line: dict[str, Any]) -> bool:
        text = " | ".join(line.get("oled") or [])
        return bool(text) and all(w in text for w in words)
    return match


def hub_config(port: int, data_dir: Path) -> HubConfig:
    return HubConfig(
        broker=BrokerConfig(BrokerAddress("127.0.0.1", port)),
        table=TableConfig(id=TABLE, seats=3, bots={3: "heuristic"}),  # classic: 3 or more
        leds=LedConfig(enabled=False),
        panel_enabled=False,
        data_dir=data_dir,
    )


class Table:
    """The hub (restartable) and the two seats (rebootable)."""

    def __init__(self, micropython: str, broker: Mosquitto, root: Path) -> None:
        self.micropython = micropython
        self.port = broker.port
        self.root = root
        self.data_dir = root / "data"
        self.service: TableService | None = None
        self.seats: dict[int, SeatProcess] = {}
        self.configs = {n: write_config(root, TABLE, n, broker.port, dice="pixels",
                                        retry_ms=400) for n in (1, 2)}

    def start_hub(self) -> TableService:
        self.service = TableService(hub_config(self.port, self.data_dir), card_uids=CARDS)
        self.service.start()
        return self.service

    def stop_hub(self) -> None:
        if self.service is not None:
            self.service.stop()
            self.service = None

    def start_seat(self, n: int) -> SeatProcess:
        seat = self.seats[n] = SeatProcess(self.micropython, self.configs[n])
        seat.wait_output(lambda line: line.get("net") == "up", WAIT)
        return seat

    def registry(self, seat: int) -> list[str]:
        assert self.service is not None
        return self.service.dice.seat_dice(seat)

    def close(self) -> None:
        for seat in self.seats.values():
            seat.stop()
        self.stop_hub()


@pytest.fixture
def table(micropython: str, fresh_mosquitto: Mosquitto, tmp_path: Path) -> Iterator[Table]:
    t = Table(micropython, fresh_mosquitto, tmp_path)
    yield t
    t.close()


def long_press(seat: SeatProcess) -> None:
    seat.send({"button": "encoder", "long": True})


def pair(seat: SeatProcess, die: SmartDie, paired_after: int) -> None:
    """Roll ``die`` next to a seat in pairing mode; wait until the hub's view lists it."""
    die.roll(seat, 3)
    seat.wait_output(shows(f"Pairing: {paired_after} paired"), WAIT)


def wait_armed(seat: SeatProcess) -> int:
    """The roll number of the next arm_dice the seat takes."""
    line = seat.wait_output(lambda line: bool(line.get("armed")) and line["armed"][1] > 0,
                            WAIT)
    return int(line["armed"][0])


def roll_until_taken(seat: SeatProcess, die: SmartDie, face: int) -> None:
    """Roll ``die`` as a player does after a refused roll: again whenever the seat asks
    again. A refused die can be refused twice (its rolling and its rolled reading, each
    a dice event, when the hub's answer to the first comes after the seat sent the
    second), and each refusal arms the roll afresh: a die rolled between the two arms
    is forgotten by the second, and the seat asks for the roll again."""
    for _ in range(3):
        die.roll(seat, face)
        line = seat.wait_output(lambda line: line.get("oled") == ["Rolled", str(face)]
                                or (bool(line.get("armed")) and line["armed"][1] > 0), WAIT)
        if "oled" in line:
            return
    raise AssertionError(f"{die.id} rolled three times and never taken")


def battery(table: Table, die: SmartDie) -> int | None:
    """The battery level the hub's registry holds for ``die``."""
    assert table.service is not None
    levels = {d.die: d.battery for d in table.service.dice.dice()}
    return levels.get(die.id)


def test_dice_belong_to_their_seat_through_restarts_and_a_replacement(
    table: Table, capsys: pytest.CaptureFixture[str]
) -> None:
    table.start_hub()
    one, two = table.start_seat(1), table.start_seat(2)
    # The opening roll: each seat is armed for one die.
    wait_armed(one)
    wait_armed(two)

    long_press(one)
    one.wait_output(shows("Pairing: 0 paired", "Roll a new die"), WAIT)
    pair(one, A, 1)
    long_press(one)  # done
    long_press(two)
    two.wait_output(shows("Pairing: 0 paired"), WAIT)
    pair(two, B, 1)
    FAR.roll(two, 2)  # heard, but too far away to be this seat's
    pair(two, C, 2)
    assert table.registry(1) == [A.id] and table.registry(2) == [B.id, C.id]
    assert table.service is not None and table.service.dice.owner(FAR.id) is None

    # A claimed again by seat 2: refused, and seat 2's display names the seat holding it.
    A.roll(two, 4)
    two.wait_output(shows("seat 1's", "unpair it there first"), WAIT)
    two.send({"button": "back"})  # pairing done
    assert table.registry(2) == [B.id, C.id] and table.registry(1) == [A.id]

    # A rolled into seat 2's armed roll: refused with the reason shown; the roll is armed
    # again, and seat 2's own die B counts.
    A.roll(two, 6)
    two.wait_output(shows(f"Die {A.id} is seat 1's"), WAIT)
    wait_armed(two)
    B.battery = 66  # drained a little: the accepted roll reports it to the registry
    roll_until_taken(two, B, 2)
    wait_until(lambda: battery(table, B) == 66, WAIT)
    A.battery = 77
    A.roll(one, 5)
    one.wait_output(lambda line: line.get("oled") == ["Rolled", "5"], WAIT)
    wait_until(lambda: battery(table, A) == 77, WAIT)

    # The hub restarts: the pairing holds, and seat 2 still cannot have A.
    table.stop_hub()
    table.start_hub()
    assert table.registry(1) == [A.id] and table.registry(2) == [B.id, C.id]
    # Seat 2 reboots: its paired dice come back with its retained view.
    table.seats[2].stop()
    two = table.start_seat(2)
    long_press(two)
    two.wait_output(shows("Pairing: 2 paired"), WAIT)
    A.roll(two, 1)
    two.wait_output(shows("seat 1's", "unpair it there first"), WAIT)

    # Mid-game, B is replaced by the new die D: the knob chooses "replace B".
    two.send({"encoder": 1})
    two.wait_output(shows(f"Roll one for {B.id}"), WAIT)
    D.roll(two, 6)
    wait_until(lambda: table.registry(2) == [D.id, C.id], WAIT)
    # C given back (the knob past "replace C" to "unpair C", then Confirm) and paired
    # again by rolling it.
    two.send({"encoder": 4})
    two.wait_output(shows(f"Confirm: unpair {C.id}"), WAIT)
    two.send({"button": "confirm"})
    two.wait_output(shows("Pairing: 1 paired"), WAIT)
    assert table.registry(2) == [D.id]
    pair(two, C, 2)
    long_press(two)
    assert table.registry(2) == [D.id, C.id]
    data_dir = table.data_dir
    table.stop_hub()

    assert main(["dice", "list", "--data-dir", str(data_dir), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["dice"]
    assert [(r["seat"], r["kind"], r["id"], r["battery"]) for r in rows] == [
        (1, "Pixels", A.id, A.battery),
        (2, "Pixels", D.id, D.battery),
        (2, "Pixels", C.id, C.battery),
    ]
    assert all(isinstance(r["last_seen"], float) for r in rows)
    registry = DiceRegistry(data_dir / REGISTRY_FILE, read_only=True)
    assert registry.owner(B.id) is None
    registry.close()
