# Decoder for messages a Pixels die (GameWithPixels) sends on its notify
# characteristic, written from the published Pixels communications protocol.
#
# Every message starts with a one-byte message id; multi-byte fields are little
# endian. The ones the seat needs:
#   RollState  id 3:  roll state (1 byte), face index (1 byte, 0-based)
#   IAmADie    id 2:  22 bytes, answer to WhoAreYou (id 1); carries the pixel id
#                     (4 bytes at offset 8) and the current roll state and face
#                     index at offsets 18 and 19
#   BatteryLevel id 34: level in percent, battery state
#
# Roll states as current firmware numbers them: 0 unknown, 1 rolled, 2 handling,
# 3 rolling, 4 crooked, 5 on face (resting without a proper roll). Early firmware
# used 1 for "on face" and had no 5; either way 1 means resting on a face after
# the die moved, so it is read as rolled.

from micropython import const

from drivers.dice import CROOKED, ONFACE, ROLLED, ROLLING, reading

_MSG_WHO_ARE_YOU = const(1)
_MSG_I_AM_A_DIE = const(2)
_MSG_ROLL_STATE = const(3)
_MSG_BATTERY = const(34)

_I_AM_A_DIE_LEN = const(22)
_OFS_PIXEL_ID = const(8)
_OFS_ROLL_STATE = const(18)

_STATE_ROLLED = const(1)
_STATE_HANDLING = const(2)
_STATE_ROLLING = const(3)
_STATE_CROOKED = const(4)
_STATE_ON_FACE = const(5)

# The one-byte request that makes a die answer with IAmADie.
WHO_ARE_YOU = bytes((_MSG_WHO_ARE_YOU,))


def die_id(pixel_id: int) -> str:
    return "px-%08x" % pixel_id


def _normalise(ident: str, state: int, index: int, faces: int) -> "tuple[str, str, int] | None":
    if state == _STATE_ROLLING or state == _STATE_HANDLING:
        return reading(ident, ROLLING, 0)
    if state == _STATE_CROOKED:
        return reading(ident, CROOKED, 0)
    if state == _STATE_ROLLED or state == _STATE_ON_FACE:
        if index >= faces:
            return None
        return reading(ident, ROLLED if state == _STATE_ROLLED else ONFACE, index + 1)
    # Unknown (0) or a state newer than this decoder: say nothing rather than guess.
    return None


# data: one notification (bytes, bytearray or memoryview). Returns a normalised
# reading, or None for messages that carry no roll information or are malformed.
def decode(ident: str, data: "bytes | bytearray | memoryview",
           faces: int = 6) -> "tuple[str, str, int] | None":
    n = len(data)
    if n == 0:
        return None
    kind = data[0]
    if kind == _MSG_ROLL_STATE and n >= 3:
        return _normalise(ident, data[1], data[2], faces)
    if kind == _MSG_I_AM_A_DIE and n == _I_AM_A_DIE_LEN:
        return _normalise(ident, data[_OFS_ROLL_STATE], data[_OFS_ROLL_STATE + 1], faces)
    return None


def pixel_id(data: "bytes | bytearray | memoryview") -> "int | None":
    # The die's unique 32-bit id from an IAmADie message.
    if len(data) != _I_AM_A_DIE_LEN or data[0] != _MSG_I_AM_A_DIE:
        return None
    o = _OFS_PIXEL_ID
    return data[o] | (data[o + 1] << 8) | (data[o + 2] << 16) | (data[o + 3] << 24)


def battery(data: "bytes | bytearray | memoryview") -> "tuple[int, int] | None":
    # (level percent, battery state) from a BatteryLevel message.
    if len(data) >= 3 and data[0] == _MSG_BATTERY:
        return (data[1], data[2])
    return None
