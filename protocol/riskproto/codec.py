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

# Error codes (also used in error replies on seat/<n>/error).
E_MALFORMED = "malformed"
E_SCHEMA = "schema"
E_VERSION = "version"
E_TOO_LARGE = "too_large"
E_UNKNOWN_SEAT = "unknown_seat"
E_STALE = "stale"
E_DUPLICATE = "duplicate"
E_NOT_ALLOWED = "not_allowed"

ERROR_CODES = (
    E_MALFORMED,
    E_SCHEMA,
    E_VERSION,
    E_TOO_LARGE,
    E_UNKNOWN_SEAT,
    E_STALE,
    E_DUPLICATE,
    E_NOT_ALLOWED,
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

_RING = ("mode", True, "e", RING_MODES, "value", False, "i", 0, 99, "max", False, "i", 0, 99)

# fmt: off
# Each message type: (type, fields, discriminator or None, variants), where the
# variants add fields by the discriminator's value ("cmd" of a cmd, "kind" of an event).
SEAT_BOUND = (
    ("hub_status", ("online", True, "b", "session", True, "i", 0, MAX_COUNTER), None, ()),
    ("ack", ("seq", True, "i", 1, MAX_COUNTER), None, ()),
    (
        "error",
        (
            "code", True, "e", ERROR_CODES,
            "detail", True, "s", 0, MAX_DETAIL,
            "seq", False, "i", 1, MAX_COUNTER,
            "field", False, "s", 1, 32,
        ),
        None,
        (),
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
            "ring", False, "o", _RING,
        ),
        None,
        (),
    ),
    (
        "cmd",
        ("cmd", True, "e", COMMANDS),
        "cmd",
        (
            ("arm_dice", ("roll", True, "i", 0, MAX_COUNTER, "count", True, "i", 1, 3)),
            ("disarm", ("roll", True, "i", 0, MAX_COUNTER)),
            ("identify", ("seconds", False, "i", 1, 60)),
            ("beep", ("ms", True, "i", 10, 2000, "hz", False, "i", 100, 8000)),
            ("brightness", ("level", True, "i", 0, 255)),
        ),
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
        return ProtocolError(E_SCHEMA, "field '%s' is missing" % path, path)
    return ProtocolError(E_SCHEMA, "field '%s' must be %s" % (path, what), path)


def _length(parent: str, key: "str | int", value: "Any", lo: int, hi: int, unit: str) -> None:
    if len(value) < lo or len(value) > hi:
        if lo == hi:
            raise _error(parent, key, "%d %s long" % (lo, unit))
        raise _error(parent, key, "%d to %d %s long" % (lo, hi, unit))


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
    elif kind == "s":
        if not isinstance(value, str):
            raise _error(parent, key, "a string")
        _length(parent, key, value, spec[i + 1], spec[i + 2], "characters")
    elif kind == "e":
        if not isinstance(value, str) or value not in spec[i + 1]:
            raise _error(parent, key, "one of " + ", ".join(spec[i + 1]))
    elif kind == "l":
        if not isinstance(value, list):
            raise _error(parent, key, "a list")
        _length(parent, key, value, spec[i + 1], spec[i + 2], "items")
        here = _path(parent, key)
        for n in range(len(value)):
            _check(here, n, spec, i + 3, value[n])
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


def check_version(msg: "dict[str, Any]") -> None:
    # Raise unless msg speaks this side's protocol version; the error names both.
    version = msg.get("v")  # type: Any
    if not isinstance(version, int) or isinstance(version, bool):
        raise ProtocolError(E_SCHEMA, "field 'v' (protocol version) must be an integer", "v")
    if version != PROTOCOL_VERSION:
        raise ProtocolError(
            E_VERSION,
            "protocol version %d is not supported; this side speaks version %d"
            % (version, PROTOCOL_VERSION),
            "v",
        )


def validate(
    msg: "Any", types: "tuple[Any, ...]" = SEAT_BOUND, mtype: "str | None" = None, seat: int = 0
) -> "dict[str, Any]":
    # Check a parsed message against the tables `types` (by default the types a seat
    # receives); return it unchanged or raise ProtocolError. A seat also passes the
    # type its topic carries (mtype) and its number (a `seat` field must equal it).
    if not isinstance(msg, dict):
        raise ProtocolError(E_SCHEMA, "a message must be a JSON object")
    check_version(msg)
    name = msg.get("t")
    if mtype is not None and name != mtype:
        raise _error("", "t", mtype)
    for entry in types:
        if entry[0] == name:
            _check_fields("", entry[1], msg)
            if entry[2] is not None:
                which = msg[entry[2]]
                for variant in entry[3]:
                    if variant[0] == which:
                        _check_fields("", variant[1], msg)
            if seat and msg.get("seat", seat) != seat:
                raise _error("", "seat", str(seat))
            return msg
    raise _error("", "t", "one of " + ", ".join(sorted([entry[0] for entry in types])))


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


def _loads(data: bytes) -> "Any":
    return _json.loads(data, **_LOADS)


def too_large(size: int) -> ProtocolError:
    return ProtocolError(
        E_TOO_LARGE, "message is %d bytes; the limit is %d" % (size, MAX_MESSAGE_BYTES)
    )


def dumps(msg: "dict[str, Any]") -> bytes:
    # Serialise msg as compact JSON without checking it (the seat's births and events:
    # the hub checks them). Raises ProtocolError if it is too large to send.
    data = str(_json.dumps(msg, **_DUMPS)).encode()
    if len(data) > MAX_MESSAGE_BYTES:
        raise too_large(len(data))
    return data


def decode(
    data: bytes, mtype: "str | None" = None, seat: int = 0, types: "tuple[Any, ...]" = SEAT_BOUND
) -> "dict[str, Any]":
    # Parse and validate() a payload.
    if len(data) > MAX_MESSAGE_BYTES:
        raise too_large(len(data))
    try:
        msg = _loads(data)
    except (ValueError, UnicodeError):
        raise ProtocolError(E_MALFORMED, "payload is not valid JSON") from None
    return validate(msg, types, mtype, seat)


def message(mtype: str, **fields: "Any") -> "dict[str, Any]":
    # Build a message of type `mtype` with the current protocol version.
    msg = {"v": PROTOCOL_VERSION, "t": mtype}
    for key in fields:
        msg[key] = fields[key]
    return msg
