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


# Value specs are tuples whose first item names the check:
#   ("int", lo, hi)            an integer (never a bool or a float) in [lo, hi]
#   ("bool",)
#   ("str", lo, hi)            a string of lo..hi characters
#   ("word", lo, hi)           lo..hi characters from a-z, 0-9 and '_'
#   ("hex", lo, hi)            an even number (lo..hi) of upper-case hex digits
#   ("enum", (a, b, ...))      one of the listed strings
#   ("list", spec, lo, hi)     lo..hi items, each matching spec
#   ("obj", fields)            an object; fields as below; unknown keys are ignored
# A field list is a tuple of (name, spec, required).


def _int(lo: int, hi: int) -> "tuple[Any, ...]":
    return ("int", lo, hi)


def _str(lo: int, hi: int) -> "tuple[Any, ...]":
    return ("str", lo, hi)


def _enum(*choices: str) -> "tuple[Any, ...]":
    return ("enum", choices)


def _list(item: "tuple[Any, ...]", lo: int, hi: int) -> "tuple[Any, ...]":
    return ("list", item, lo, hi)


_BOOL = ("bool",)
_SEAT = _int(1, 6)
_COUNTER = _int(0, MAX_COUNTER)
_SEQ = _int(1, MAX_COUNTER)
_BYTE = _int(0, 255)
_RGB = _list(_BYTE, 3, 3)

# Length of the board lists: riskproto.territories.TERRITORIES.
TERRITORY_COUNT = 42

EVENT_KINDS = ("encoder", "button", "dice", "card", "resync")
BUTTONS = ("confirm", "back", "encoder", "roll")
PRESSES = ("short", "long")
DIE_STATES = ("rolling", "settled", "crooked")
COMMANDS = ("arm_dice", "disarm", "identify", "beep", "brightness")
RING_MODES = ("off", "count", "progress", "pulse", "spin")
PHASES = ("setup", "reinforce", "attack", "fortify", "over")

_DIE = (
    "obj",
    (
        ("id", _str(1, 24), True),
        ("face", _int(1, 6), True),
        ("state", _enum(*DIE_STATES), True),
    ),
)

# Fields that depend on a discriminator field ("kind" of an event, "cmd" of a cmd).
_EVENT_FIELDS = (
    ("encoder", (("steps", _int(-64, 64), True),)),
    ("button", (("button", _enum(*BUTTONS), True), ("press", _enum(*PRESSES), True))),
    ("dice", (("roll", _COUNTER, True), ("dice", _list(_DIE, 1, 3), True))),
    ("card", (("uid", ("hex", 8, 20), True),)),
    ("resync", ()),
)

_CMD_FIELDS = (
    ("arm_dice", (("roll", _COUNTER, True), ("count", _int(1, 3), True))),
    ("disarm", (("roll", _COUNTER, True),)),
    ("identify", (("seconds", _int(1, 60), False),)),
    ("beep", (("ms", _int(10, 2000), True), ("hz", _int(100, 8000), False))),
    ("brightness", (("level", _BYTE, True),)),
)

_RING = (
    "obj",
    (
        ("mode", _enum(*RING_MODES), True),
        ("value", _int(0, 99), False),
        ("max", _int(0, 99), False),
    ),
)

_TURN = (
    "obj",
    (
        ("seat", _SEAT, True),
        ("phase", _enum(*PHASES), True),
        ("round", _COUNTER, False),
    ),
)

# Each message type: (type, fields, discriminator or None, variants).
_TYPES = (
    ("hub_status", (("online", _BOOL, True), ("session", _COUNTER, True)), None, ()),
    (
        "seat_status",
        (
            ("seat", _SEAT, True),
            ("online", _BOOL, True),
            ("session", _COUNTER, True),
            ("boot", _COUNTER, False),
            ("fw", _str(1, 32), False),
            ("caps", _list(("word", 1, 16), 0, 16), False),
        ),
        None,
        (),
    ),
    (
        "event",
        (("seat", _SEAT, True), ("seq", _SEQ, True), ("kind", _enum(*EVENT_KINDS), True)),
        "kind",
        _EVENT_FIELDS,
    ),
    ("ack", (("seq", _SEQ, True),), None, ()),
    (
        "error",
        (
            ("code", _enum(*ERROR_CODES), True),
            ("detail", _str(0, MAX_DETAIL), True),
            ("seq", _SEQ, False),
            ("field", _str(1, 32), False),
        ),
        None,
        (),
    ),
    (
        "view",
        (
            ("seat", _SEAT, True),
            ("colour", _RGB, True),
            ("name", _str(0, 16), False),
            ("active", _BOOL, False),
            ("phase", _enum(*PHASES), False),
            ("lines", _list(_str(0, 24), 0, 4), False),
            ("ring", _RING, False),
        ),
        None,
        (),
    ),
    ("cmd", (("cmd", _enum(*COMMANDS), True),), "cmd", _CMD_FIELDS),
    (
        "board",
        (
            ("owners", _list(_int(0, 6), TERRITORY_COUNT, TERRITORY_COUNT), True),
            ("armies", _list(_int(0, 999), TERRITORY_COUNT, TERRITORY_COUNT), True),
            ("turn", _TURN, False),
        ),
        None,
        (),
    ),
)

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
    parent: str, key: "str | int", value: "Any", spec: "tuple[Any, ...]", alphabet: str
) -> None:
    if not isinstance(value, str):
        _fail(parent, key, "a string")
    _check_length(parent, key, value, spec[1], spec[2], "characters")
    for ch in value:
        if ch not in alphabet:
            what = "upper-case hex digits" if alphabet is _HEX else "a-z0-9_"
            _fail(parent, key, "made of " + what)


def _check(parent: str, key: "str | int", spec: "tuple[Any, ...]", value: "Any") -> None:
    kind = spec[0]
    if kind == "int":
        if not _is_int(value) or value < spec[1] or value > spec[2]:
            _fail(parent, key, f"an integer from {spec[1]} to {spec[2]}")
    elif kind == "bool":
        if not isinstance(value, bool):
            _fail(parent, key, "true or false")
    elif kind == "str":
        if not isinstance(value, str):
            _fail(parent, key, "a string")
        _check_length(parent, key, value, spec[1], spec[2], "characters")
    elif kind == "word":
        _check_chars(parent, key, value, spec, _WORD)
    elif kind == "hex":
        _check_chars(parent, key, value, spec, _HEX)
        if len(value) % 2:
            _fail(parent, key, "an even number of hex digits")
    elif kind == "enum":
        if not isinstance(value, str) or value not in spec[1]:
            _fail(parent, key, "one of " + ", ".join(spec[1]))
    elif kind == "list":
        if not isinstance(value, list):
            _fail(parent, key, "a list")
        _check_length(parent, key, value, spec[2], spec[3], "items")
        item = spec[1]
        if item[0] == "int":
            # The common case (board lists, colours) checked inline: no calls.
            lo = item[1]
            hi = item[2]
            for i in range(len(value)):
                v = value[i]
                if not _is_int(v) or v < lo or v > hi:
                    _fail(_path(parent, key), i, f"an integer from {lo} to {hi}")
        else:
            here = _path(parent, key)
            for i in range(len(value)):
                _check(here, i, item, value[i])
    elif kind == "obj":
        if not isinstance(value, dict):
            _fail(parent, key, "an object")
        _check_fields(_path(parent, key), spec[1], value)


def _check_fields(parent: str, fields: "tuple[Any, ...]", msg: "dict[str, Any]") -> None:
    for name, spec, required in fields:
        if name in msg:
            _check(parent, name, spec, msg[name])
        elif required:
            path = _path(parent, name)
            raise ProtocolError(E_SCHEMA, f"field '{path}' is missing", path)


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
