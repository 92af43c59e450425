"""Pixels and GoDice message decoders, fed byte vectors built from the published formats."""

from __future__ import annotations

import struct

from tests.firmware.drivers.conftest import RunMpy


def decode_all(run_mpy: RunMpy, module: str, vectors: list[bytes], extra: str = "") -> list:
    return run_mpy(
        f"""
        import json
        from drivers import {module} as m
        for v in {vectors!r}:
            r = m.decode("d1", v{extra})
            print(json.dumps(r))
        """
    )


def pixels_roll_state(state: int, face_index: int) -> bytes:
    return bytes([3, state, face_index])


def pixels_i_am_a_die(pixel_id: int, state: int, face_index: int) -> bytes:
    # id, led count, design & colour, padding, data set hash, pixel id, available
    # flash, build timestamp, roll state, face index, battery level, battery state
    return struct.pack("<BBBBIIHIBBBB", 2, 6, 3, 0, 0xDEADBEEF, pixel_id, 4096,
                       1_700_000_000, state, face_index, 87, 0)


def test_pixels_roll_states_normalise(run_mpy: RunMpy) -> None:
    vectors = [
        pixels_roll_state(3, 2),  # rolling: face ignored
        pixels_roll_state(2, 4),  # handling: still moving
        pixels_roll_state(1, 4),  # rolled, face index 4 -> face 5
        pixels_roll_state(4, 1),  # crooked
        pixels_roll_state(5, 0),  # on face without a roll
        pixels_roll_state(1, 0),
        pixels_roll_state(1, 5),
    ]
    out = decode_all(run_mpy, "pixels", vectors)
    assert out == [
        ["d1", "rolling", 0],
        ["d1", "rolling", 0],
        ["d1", "rolled", 5],
        ["d1", "crooked", 0],
        ["d1", "onface", 1],
        ["d1", "rolled", 1],
        ["d1", "rolled", 6],
    ]


def test_pixels_ignores_unknown_malformed_and_other_messages(run_mpy: RunMpy) -> None:
    vectors = [
        pixels_roll_state(0, 3),  # unknown state
        pixels_roll_state(9, 3),  # state from a newer firmware
        pixels_roll_state(1, 6),  # face index out of range for a d6
        bytes([3, 1]),  # truncated
        b"",
        bytes([34, 80, 1]),  # battery level
        pixels_i_am_a_die(7, 1, 2)[:-1],  # IAmADie one byte short
    ]
    assert decode_all(run_mpy, "pixels", vectors) == [None] * len(vectors)


def test_pixels_i_am_a_die_gives_id_and_current_face(run_mpy: RunMpy) -> None:
    msg = pixels_i_am_a_die(0x1234ABCD, 1, 3)
    out = run_mpy(
        f"""
        import json
        from drivers import pixels
        msg = {msg!r}
        pid = pixels.pixel_id(msg)
        print(json.dumps([pid, pixels.die_id(pid), pixels.decode(pixels.die_id(pid), msg),
                          pixels.battery(bytes([34, 55, 2])), pixels.pixel_id(b"\\x03\\x01\\x02"),
                          list(pixels.WHO_ARE_YOU)]))
        """
    )[0]
    assert out == [0x1234ABCD, "px-1234abcd", ["px-1234abcd", "rolled", 4], [55, 2], None, [1]]


def godice(tag: bytes, x: int, y: int, z: int) -> bytes:
    return tag + struct.pack("bbb", x, y, z)


def test_godice_stable_faces_from_axes(run_mpy: RunMpy) -> None:
    # Published D6 references: 1 -x, 2 +z, 3 +y, 4 -y, 5 -z, 6 +x; readings are
    # noisy, so each vector is off-axis but nearest one reference.
    vectors = [
        godice(b"S", -62, 5, -3),
        godice(b"S", 4, -6, 66),
        godice(b"S", -10, 60, 12),
        godice(b"S", 8, -63, 0),
        godice(b"S", 3, 9, -64),
        godice(b"S", 64, 0, 0),
    ]
    out = decode_all(run_mpy, "godice", vectors)
    assert out == [["d1", "rolled", f] for f in (1, 2, 3, 4, 5, 6)]


def test_godice_other_states(run_mpy: RunMpy) -> None:
    vectors = [
        b"R",
        godice(b"TS", 40, 40, 10),  # tilted: no face
        godice(b"MS", 0, 0, 64),  # turned by hand to 2
        godice(b"FS", 0, -64, 0),  # fake roll showing 4
        b"Bat" + bytes([77]),
        b"Col" + bytes([3]),
        b"S\x01\x02",  # truncated
        godice(b"XS", 0, 0, 64),  # unknown tag
        b"",
    ]
    out = decode_all(run_mpy, "godice", vectors)
    assert out == [
        ["d1", "rolling", 0],
        ["d1", "crooked", 0],
        ["d1", "onface", 2],
        ["d1", "onface", 4],
        None,
        None,
        None,
        None,
        None,
    ]


def test_godice_ties_custom_table_battery_colour_and_id(run_mpy: RunMpy) -> None:
    out = run_mpy(
        """
        import json
        from drivers import godice
        # Equal magnitudes: x wins over y, y over z.
        ties = [godice.face_from_axes(40, -40, 40), godice.face_from_axes(0, -40, 40)]
        # A die printed with opposite faces swapped reads through its own table.
        swapped = bytes([1, 6, 4, 3, 5, 2])
        custom = godice.decode("d2", b"S" + bytes([0, 0, 64]), swapped)
        print(json.dumps([ties, custom, godice.battery(b"Bat" + bytes([42])),
                          godice.colour(b"Col" + bytes([5])), godice.colour(b"Bat" + bytes([5])),
                          godice.die_id(bytes([0xAA, 0x01, 0xFF]))]))
        """
    )[0]
    assert out == [[6, 4], ["d2", "rolled", 5], 42, 5, None, "gd-aa01ff"]


def pixels_i_am_a_die_chunked(pixel_id: int, state: int, face_index: int,
                              name: bytes = b"Red d6") -> bytes:
    # Current firmware, as the Pixels SDK (pixels-js) reads it: the id, then chunks each
    # led by its size byte: version info (firmware version, build timestamp, settings,
    # standard, extended and management API versions), die info (pixel id, chip model,
    # die type, LED count, colourway), the custom design's name and the die's name (text
    # ended by NUL), settings info (profile hash, free flash, usable flash), status info
    # (battery percent, battery state, roll state, face index).
    version = struct.pack("<BHIHHHH", 15, 0x0200, 1_730_000_000, 3, 1, 1, 1)
    die = struct.pack("<BIBBBB", 9, pixel_id, 1, 2, 6, 3)
    design = bytes([2]) + b"\0"
    die_name = bytes([len(name) + 2]) + name + b"\0"
    settings = struct.pack("<BIII", 13, 0xDEADBEEF, 4096, 8192)
    status = struct.pack("<BBBBB", 5, 87, 0, state, face_index)
    return bytes([2]) + version + die + design + die_name + settings + status


def test_pixels_i_am_a_die_of_current_firmware_gives_id_and_current_face(
        run_mpy: RunMpy) -> None:
    whole = pixels_i_am_a_die_chunked(0x0BADF00D, 1, 4)
    out = run_mpy(
        f"""
        import json
        from drivers import pixels
        got = []
        for msg in ({whole!r}, {whole[:-1]!r}, {whole[:30]!r}):
            got.append([pixels.pixel_id(msg), pixels.decode("d", msg)])
        print(json.dumps(got))
        """
    )[0]
    # Whole, it names the die and its face (index 4: face 5); cut short by a small MTU,
    # it says nothing rather than guess.
    assert out == [[0x0BADF00D, ["d", "rolled", 5]], [None, None], [None, None]]
