# The checking engine and the messages a seat receives (hub_status, view, ack, error,
# cmd). A seat loads only this module of the codec: it checks what the hub sends it
# and writes its own births and events without checking them, because the hub checks
# everything it receives and answers an invalid event with an error naming its seq,
# which closes the event (protocol/README.md, "The riskproto package").
# riskproto.messages adds the tables of the other types (seat_status, event, board)
# and is the hub's codec: its validate and decode check every type with this engine,
# so both sides give the same code, text and first bad field for a message.
#
# Errors are ProtocolError with a machine-readable code and the offending field (a
# path such as "dice[1].face" for nested values). Texts are built only on failure.

import json

from riskproto import MAX_MESSAGE_BYTES, PROTOCOL_VERSION

try:
    from typing import Any
except ImportError:
    pass

# The error codes (riskproto.messages names each one as E_...). This module writes
# the four it raises as plain strings: interned names, where a module global would
# cost a seat's heap a dictionary entry each.
ERROR_CODES = (
    "malformed",
    "schema",
    "version",
    "too_large",
    "unknown_seat",
    "stale",
    "duplicate",
    "not_allowed",
)

# Largest session, boot, sequence and roll number: fits a MicroPython small int on
# every port, so the firmware never allocates to count.
MAX_COUNTER = 0x3FFFFFFF
# Longest error detail the hub sends; the rest of an error reply stays small.
MAX_DETAIL = 120


class ProtocolError(ValueError):
    def __init__(self, code: str, message: str, field: "str | None" = None) -> None:
        super().__init__(message)
        self.code = code
        self.field = field
        self.message = message


# Each field list is one flat tuple of names, letters and small integers, read while
# checking: nested tuples (one per field and per value spec) cost a 64-bit MicroPython
# heap about 6 KiB more, and small integers and interned names cost nothing more, so a
# check allocates nothing. A field is: name, required (True/False), then its spec,
# a letter and its arguments:
#   "i", lo, hi           an integer (never a bool or a float) in [lo, hi]
#   "b"                   true or false
#   "s", lo, hi           a string of lo..hi characters
#   "e", choices          one of the strings in the tuple `choices`
#   "l", lo, hi, spec     lo..hi items, each matching the spec that follows
#   "o", fields           an object with these fields; unknown keys are ignored
#   check, lo, hi         check(parent, key, value, lo, hi), a function of the module
#                         whose table uses it (kinds only the hub receives)
# The order is the order of the checks, so both sides report the same first bad field.
# Tables are tuples, never dicts: MicroPython iterates dicts in hash order.

COMMANDS = ("arm_dice", "disarm", "identify", "beep", "brightness")
RING_MODES = ("off", "count", "progress", "pulse", "spin")
PHASES = ("setup", "reinforce", "attack", "fortify", "over")

# fmt: off
# Each message type: (type, fields), and for a type with variants then the name of
# the field that picks one ("cmd" of a cmd, "kind" of an event) and pairs of its
# value and the fields that value adds.
SEAT_BOUND = (
    ("hub_status", ("online", True, "b", "session", True, "i", 0, MAX_COUNTER)),
    ("ack", ("seq", True, "i", 1, MAX_COUNTER)),
    (
        "error",
        (
            "code", True, "e", ERROR_CODES,
            "detail", True, "s", 0, MAX_DETAIL,
            "seq", False, "i", 1, MAX_COUNTER,
            "field", False, "s", 1, 32,
        ),
    ),
    (
        "view",
        (
            "seat", True, "i", 1, 6,
            "colour", True, "l", 3, 3, "i", 0, 255,
            "name", False, "s", 0, 16,
            "active", False, "b",
            "phase", False, "e", PHASES,
            "lines", False, "l", 0, 4, "s", 0, 24,
            "ring", False, "o", (
                "mode", True, "e", RING_MODES,
                "value", False, "i", 0, 99,
                "max", False, "i", 0, 99,
            ),
        ),
    ),
    (
        "cmd",
        ("cmd", True, "e", COMMANDS),
        "cmd",
        "arm_dice", ("roll", True, "i", 0, MAX_COUNTER, "count", True, "i", 1, 3),
        "disarm", ("roll", True, "i", 0, MAX_COUNTER),
        "identify", ("seconds", False, "i", 1, 60),
        "beep", ("ms", True, "i", 10, 2000, "hz", False, "i", 100, 8000),
        "brightness", ("level", True, "i", 0, 255),
    ),
)
# fmt: on


# A check passes the parent's path and the key (a name, or an index into a list);
# the field's path ("dice[1].face") is spelled out only when it fails.


def _path(parent: str, key: "str | int") -> str:
    if isinstance(key, int):
        return parent + "[" + str(key) + "]"
    if parent:
        return parent + "." + key
    return key


def _error(parent: str, key: "str | int", what: "str | None") -> ProtocolError:
    # The schema error for a field that is missing (what None) or not `what`.
    path = _path(parent, key)
    if what is None:
        return ProtocolError("schema", "field '%s' is missing" % path, path)
    return ProtocolError("schema", "field '%s' must be %s" % (path, what), path)


def _check(parent: str, key: "str | int", spec: "tuple[Any, ...]", i: int, value: "Any") -> None:
    # Check value against the value spec that starts at spec[i].
    kind = spec[i]
    if kind == "i":
        lo = spec[i + 1]
        hi = spec[i + 2]
        if not isinstance(value, int) or isinstance(value, bool) or value < lo or value > hi:
            raise _error(parent, key, "an integer from %d to %d" % (lo, hi))
    elif kind == "b":
        if not isinstance(value, bool):
            raise _error(parent, key, "true or false")
    elif kind == "s" or kind == "l":
        if kind == "s" and not isinstance(value, str):
            raise _error(parent, key, "a string")
        if kind == "l" and not isinstance(value, list):
            raise _error(parent, key, "a list")
        lo = spec[i + 1]
        hi = spec[i + 2]
        if len(value) < lo or len(value) > hi:
            unit = "characters" if kind == "s" else "items"
            if lo == hi:
                raise _error(parent, key, "%d %s long" % (lo, unit))
            raise _error(parent, key, "%d to %d %s long" % (lo, hi, unit))
        if kind == "l":
            here = _path(parent, key)
            for n in range(len(value)):
                _check(here, n, spec, i + 3, value[n])
    elif kind == "e":
        if not isinstance(value, str) or value not in spec[i + 1]:
            raise _error(parent, key, "one of " + ", ".join(spec[i + 1]))
    elif kind == "o":
        if not isinstance(value, dict):
            raise _error(parent, key, "an object")
        _check_fields(_path(parent, key), spec[i + 1], value)
    else:
        kind(parent, key, value, spec[i + 1], spec[i + 2])


def _check_fields(parent: str, fields: "tuple[Any, ...]", msg: "dict[str, Any]") -> None:
    i = 0
    while i < len(fields):
        name = fields[i]
        i += 2
        if name in msg:
            _check(parent, name, fields, i, msg[name])
        elif fields[i - 1]:
            raise _error(parent, name, None)
        # Past the spec: a list's bounds, then the spec of its items.
        while fields[i] == "l":
            i += 3
        kind = fields[i]
        if kind == "b":
            i += 1
        elif kind == "e" or kind == "o":
            i += 2
        else:
            i += 3


def validate(msg: "Any", types: "tuple[Any, ...]" = SEAT_BOUND, mtype: "str | None" = None,
             seat: int = 0) -> "dict[str, Any]":
    # Check a parsed message against the tables `types` (by default the types a seat
    # receives); return it unchanged or raise ProtocolError. A seat also passes the
    # type its topic carries (mtype) and its number (a `seat` field must equal it).
    if not isinstance(msg, dict):
        raise ProtocolError("schema", "a message must be a JSON object")
    # This side's protocol version, first; the error names both.
    version = msg.get("v")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ProtocolError("schema", "field 'v' (protocol version) must be an integer", "v")
    if version != PROTOCOL_VERSION:
        raise ProtocolError(
            "version",
            "protocol version %d is not supported; this side speaks version %d"
            % (version, PROTOCOL_VERSION),
            "v",
        )
    name = msg.get("t")
    if mtype is not None and name != mtype:
        raise _error("", "t", mtype)
    for entry in types:
        if entry[0] == name:
            _check_fields("", entry[1], msg)
            if len(entry) > 2:
                which = msg[entry[2]]
                for j in range(3, len(entry), 2):
                    if entry[j] == which:
                        _check_fields("", entry[j + 1], msg)
            if seat and msg.get("seat", seat) != seat:
                raise _error("", "seat", str(seat))
            return msg
    names = ""
    for entry in types:
        names += ", " + entry[0] if names else entry[0]
    raise _error("", "t", "one of " + names)


# CPython's json accepts NaN and Infinity unless told otherwise (int() refuses them,
# making them malformed) and escapes a character outside the BMP as 12 bytes unless
# told to write raw UTF-8 (at most 4). MicroPython does both already and takes
# neither keyword. The keyword calls go through an untyped name: MicroPython's json
# stub rightly lacks them.
_json = json  # type: Any
try:
    _json.loads("0", parse_constant=int)
    _LOADS = {"parse_constant": int}  # type: dict[str, Any]
    _DUMPS = {"separators": (",", ":"), "ensure_ascii": False}  # type: dict[str, Any]
except TypeError:
    _LOADS = {}
    _DUMPS = {"separators": (",", ":")}


def _too_large(size: int) -> ProtocolError:
    return ProtocolError(
        "too_large", "message is %d bytes; the limit is %d" % (size, MAX_MESSAGE_BYTES)
    )


def dumps(msg: "dict[str, Any]") -> bytes:
    # Serialise msg as compact JSON without checking it (the seat's births and events:
    # the hub checks them). Raises ProtocolError if it is too large to send.
    data = str(_json.dumps(msg, **_DUMPS)).encode()
    if len(data) > MAX_MESSAGE_BYTES:
        raise _too_large(len(data))
    return data


def decode(
    data: bytes, mtype: "str | None" = None, seat: int = 0, types: "tuple[Any, ...]" = SEAT_BOUND
) -> "dict[str, Any]":
    # Parse and validate() a payload.
    if len(data) > MAX_MESSAGE_BYTES:
        raise _too_large(len(data))
    try:
        msg = _json.loads(data, **_LOADS)
    except (ValueError, UnicodeError):
        raise ProtocolError("malformed", "payload is not valid JSON") from None
    return validate(msg, types, mtype, seat)
