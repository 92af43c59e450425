"""Every message within the schema's bounds fits 1 KiB, even at its largest; the
board lists follow the territory order."""

from __future__ import annotations

from typing import Any

import pytest

from riskproto import MAX_MESSAGE_BYTES
from riskproto.messages import MAX_COUNTER, ProtocolError, decode, encode, error_reply, message
from riskproto.territories import TERRITORIES, board_dicts, board_message

# A control character costs six bytes in JSON (\u0001), the most any character does
# under either implementation's encoder.
W = "\x01"
BIG = MAX_COUNTER


def _largest() -> list[dict[str, Any]]:
    die = {"id": W * 24, "face": 6, "state": "crooked", "battery": 100}
    return [
        message("hub_status", online=False, session=BIG),
        message(
            "seat_status",
            seat=6,
            online=False,
            session=BIG,
            boot=BIG,
            fw=W * 32,
            caps=["abcdefghijklmnop"] * 16,
            reset="deepsleep",
            ota={"id": BIG, "state": "rolled_back", "done": 320, "of": 320, "why": W * 48},
        ),
        message("event", seat=6, seq=BIG, kind="dice", roll=BIG, dice=[die] * 3),
        message("event", seat=6, seq=BIG, kind="card", uid="F" * 20),
        message("event", seat=6, seq=BIG, kind="button", button="confirm", press="short"),
        message("ack", seq=BIG),
        message("error", code="unknown_seat", detail=W * 120, seq=BIG, field=W * 32),
        message(
            "view",
            seat=6,
            colour=[255, 255, 255],
            name=W * 16,
            active=False,
            phase="reinforce",
            lines=[W * 24] * 4,
            ring={"mode": "progress", "value": 99, "max": 99},
            dice=["gd-" + "f" * 13] * 3,
        ),
        message("event", seat=6, seq=BIG, kind="pair", die="g" * 16, battery=100,
                replace="r" * 16),
        message("cmd", cmd="beep", ms=2000, hz=8000),
        message("cmd", cmd="arm_dice", roll=BIG, count=3),
        # A manifest page at its bounds (riskproto.update): paths and hashes cannot be
        # escaped, the version can.
        message("cmd", cmd="update", id=BIG, sig="f" * 64, version=W * 32, port=65535,
                probation=3600, page=79, pages=80,
                files=[{"p": "a" * 40, "n": 1048576, "h": "f" * 64}] * 4),
        message(
            "board",
            owners=[6] * 42,
            armies=[999] * 42,
            turn={"seat": 6, "phase": "reinforce", "round": BIG},
        ),
        message(
            "scene",
            lit=[41] * 42,
            cursor=41,
            targets=[41] * 42,
            battle=[41, 41],
            odds={"from": 41, "to": 41, "win": 1000},
            events=[{"k": "conquer", "seat": 6, "from": 41, "to": 41, "n": 999, "lost": 3,
                     "killed": 3, "by": 6}] * 6,
            cards=[99] * 6,
            capitals=[41] * 6,
            bots=["normal"] * 6,
            hint={"seat": 6, "k": "end_attack", "from": 41, "to": 41, "n": 999},
        ),
    ]


@pytest.mark.parametrize(
    "msg", _largest(), ids=lambda m: f"{m['t']}-{m.get('kind', m.get('cmd', ''))}"
)
def test_the_largest_message_of_each_kind_fits(msg: dict[str, Any]) -> None:
    data = encode(msg)
    assert len(data) <= MAX_MESSAGE_BYTES
    assert decode(data) == msg


def test_error_reply_stays_within_bounds() -> None:
    exc = ProtocolError("schema", "y" * 500, "z" * 80)
    reply = error_reply(exc, seq=9)
    assert len(reply["detail"]) == 120 and reply["detail"].endswith("...")
    assert reply["field"] == "z" * 32
    decode(encode(reply))


def test_territory_order_is_the_projects_42() -> None:
    assert len(TERRITORIES) == len(set(TERRITORIES)) == 42
    assert TERRITORIES[0] == "alaska" and TERRITORIES[-1] == "eastern_australia"


def test_board_message_round_trip() -> None:
    owners = {"ukraine": 3, "alaska": 1}
    armies = {"ukraine": 12, "alaska": 2, "peru": 0}
    msg = board_message(owners, armies, turn={"seat": 3, "phase": "attack"})
    assert msg["owners"][TERRITORIES.index("ukraine")] == 3
    back_owners, back_armies = board_dicts(decode(encode(msg)))
    assert back_owners["ukraine"] == 3 and back_owners["brazil"] == 0
    assert back_armies["alaska"] == 2
    with pytest.raises(KeyError):
        board_message({"atlantis": 1}, {})
