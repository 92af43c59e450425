# Decoder for messages a Pixels die (GameWithPixels) sends on its notify
# characteristic, written from the published Pixels communications protocol.
#
# Every message starts with a one-byte message id; multi-byte fields are little
# endian. The ones the seat needs:
#   RollState  id 3:  roll state (1 byte), face index (1 byte, 0-based)
#   IAmADie    id 2:  answer to WhoAreYou (id 1), carrying the pixel id and the
#                     current roll state and face index. Legacy firmware sends 22
#                     bytes: the pixel id at offset 8, state and face at 18 and 19.
#                     Current firmware sends six chunks after the id, each led by a
#                     size byte that counts itself: version info, die info (pixel id
#                     right after its size byte), two names (size byte, text, NUL),
#                     settings info, status info (battery percent, battery state,
#                     roll state, face index after its size byte), as the Pixels
#                     SDK (pixels-js) reads it.
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
def _u32(data: "bytes | bytearray | memoryview", o: int) -> int:
    return data[o] | (data[o + 1] << 8) | (data[o + 2] << 16) | (data[o + 3] << 24)


def _i_am_a_die(data: "bytes | bytearray | memoryview") -> "tuple[int, int, int] | None":
    # (pixel id, roll state, face index) from an IAmADie of either firmware, or None
    # when it is not one or is cut short (a notification longer than the MTU allows).
    n = len(data)
    if n == 0 or data[0] != _MSG_I_AM_A_DIE:
        return None
    if n == _I_AM_A_DIE_LEN:
        return (_u32(data, _OFS_PIXEL_ID), data[_OFS_ROLL_STATE], data[_OFS_ROLL_STATE + 1])
    o = 1
    if o >= n or data[o] < 1:
        return None
    o += data[o]  # version info
    if o + 5 > n or data[o] < 5:
        return None
    pid = _u32(data, o + 1)
    o += data[o]  # die info
    for _ in range(2):  # the design's and the die's names
        o += 1
        while o < n and data[o] != 0:
            o += 1
        o += 1
    if o >= n or data[o] < 1:
        return None
    o += data[o]  # settings info
    if o + 5 > n or data[o] < 5:
        return None
    return (pid, data[o + 3], data[o + 4])


def decode(ident: str, data: "bytes | bytearray | memoryview",
           faces: int = 6) -> "tuple[str, str, int] | None":
    n = len(data)
    if n == 0:
        return None
    kind = data[0]
    if kind == _MSG_ROLL_STATE and n >= 3:
        return _normalise(ident, data[1], data[2], faces)
    fields = _i_am_a_die(data)
    if fields is not None:
        return _normalise(ident, fields[1], fields[2], faces)
    return None


def pixel_id(data: "bytes | bytearray | memoryview") -> "int | None":
    # The die's unique 32-bit id from an IAmADie message.
    fields = _i_am_a_die(data)
    return None if fields is None else fields[0]


def battery(data: "bytes | bytearray | memoryview") -> "tuple[int, int] | None":
    # (level percent, battery state) from a BatteryLevel message.
    if len(data) >= 3 and data[0] == _MSG_BATTERY:
        return (data[1], data[2])
    return None
