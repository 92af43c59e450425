# Encoding, decoding and validation of every message. One function pair per side:
#   encode(msg) -> bytes      validates, then serialises compact JSON
#   decode(data) -> dict      parses, checks version, type and fields
# Errors are ProtocolError with a machine-readable code and the offending field
# (a path such as "dice[1].face" for nested values).
#
# The field tables below are the executable form of protocol/README.md; the JSON
# Schemas in protocol/schemas/ state the same contract independently and the test
# suite checks that both agree on every example. Tables are tuples, never dicts,
# because MicroPython iterates dicts in hash order and both sides must report the
# same first bad field.

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
#   "w", lo, hi           lo..hi characters from a-z, 0-9 and '_'
#   "h", lo, hi           an even number (lo..hi) of upper-case hex digits
#   "e", choices          one of the strings in the tuple `choices`
#   "l", lo, hi, spec     lo..hi items, each matching the spec that follows
#   "o", fields           an object with these fields; unknown keys are ignored
# The order is the order of the checks, so both sides report the same first bad field.

# Length of the board lists: riskproto.territories.TERRITORIES.
TERRITORY_COUNT = 42

EVENT_KINDS = ("encoder", "button", "dice", "card", "resync")
BUTTONS = ("confirm", "back", "encoder", "roll")
PRESSES = ("short", "long")
DIE_STATES = ("rolling", "settled", "crooked")
COMMANDS = ("arm_dice", "disarm", "identify", "beep", "brightness")
RING_MODES = ("off", "count", "progress", "pulse", "spin")
PHASES = ("setup", "reinforce", "attack", "fortify", "over")

_DIE = ("id", True, "s", 1, 24, "face", True, "i", 1, 6, "state", True, "e", DIE_STATES)
_RING = ("mode", True, "e", RING_MODES, "value", False, "i", 0, 99, "max", False, "i", 0, 99)
_TURN = ("seat", True, "i", 1, 6, "phase", True, "e", PHASES, "round", False, "i", 0, MAX_COUNTER)

# fmt: off
# Each message type: (type, fields, discriminator or None, variants), where the
# variants add fields by the discriminator's value ("kind" of an event, "cmd" of a cmd).
_TYPES = (
    ("hub_status", ("online", True, "b", "session", True, "i", 0, MAX_COUNTER), None, ()),
    (
        "seat_status",
        (
            "seat", True, "i", 1, 6,
            "online", True, "b",
            "session", True, "i", 0, MAX_COUNTER,
            "boot", False, "i", 0, MAX_COUNTER,
            "fw", False, "s", 1, 32,
            "caps", False, "l", 0, 16, "w", 1, 16,
        ),
        None,
        (),
    ),
    (
        "event",
        ("seat", True, "i", 1, 6, "seq", True, "i", 1, MAX_COUNTER, "kind", True, "e", EVENT_KINDS),
        "kind",
        (
            ("encoder", ("steps", True, "i", -64, 64)),
            ("button", ("button", True, "e", BUTTONS, "press", True, "e", PRESSES)),
            ("dice", ("roll", True, "i", 0, MAX_COUNTER, "dice", True, "l", 1, 3, "o", _DIE)),
            ("card", ("uid", True, "h", 8, 20)),
            ("resync", ()),
        ),
    ),
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
    (
        "board",
        (
            "owners", True, "l", TERRITORY_COUNT, TERRITORY_COUNT, "i", 0, 6,
            "armies", True, "l", TERRITORY_COUNT, TERRITORY_COUNT, "i", 0, 999,
            "turn", False, "o", _TURN,
        ),
        None,
        (),
    ),
)
# fmt: on

MESSAGE_TYPES = tuple(sorted(entry[0] for entry in _TYPES))

_HEX = "0123456789ABCDEF"
_WORD = "abcdefghijklmnopqrstuvwxyz0123456789_"


# A field's path ("dice[1].face") is only spelled out when a check fails: checks
# pass the parent path and the key (a name, or an index into a list), so a valid
# message costs no string building, which matters to a seat decoding a board.


def _path(parent: str, key: "str | int") -> str:
    if isinstance(key, int):
        return parent + "[" + str(key) + "]"
    if parent:
        return parent + "." + key
    return key


def _fail(parent: str, key: "str | int", what: str) -> None:
    path = _path(parent, key)
    raise ProtocolError(E_SCHEMA, f"field '{path}' must be {what}", path)


def _is_int(value: "Any") -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_length(parent: str, key: "str | int", value: "Any", lo: int, hi: int, unit: str) -> None:
    if len(value) < lo or len(value) > hi:
        if lo == hi:
            _fail(parent, key, f"{lo} {unit} long")
        _fail(parent, key, f"{lo} to {hi} {unit} long")


def _check_chars(
    parent: str, key: "str | int", value: "Any", lo: int, hi: int, alphabet: str
) -> None:
    if not isinstance(value, str):
        _fail(parent, key, "a string")
    _check_length(parent, key, value, lo, hi, "characters")
    for ch in value:
        if ch not in alphabet:
            what = "upper-case hex digits" if alphabet is _HEX else "a-z0-9_"
            _fail(parent, key, "made of " + what)


def _after(spec: "tuple[Any, ...]", i: int) -> int:
    # The index just past the value spec that starts at spec[i].
    kind = spec[i]
    if kind == "b":
        return i + 1
    if kind == "e" or kind == "o":
        return i + 2
    if kind == "l":
        return _after(spec, i + 3)
    return i + 3


def _check(parent: str, key: "str | int", spec: "tuple[Any, ...]", i: int, value: "Any") -> None:
    # Check value against the value spec that starts at spec[i].
    kind = spec[i]
    if kind == "i":
        if not _is_int(value) or value < spec[i + 1] or value > spec[i + 2]:
            _fail(parent, key, f"an integer from {spec[i + 1]} to {spec[i + 2]}")
    elif kind == "b":
        if not isinstance(value, bool):
            _fail(parent, key, "true or false")
    elif kind == "s":
        if not isinstance(value, str):
            _fail(parent, key, "a string")
        _check_length(parent, key, value, spec[i + 1], spec[i + 2], "characters")
    elif kind == "w":
        _check_chars(parent, key, value, spec[i + 1], spec[i + 2], _WORD)
    elif kind == "h":
        _check_chars(parent, key, value, spec[i + 1], spec[i + 2], _HEX)
        if len(value) % 2:
            _fail(parent, key, "an even number of hex digits")
    elif kind == "e":
        if not isinstance(value, str) or value not in spec[i + 1]:
            _fail(parent, key, "one of " + ", ".join(spec[i + 1]))
    elif kind == "l":
        if not isinstance(value, list):
            _fail(parent, key, "a list")
        _check_length(parent, key, value, spec[i + 1], spec[i + 2], "items")
        item = i + 3
        if spec[item] == "i":
            # The common case (board lists, colours) checked inline: no calls.
            lo = spec[item + 1]
            hi = spec[item + 2]
            for n in range(len(value)):
                v = value[n]
                if not _is_int(v) or v < lo or v > hi:
                    _fail(_path(parent, key), n, f"an integer from {lo} to {hi}")
        else:
            here = _path(parent, key)
            for n in range(len(value)):
                _check(here, n, spec, item, value[n])
    elif kind == "o":
        if not isinstance(value, dict):
            _fail(parent, key, "an object")
        _check_fields(_path(parent, key), spec[i + 1], value)


def _check_fields(parent: str, fields: "tuple[Any, ...]", msg: "dict[str, Any]") -> None:
    i = 0
    while i < len(fields):
        name = fields[i]
        if name in msg:
            _check(parent, name, fields, i + 2, msg[name])
        elif fields[i + 1]:
            path = _path(parent, name)
            raise ProtocolError(E_SCHEMA, f"field '{path}' is missing", path)
        i = _after(fields, i + 2)


def check_version(msg: "dict[str, Any]") -> None:
    # Raise unless msg speaks this side's protocol version; the error names both.
    version = msg.get("v")  # type: Any
    if not _is_int(version):
        raise ProtocolError(E_SCHEMA, "field 'v' (protocol version) must be an integer", "v")
    if version != PROTOCOL_VERSION:
        raise ProtocolError(
            E_VERSION,
            f"protocol version {version} is not supported;"
            f" this side speaks version {PROTOCOL_VERSION}",
            "v",
        )


def validate(msg: "Any") -> "dict[str, Any]":
    # Check a decoded message; return it unchanged or raise ProtocolError.
    if not isinstance(msg, dict):
        raise ProtocolError(E_SCHEMA, "a message must be a JSON object")
    check_version(msg)
    mtype = msg.get("t")
    for name, fields, discriminator, variants in _TYPES:
        if name == mtype:
            _check_fields("", fields, msg)
            if discriminator is not None:
                which = msg[discriminator]
                for variant, extra in variants:
                    if variant == which:
                        _check_fields("", extra, msg)
            return msg
    raise ProtocolError(E_SCHEMA, "field 't' must be one of " + ", ".join(MESSAGE_TYPES), "t")


def _refuse_constant(name: str) -> None:
    raise ValueError("JSON has no " + name)


def _takes_keyword(fn: "Any", arg: str, **kw: "Any") -> bool:
    # Whether fn accepts these keywords; MicroPython's json lacks the ones probed here.
    try:
        fn(arg, **kw)
    except TypeError:
        return False
    return True


# CPython's json accepts NaN and Infinity unless told otherwise; MicroPython's
# refuses them already.
# The keyword calls go through an untyped name: MicroPython's json stub rightly lacks
# these keywords, and the probes above decide at run time whether they are used.
_json = json  # type: Any
_STRICT_LOADS = _takes_keyword(json.loads, "0", parse_constant=_refuse_constant)
# Raw UTF-8 keeps a non-ASCII character to at most 4 bytes (CPython's default
# escapes one outside the BMP as 12); MicroPython always writes UTF-8.
_UTF8_DUMPS = _takes_keyword(json.dumps, "", ensure_ascii=False)


def _loads(data: bytes) -> "Any":
    if _STRICT_LOADS:
        return _json.loads(data, parse_constant=_refuse_constant)
    return json.loads(data)


def _dumps(msg: "dict[str, Any]") -> bytes:
    if _UTF8_DUMPS:
        text = str(_json.dumps(msg, separators=(",", ":"), ensure_ascii=False))
    else:
        text = json.dumps(msg, separators=(",", ":"))
    try:
        return text.encode()
    except UnicodeError:
        raise ProtocolError(E_SCHEMA, "text holds a character UTF-8 cannot carry") from None


def _too_large(size: int) -> ProtocolError:
    return ProtocolError(E_TOO_LARGE, f"message is {size} bytes; the limit is {MAX_MESSAGE_BYTES}")


def encode(msg: "dict[str, Any]") -> bytes:
    validate(msg)
    data = _dumps(msg)
    if len(data) > MAX_MESSAGE_BYTES:
        raise _too_large(len(data))
    return data


def decode(data: bytes) -> "dict[str, Any]":
    if len(data) > MAX_MESSAGE_BYTES:
        raise _too_large(len(data))
    try:
        msg = _loads(data)
    except (ValueError, UnicodeError):
        raise ProtocolError(E_MALFORMED, "payload is not valid JSON") from None
    return validate(msg)


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
