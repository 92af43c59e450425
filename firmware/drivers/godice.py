# Decoder for messages a GoDice (Particula) sends on its notify characteristic,
# written from the published GoDice API.
#
# Messages are short ASCII-tagged frames:
#   "R"                    the die started rolling
#   "S"  x y z             stable after a proper roll
#   "FS" x y z             stable after a "fake" roll (shaken in hand, not thrown)
#   "TS" x y z             stable but tilted, not flat on a face
#   "MS" x y z             stable after a small move to another face (turned by hand)
#   "Bat" level            battery level in percent
#   "Col" colour           dot colour: 0 black, 1 red, 2 green, 3 blue, 4 yellow, 5 orange
# x, y, z are signed bytes: the accelerometer's reading of gravity (about +-64 on
# the axis pointing down). The face is the one whose reference vector is nearest.
# For a six-sided die the references lie on the axes, so the nearest one is the
# axis with the largest reading, signed; ties go to x, then y, then z.
#
# Normalised states: S -> rolled; R -> rolling; TS -> crooked; MS and FS -> onface
# (the die shows a face, but it was not rolled, so the hub must not count it).

from micropython import const

from drivers.dice import CROOKED, ONFACE, ROLLED, ROLLING, reading

_R = const(0x52)
_S = const(0x53)
_F = const(0x46)
_T = const(0x54)
_M = const(0x4D)
_B = const(0x42)
_C = const(0x43)

# Face for each signed axis, in the order +x, -x, +y, -y, +z, -z, from the
# published D6 reference vectors. A die whose shell or print differs gets its own
# table of the same shape.
D6_AXES = b"\x06\x01\x03\x04\x02\x05"

REQUEST_COLOUR = b"\x17"
REQUEST_BATTERY = b"\x03"


def die_id(address: "bytes | bytearray | memoryview") -> str:
    return "gd-" + "".join("%02x" % b for b in address)


def _s8(b: int) -> int:
    return b - 256 if b > 127 else b


def face_from_axes(x: int, y: int, z: int, table: bytes = D6_AXES) -> int:
    ax, ay, az = abs(x), abs(y), abs(z)
    if ax >= ay and ax >= az:
        return table[0 if x >= 0 else 1]
    if ay >= az:
        return table[2 if y >= 0 else 3]
    return table[4 if z >= 0 else 5]


def _face_at(data: "bytes | bytearray | memoryview", i: int, table: bytes) -> int:
    return face_from_axes(_s8(data[i]), _s8(data[i + 1]), _s8(data[i + 2]), table)


# data: one notification. Returns a normalised reading, or None for messages that
# carry no roll information or are malformed.
def decode(ident: str, data: "bytes | bytearray | memoryview",
           table: bytes = D6_AXES) -> "tuple[str, str, int] | None":
    n = len(data)
    if n == 0:
        return None
    first = data[0]
    if first == _R:
        return reading(ident, ROLLING, 0)
    if first == _S and n >= 4:
        return reading(ident, ROLLED, _face_at(data, 1, table))
    if n >= 5 and data[1] == _S:
        if first == _T:
            return reading(ident, CROOKED, 0)
        if first == _M or first == _F:
            return reading(ident, ONFACE, _face_at(data, 2, table))
    return None


def battery(data: "bytes | bytearray | memoryview") -> "int | None":
    if len(data) >= 4 and data[0] == _B and data[1] == 0x61 and data[2] == 0x74:
        return data[3]
    return None


def colour(data: "bytes | bytearray | memoryview") -> "int | None":
    if len(data) >= 4 and data[0] == _C and data[1] == 0x6F and data[2] == 0x6C:
        return data[3]
    return None
