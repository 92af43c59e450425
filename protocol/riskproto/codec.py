# The checking engine and the messages a seat receives (hub_status, view, ack, error,
# cmd). A seat loads only this module of the codec: it checks what the hub sends it
# and writes its own births and events without checking them, because the hub checks
# everything it receives and answers an invalid event with an error naming its seq,
# which closes the event (protocol/README.md, "The riskproto package").
# riskproto.messages adds the tables of the other types (seat_status, event, board)
# and is the hub's codec: its validate and decode check every type with this engine,
# so both sides give the same code and first bad field for a message.
#
# Errors are ProtocolError with a machine-readable code and the offending field (a
# path such as "dice[1].face" for nested values). The engine writes no texts: a seat
# logs only the code and field, and every text constant would stay in its small heap.
# Its errors carry instead, in `why`, what riskproto.messages (which only the hub
# loads) needs to write the hub's text, the same for the same verdict.

import json

from riskproto import MAX_MESSAGE_BYTES, PROTOCOL_VERSION

try:
    from typing import Any
except ImportError:
    pass

# The error codes (riskproto.messages names each one as E_...). This module writes
# the four it raises as plain strings: interned names, where a module global would
# cost a seat's heap a dictionary entry each.
ERROR_CODES = tuple([  # built at run time: see REQ below
    "malformed",
    "schema",
    "version",
    "too_large",
    "unknown_seat",
    "stale",
    "duplicate",
    "not_allowed",
])

# Largest session, boot, sequence and roll number: fits a MicroPython small int on
# every port, so the firmware never allocates to count.
MAX_COUNTER = 0x3FFFFFFF
# Longest error detail the hub sends; the rest of an error reply stays small.
MAX_DETAIL = 120


class ProtocolError(ValueError):
    # `message` is the text the hub sends. The engine's own errors carry no text (a
    # seat logs only code and field): their message is the field, or the code, and
    # `why` holds what riskproto.messages.text writes the hub's text from, a word and
    # its arguments:
    #   ("json", payload)            the payload is not JSON
    #   ("size", n)                  it is n bytes, over MAX_MESSAGE_BYTES
    #   ("object", msg)              the message is not a JSON object
    #   ("v", v)                     its "v" is not an integer
    #   ("version", v)               it speaks protocol version v
    #   ("missing", name)            the field is missing
    #   ("is", x)                    the field must be x (a seat's topic, its number)
    #   ("types", types)             "t" names none of the types in the table `types`
    #   ("value", spec, i, value)    value does not match the value spec at spec[i]
#   ("die_id", lo, hi)           the field is not a smart die's id of lo..hi characters
    # An error made with its text has `why` None.
    def __init__(self, code: str, message: str, field: "str | None" = None,
                 why: "tuple[Any, ...] | None" = None) -> None:
        super().__init__(message)
        self.code = code
        self.field = field
        self.message = message
        self.why = why


# Each field list is one flat tuple of names, letters and small integers, read while
# checking: nested tuples (one per field and per value spec) cost a 64-bit MicroPython
# heap about 6 KiB more, and small integers and interned names cost nothing more, so a
# check allocates nothing. A field is: name, required (REQ/OPT), then its spec,
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

# Every table is built when the module runs, never a literal of constants only:
# mpy-cross stores such a literal whole, and loading it makes each of its strings a
# str object (about 64 bytes of a seat's heap each) unless the name is already
# interned; a tuple built at run time holds interned names (qstrs, a few bytes). So
# the choices are tuple([...]) and every field list holds a name (REQ or OPT).
REQ = True
OPT = False

# "update" has its fields in riskproto.update, which a seat loads only for an update.
COMMANDS = tuple(["arm_dice", "disarm", "identify", "beep", "brightness", "update"])
RING_MODES = tuple(["off", "count", "progress", "pulse", "spin"])
PHASES = tuple(["setup", "reinforce", "attack", "fortify", "over"])
# Longest smart die id ("gd-" and a 12-digit BLE address; "px-" and 8 hex digits).
MAX_DIE_ID = 16
# A view's lines: up to 12 of 40 characters, the display rows of a right-to-left view
# (three pages of four); a left-to-right view has at most 4 lines of 24 (the hub's rule).
MAX_LINES = 12
MAX_LINE = 40


def die_id(parent: str, key: "str | int", value: "Any", lo: int, hi: int) -> None:
    # A smart die's id as the registry names it (a view's `dice`, a pair event): lo..hi
    # characters from a-z, 0-9 and "-". The narrow alphabet keeps a view with three ids
    # within MAX_MESSAGE_BYTES, where six-byte escapes would not be.
    if isinstance(value, str) and lo <= len(value) <= hi:
        for ch in value:
            if not ("a" <= ch <= "z" or "0" <= ch <= "9" or ch == "-"):
                break
        else:
            return
    path = _path(parent, key)
    raise ProtocolError("schema", path, path, ("die_id", lo, hi))

# fmt: off
# Each message type: (type, fields), and for a type with variants then the name of
# the field that picks one ("cmd" of a cmd, "kind" of an event) and pairs of its
# value and the fields that value adds.
SEAT_BOUND = (
    ("hub_status", ("online", REQ, "b", "session", REQ, "i", 0, MAX_COUNTER)),
    ("ack", ("seq", REQ, "i", 1, MAX_COUNTER)),
    (
        "error",
        (
            "code", REQ, "e", ERROR_CODES,
            "detail", REQ, "s", 0, MAX_DETAIL,
            "seq", OPT, "i", 1, MAX_COUNTER,
            "field", OPT, "s", 1, 32,
        ),
    ),
    (
        "view",
        (
            "seat", REQ, "i", 1, 6,
            "colour", REQ, "l", 3, 3, "i", 0, 255,
            "name", OPT, "s", 0, 16,
            "active", OPT, "b",
            "phase", OPT, "e", PHASES,
            "lines", OPT, "l", 0, MAX_LINES, "s", 0, MAX_LINE,
            "rtl", OPT, "b",
            "ring", OPT, "o", (
                "mode", REQ, "e", RING_MODES,
                "value", OPT, "i", 0, 99,
                "max", OPT, "i", 0, 99,
            ),
            "dice", OPT, "l", 0, 3, die_id, 1, MAX_DIE_ID,
            "enroll", OPT, "i", 0, 99,
        ),
    ),
    (
        "cmd",
        ("cmd", REQ, "e", COMMANDS),
        "cmd",
        "arm_dice", ("roll", REQ, "i", 0, MAX_COUNTER, "count", REQ, "i", 1, 3,
                     "faces", OPT, "l", 1, 3, "i", 0, 6),
        "disarm", ("roll", REQ, "i", 0, MAX_COUNTER),
        "identify", ("seconds", OPT, "i", 1, 60),
        "beep", ("ms", REQ, "i", 10, 2000, "hz", OPT, "i", 100, 8000),
        "brightness", ("level", REQ, "i", 0, 255),
    ),
)
# fmt: on


# A check passes the parent's path and the key (a name, or an index into a list);
# the field's path ("dice[1].face") is spelled out only for a nested check or when
# one fails.


def _path(parent: str, key: "str | int") -> str:
    if isinstance(key, int):
        return parent + "[" + str(key) + "]"
    if parent:
        return parent + "." + key
    return key


def _check(parent: str, key: "str | int", spec: "tuple[Any, ...]", i: int, value: "Any") -> None:
    # Check value against the value spec that starts at spec[i].
    kind = spec[i]
    if kind == "i":
        ok = (isinstance(value, int) and not isinstance(value, bool)
              and spec[i + 1] <= value <= spec[i + 2])
    elif kind == "b":
        ok = isinstance(value, bool)
    elif kind == "s" or kind == "l":
        ok = (isinstance(value, str if kind == "s" else list)
              and spec[i + 1] <= len(value) <= spec[i + 2])
        if ok and kind == "l":
            here = _path(parent, key)
            for n in range(len(value)):
                _check(here, n, spec, i + 3, value[n])
    elif kind == "e":
        ok = isinstance(value, str) and value in spec[i + 1]
    elif kind == "o":
        ok = isinstance(value, dict)
        if ok:
            _check_fields(_path(parent, key), spec[i + 1], value)
    else:
        kind(parent, key, value, spec[i + 1], spec[i + 2])
        return
    if not ok:
        path = _path(parent, key)
        raise ProtocolError("schema", path, path, ("value", spec, i, value))


def _check_fields(parent: str, fields: "tuple[Any, ...]", msg: "dict[str, Any]") -> None:
    i = 0
    while i < len(fields):
        name = fields[i]
        i += 2
        if name in msg:
            _check(parent, name, fields, i, msg[name])
        elif fields[i - 1]:
            path = _path(parent, name)
            raise ProtocolError("schema", path, path, ("missing", name))
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
        raise ProtocolError("schema", "schema", None, ("object", msg))
    # This side's protocol version, first.
    version = msg.get("v")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ProtocolError("schema", "v", "v", ("v", version))
    if version != PROTOCOL_VERSION:
        raise ProtocolError("version", "v", "v", ("version", version))
    name = msg.get("t")
    if mtype is not None and name != mtype:
        raise ProtocolError("schema", "t", "t", ("is", mtype))
    for entry in types:
        if entry[0] == name:
            _check_fields("", entry[1], msg)
            if len(entry) > 2:
                which = msg[entry[2]]
                for j in range(3, len(entry), 2):
                    if entry[j] == which:
                        _check_fields("", entry[j + 1], msg)
            if seat and msg.get("seat", seat) != seat:
                raise ProtocolError("schema", "seat", "seat", ("is", seat))
            return msg
    raise ProtocolError("schema", "t", "t", ("types", types))


# CPython's json accepts NaN and Infinity unless told otherwise (int() refuses them,
# making them malformed) and escapes a character outside the BMP as 12 bytes unless
# told to write raw UTF-8 (at most 4). MicroPython does both already and takes
# neither keyword: there the plain functions serve, and no call passes a keyword
# dict (MicroPython copies one onto its heap at every call). The names are untyped:
# MicroPython's json stub rightly lacks the keywords, and its stubs lack functools.
_loads = json.loads  # type: Any
_dumps = json.dumps  # type: Any
try:
    _loads("0", parse_constant=int)
    from functools import partial  # type: ignore[import-not-found, unused-ignore]

    _loads = partial(json.loads, parse_constant=int)
    _dumps = partial(json.dumps, ensure_ascii=False)
except TypeError:
    pass

# Deepest nesting of arrays and objects a message may have. The contract's messages
# nest at most 3 deep (an event's dice: object, list, die); the rest is room for
# optional fields. Parsing deeper texts is refused: CPython's parser recurses once
# per level (RecursionError near 1,000, which 1,024 bytes of "[" reach) and
# MicroPython's keeps a list per level (a MemoryError in a seat's heap).
MAX_DEPTH = 8


def dumps(msg: "dict[str, Any]") -> bytes:
    # Serialise msg as compact JSON without checking it (the seat's births and events:
    # the hub checks them). Raises ProtocolError if it is too large to send.
    data = str(_dumps(msg, separators=(",", ":"))).encode()
    if len(data) > MAX_MESSAGE_BYTES:
        raise ProtocolError("too_large", "too_large", None, ("size", len(data)))
    return data


def decode(
    data: bytes, mtype: "str | None" = None, seat: int = 0, types: "tuple[Any, ...]" = SEAT_BOUND
) -> "dict[str, Any]":
    # Parse and validate() a payload.
    if len(data) > MAX_MESSAGE_BYTES:
        raise ProtocolError("too_large", "too_large", None, ("size", len(data)))
    try:
        # Counting brackets decides the usual case at C speed; only a text with more
        # than MAX_DEPTH is scanned, by code a seat loads only then.
        if data.count(b"[") + data.count(b"{") > MAX_DEPTH:
            from riskproto.depth import check_depth

            check_depth(data, MAX_DEPTH)
        msg = _loads(data)
    except (ValueError, UnicodeError):
        raise ProtocolError("malformed", "malformed", None, ("json", data)) from None
    return validate(msg, types, mtype, seat)
