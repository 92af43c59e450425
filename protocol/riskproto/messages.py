# Encoding, decoding and validation of every message: the hub's codec. One function
# pair per side:
#   encode(msg) -> bytes      validates, then serialises compact JSON
#   decode(data) -> dict      parses, checks version, type and fields
# Errors are ProtocolError with a machine-readable code and the offending field
# (a path such as "dice[1].face" for nested values).
#
# The checking engine and the tables of the types a seat receives are in
# riskproto.codec, the only part a seat loads; the tables of the types only the hub
# receives (seat_status, event) and of the public board are here. Together they are
# the executable form of protocol/README.md; the JSON Schemas in protocol/schemas/
# state the same contract independently and the test suite checks that both agree on
# every example, under CPython and MicroPython.

from riskproto import MAX_MESSAGE_BYTES, PROTOCOL_VERSION
from riskproto.codec import (
    _LOADS,
    COMMANDS,
    ERROR_CODES,
    MAX_COUNTER,
    MAX_DETAIL,
    PHASES,
    RING_MODES,
    SEAT_BOUND,
    ProtocolError,
    _check,
    _error,
    _json,
    dumps,
)
from riskproto.codec import decode as _decode
from riskproto.codec import validate as _validate

try:
    from typing import Any
except ImportError:
    pass

# The hub's codec API; most of the constants come from riskproto.codec.
__all__ = [
    "BUTTONS", "COMMANDS", "DIE_STATES", "ERROR_CODES", "EVENT_KINDS", "E_DUPLICATE",
    "E_MALFORMED", "E_NOT_ALLOWED", "E_SCHEMA", "E_STALE", "E_TOO_LARGE", "E_UNKNOWN_SEAT",
    "E_VERSION", "MAX_COUNTER", "MAX_DETAIL", "MAX_MESSAGE_BYTES", "MESSAGE_TYPES", "PHASES",
    "PRESSES", "PROTOCOL_VERSION", "RING_MODES", "TERRITORY_COUNT", "ProtocolError", "decode",
    "encode", "error_reply", "message", "validate",
]

# Error codes (also used in error replies on seat/<n>/error), in the order of
# ERROR_CODES.
E_MALFORMED = "malformed"
E_SCHEMA = "schema"
E_VERSION = "version"
E_TOO_LARGE = "too_large"
E_UNKNOWN_SEAT = "unknown_seat"
E_STALE = "stale"
E_DUPLICATE = "duplicate"
E_NOT_ALLOWED = "not_allowed"

# Length of the board lists: riskproto.territories.TERRITORIES.
TERRITORY_COUNT = 42

EVENT_KINDS = ("encoder", "button", "dice", "card", "resync")
BUTTONS = ("confirm", "back", "encoder", "roll")
PRESSES = ("short", "long")
DIE_STATES = ("rolling", "settled", "crooked")

_HEX = "0123456789ABCDEF"
_WORD = "abcdefghijklmnopqrstuvwxyz0123456789_"


def _word(parent: str, key: "str | int", value: "Any", lo: int, hi: int) -> None:
    # lo..hi characters from a-z, 0-9 and '_' (a capability word).
    _check(parent, key, ("s", lo, hi), 0, value)
    for ch in value:
        if ch not in _WORD:
            raise _error(parent, key, "made of a-z0-9_")


def _hex(parent: str, key: "str | int", value: "Any", lo: int, hi: int) -> None:
    # An even number (lo..hi) of upper-case hex digits (a card uid).
    _check(parent, key, ("s", lo, hi), 0, value)
    for ch in value:
        if ch not in _HEX:
            raise _error(parent, key, "made of upper-case hex digits")
    if len(value) % 2:
        raise _error(parent, key, "an even number of hex digits")


# The field tables' notation is explained in riskproto/codec.py.
_DIE = ("id", True, "s", 1, 24, "face", True, "i", 1, 6, "state", True, "e", DIE_STATES)
_TURN = ("seat", True, "i", 1, 6, "phase", True, "e", PHASES, "round", False, "i", 0, MAX_COUNTER)

# fmt: off
# Concatenated, not unpacked: MicroPython (the example checks) has no (*a, b) display.
_TYPES = SEAT_BOUND + (  # noqa: RUF005
    (
        "seat_status",
        (
            "seat", True, "i", 1, 6,
            "online", True, "b",
            "session", True, "i", 0, MAX_COUNTER,
            "boot", False, "i", 0, MAX_COUNTER,
            "fw", False, "s", 1, 32,
            "caps", False, "l", 0, 16, _word, 1, 16,
        ),
    ),
    (
        "event",
        ("seat", True, "i", 1, 6, "seq", True, "i", 1, MAX_COUNTER, "kind", True, "e", EVENT_KINDS),
        "kind",
        "encoder", ("steps", True, "i", -64, 64),
        "button", ("button", True, "e", BUTTONS, "press", True, "e", PRESSES),
        "dice", ("roll", True, "i", 0, MAX_COUNTER, "dice", True, "l", 1, 3, "o", _DIE),
        "card", ("uid", True, _hex, 8, 20),
        "resync", (),
    ),
    (
        "board",
        (
            "owners", True, "l", TERRITORY_COUNT, TERRITORY_COUNT, "i", 0, 6,
            "armies", True, "l", TERRITORY_COUNT, TERRITORY_COUNT, "i", 0, 999,
            "turn", False, "o", _TURN,
        ),
    ),
)
# fmt: on

MESSAGE_TYPES = tuple(sorted(entry[0] for entry in _TYPES))


def validate(msg: "Any") -> "dict[str, Any]":
    # Check a decoded message of any type; return it unchanged or raise ProtocolError.
    return _validate(msg, _TYPES)


def _loads(data: bytes) -> "Any":
    # The codec's own parser (for the hub's gate: a payload it calls malformed has no seq).
    return _json.loads(data, **_LOADS)


def encode(msg: "dict[str, Any]") -> bytes:
    validate(msg)
    try:
        return dumps(msg)
    except UnicodeError:
        raise ProtocolError(E_SCHEMA, "text holds a character UTF-8 cannot carry") from None


def decode(data: bytes) -> "dict[str, Any]":
    return _decode(data, None, 0, _TYPES)


def message(mtype: str, **fields: "Any") -> "dict[str, Any]":
    # Build a message of type `mtype` with the current protocol version.
    msg = {"v": PROTOCOL_VERSION, "t": mtype}
    for key in fields:
        msg[key] = fields[key]
    return msg


def error_reply(exc: ProtocolError, seq: "int | None" = None) -> "dict[str, Any]":
    # The error message the hub publishes on seat/<n>/error for a refused message.
    detail = exc.message
    if len(detail) > MAX_DETAIL:
        detail = detail[: MAX_DETAIL - 3] + "..."
    msg = message("error", code=exc.code, detail=detail)
    if seq is not None:
        msg["seq"] = seq
    if exc.field:
        msg["field"] = exc.field[:32]
    return msg
