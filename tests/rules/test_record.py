"""The action log: every action round-trips; bad lines and headers are refused clearly."""

from __future__ import annotations

import json

import pytest

from risktable.rules import (
    Attack,
    Claim,
    Config,
    DealCard,
    Defend,
    DrawCard,
    EndAttack,
    EndTurn,
    Fortify,
    MalformedActionError,
    Occupy,
    OpeningRoll,
    Options,
    Place,
    Roll,
    Trade,
    classic_board,
)
from risktable.rules.record import (
    LogFormatError,
    decode_action,
    dumps,
    encode_action,
    header,
    loads,
)

BOARD = classic_board()
ALL = [
    OpeningRoll((3, 6, 6)), Claim(0), DealCard(41), Place(5, 3), Trade((0, 13, 42), 13),
    Trade((1, 42, 43)), Attack(0, 29, 3), Defend(2), Roll((6, 1, 1), (2, 2)), Occupy(4),
    EndAttack(), Fortify(3, 4, 2), EndTurn(), DrawCard(43),
]


@pytest.mark.parametrize("action", ALL, ids=lambda a: type(a).__name__)
def test_round_trip_through_json(action: object) -> None:
    line = json.dumps(encode_action(BOARD, action))  # type: ignore[arg-type]
    assert decode_action(BOARD, json.loads(line)) == action


def test_log_reads_back_with_its_config() -> None:
    config = Config(5, Options(setup="deal", card_values="slow"))
    log = loads(dumps(config, ALL))
    assert log.config == config
    assert list(log.actions()) == ALL


@pytest.mark.parametrize("raw", [
    {"a": "teleport"}, {"a": "claim", "territory": "atlantis"}, {"a": "claim"},
    {"a": "place", "territory": "peru", "armies": "3"}, {"a": "draw", "card": "wild3"},
    {"a": "trade", "cards": ["peru", "brazil"]}, ["claim", "peru"],
    {"a": "roll", "attack": [6, "6"], "defend": [1]},
])
def test_malformed_lines(raw: object) -> None:
    with pytest.raises(MalformedActionError):
        decode_action(BOARD, raw)


def test_bad_headers() -> None:
    with pytest.raises(LogFormatError, match="empty"):
        loads("")
    with pytest.raises(LogFormatError, match="header"):
        loads('{"a": "claim"}\n')
    head = header(Config(3))
    with pytest.raises(LogFormatError, match="version"):
        loads(json.dumps({**head, "version": 99}))
    with pytest.raises(LogFormatError, match="bad header"):
        loads(json.dumps({**head, "players": 9}))
    with pytest.raises(LogFormatError, match="bad header"):
        loads(json.dumps({**head, "options": {"fortify": "anywhere"}}))
    with pytest.raises(LogFormatError, match="line 2"):
        loads(json.dumps(head) + "\n{not json\n")
