"""Both frame codecs (hub: CPython, controller: MicroPython) on shared vectors and each other."""

from __future__ import annotations

import binascii
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from risktable.leds import cobs, frames
from tests.leds.conftest import VECTORS, RunMpy

VECTOR_DATA: dict[str, Any] = json.loads(VECTORS.read_text())


# Hub codec ---------------------------------------------------------------


@pytest.mark.parametrize("case", VECTOR_DATA["cobs"], ids=lambda c: c["name"])
def test_hub_cobs_vectors(case: dict[str, Any]) -> None:
    data, encoded = bytes.fromhex(case["data"]), bytes.fromhex(case["encoded"])
    assert cobs.encode(data) == encoded
    assert cobs.decode(encoded) == data


@pytest.mark.parametrize("case", VECTOR_DATA["crc16"], ids=lambda c: c["name"])
def test_hub_crc_vectors(case: dict[str, Any]) -> None:
    assert frames.crc16(bytes.fromhex(case["data"])) == case["crc"]


def test_crc_catalogue_check_value() -> None:
    # The published check value of CRC-16/CCITT-FALSE, independent of our vectors.
    assert frames.crc16(b"123456789") == 0x29B1


@pytest.mark.parametrize("case", VECTOR_DATA["frames"], ids=lambda c: c["name"])
def test_hub_frame_vectors(case: dict[str, Any]) -> None:
    payload, wire = bytes.fromhex(case["payload"]), bytes.fromhex(case["wire"])
    assert frames.encode_frame(case["type"], case["seq"], payload) == wire
    assert frames.FrameDecoder().feed(wire) == [frames.Frame(case["type"], case["seq"], payload)]


@settings(max_examples=300)
@given(st.binary(max_size=700))
def test_cobs_round_trip(data: bytes) -> None:
    encoded = cobs.encode(data)
    assert 0 not in encoded
    assert len(encoded) <= len(data) + len(data) // 254 + 1
    assert cobs.decode(encoded) == data


@settings(max_examples=200)
@given(st.integers(0, 255), st.integers(0, 255), st.binary(max_size=frames.MAX_PAYLOAD))
def test_frame_round_trip(kind: int, seq: int, payload: bytes) -> None:
    wire = frames.encode_frame(kind, seq, payload)
    assert wire.index(0) == len(wire) - 1
    assert frames.FrameDecoder().feed(wire) == [frames.Frame(kind, seq, payload)]


@settings(max_examples=200)
@given(st.binary(min_size=1, max_size=300), st.data())
def test_crc_catches_every_single_bit_error(raw: bytes, data: st.DataObject) -> None:
    crc = frames.crc16(raw)
    bit = data.draw(st.integers(0, 8 * len(raw) - 1))
    flipped = bytearray(raw)
    flipped[bit // 8] ^= 1 << (bit % 8)
    assert frames.crc16(bytes(flipped)) != crc


def test_no_bit_flip_on_the_wire_yields_a_wrong_frame() -> None:
    # Every single-bit error in a whole scene frame, delimiter aside: the
    # decoder may lose the frame, but never hands back a different one.
    case = next(c for c in VECTOR_DATA["frames"] if c["name"] == "scene of 85 LEDs, mixed")
    wire = bytes.fromhex(case["wire"])
    good = frames.Frame(case["type"], case["seq"], bytes.fromhex(case["payload"]))
    lost = 0
    for bit in range(8 * (len(wire) - 1)):
        damaged = bytearray(wire)
        damaged[bit // 8] ^= 1 << (bit % 8)
        decoder = frames.FrameDecoder()
        got = decoder.feed(bytes(damaged))
        assert got == [], f"bit {bit} gave {got}"
        lost += decoder.errors > 0
    assert lost == 8 * (len(wire) - 1)
    assert frames.FrameDecoder().feed(wire) == [good]


def test_decoder_resynchronises_after_garbage() -> None:
    heartbeat = frames.encode_frame(frames.HEARTBEAT, 3)
    decoder = frames.FrameDecoder()
    # Half a frame (a controller that started mid-frame), noise, then a good frame.
    got = decoder.feed(heartbeat[3:] + b"\x17\x42\x00" + heartbeat)
    assert got == [frames.Frame(frames.HEARTBEAT, 3)]
    assert decoder.errors == 2


def test_decoder_bounds_an_endless_block() -> None:
    decoder = frames.FrameDecoder()
    assert decoder.feed(b"\x01" * 5000) == []
    assert decoder.feed(b"\x00" + frames.encode_frame(frames.HEARTBEAT, 1)) == [
        frames.Frame(frames.HEARTBEAT, 1)]
    assert decoder.errors == 1


def test_scene_payload_layout() -> None:
    rgb = bytes(range(30))
    blink = bytes([0b1000_0001, 0b10])
    payload = frames.scene_payload(rgb, blink)
    assert payload[:2] == b"\x00\x0a"
    assert frames.parse_scene(payload) == (rgb, blink)
    with pytest.raises(ValueError):
        frames.scene_payload(rgb, b"\x00")
    with pytest.raises(frames.FrameError):
        frames.parse_scene(payload[:-1])


# Controller codec, under the real MicroPython --------------------------------


def test_firmware_codec_reproduces_every_vector(run_mpy: RunMpy) -> None:
    results = run_mpy(f"""
        import json
        import ledframe as lf
        with open({str(VECTORS)!r}) as f:
            v = json.load(f)
        def unhex(s):
            return bytes(int(s[i:i + 2], 16) for i in range(0, len(s), 2))
        def tohex(b):
            return "".join("%02x" % x for x in b)
        for c in v["cobs"]:
            data = unhex(c["data"])
            out = bytearray(len(data) + len(data) // 254 + 2)
            m = lf.cobs_encode(data, len(data), out)
            block = bytearray(unhex(c["encoded"]))
            k = lf.cobs_decode(block, len(block))
            print(json.dumps(["cobs", c["name"], tohex(out[:m - 1]), tohex(block[:k])]))
        for c in v["crc16"]:
            data = unhex(c["data"])
            print(json.dumps(["crc", c["name"], lf.crc16(data, 0, len(data))]))
        raw = bytearray(600)
        out = bytearray(620)
        for c in v["frames"]:
            payload = unhex(c["payload"])
            m = lf.encode(c["type"], c["seq"], payload, len(payload), raw, out)
            rx = lf.Receiver()
            got = 0
            for b in unhex(c["wire"]):
                got = rx.push(b)
            decoded = [rx.buf[0], rx.buf[1], tohex(rx.buf[2:got - 2])] if got > 0 else got
            print(json.dumps(["frame", c["name"], tohex(out[:m]), decoded]))
    """)
    by_kind: dict[str, dict[str, list[Any]]] = {}
    for kind, name, *rest in results:
        by_kind.setdefault(kind, {})[name] = rest
    for c in VECTOR_DATA["cobs"]:
        assert by_kind["cobs"][c["name"]] == [c["encoded"], c["data"]], c["name"]
    for c in VECTOR_DATA["crc16"]:
        assert by_kind["crc"][c["name"]] == [c["crc"]], c["name"]
    for c in VECTOR_DATA["frames"]:
        assert by_kind["frame"][c["name"]] == [c["wire"], [c["type"], c["seq"], c["payload"]]]


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(0, 255), st.integers(0, 255),
                          st.binary(max_size=frames.MAX_PAYLOAD)), min_size=1, max_size=8))
def test_codecs_agree_on_random_frames(
        run_mpy: RunMpy, batch: list[tuple[int, int, bytes]]) -> None:
    # Each MicroPython run checks a batch, so hypothesis explores without a
    # process start per frame.
    frames_hex = [[k, s, p.hex()] for k, s, p in batch]
    results = run_mpy(f"""
        import json
        import ledframe as lf
        def unhex(s):
            return bytes(int(s[i:i + 2], 16) for i in range(0, len(s), 2))
        raw = bytearray(600)
        out = bytearray(620)
        for k, s, p in {frames_hex!r}:
            payload = unhex(p)
            m = lf.encode(k, s, payload, len(payload), raw, out)
            print(json.dumps("".join("%02x" % x for x in out[:m])))
    """)
    assert results == [frames.encode_frame(k, s, p).hex() for k, s, p in batch]


def test_firmware_crc_is_the_standard_librarys_crc_hqx(run_mpy: RunMpy) -> None:
    # The controller's MicroPython has no binascii.crc_hqx, so it builds its own table;
    # CPython's crc_hqx from 0xFFFF is CRC-16/CCITT-FALSE, a fact from outside our code.
    rng = random.Random(16)
    blocks = [bytes.fromhex(c["data"]) for c in VECTOR_DATA["crc16"]]
    blocks += [b"123456789", bytes(range(256)), b"\xff" * 300]
    blocks += [rng.randbytes(rng.randrange(1, 600)) for _ in range(20)]
    results = run_mpy(f"""
        import json
        import ledframe as lf
        for data in {[list(b) for b in blocks]!r}:
            data = bytes(data)
            print(json.dumps(lf.crc16(data, 0, len(data))))
    """)
    assert results == [binascii.crc_hqx(b, 0xFFFF) for b in blocks]


def test_firmware_receiver_naks_what_the_hub_decoder_rejects(run_mpy: RunMpy) -> None:
    good = frames.encode_frame(frames.HEARTBEAT, 1)
    wrong = frames.crc16(b"\x03\x01") ^ 0x0100
    bad_crc = cobs.encode(b"\x03\x01" + wrong.to_bytes(2, "big")) + b"\x00"
    cases = {
        "good": good,
        "bad crc": bad_crc,
        "too short": cobs.encode(b"\x03\x01\x00") + b"\x00",
        "not cobs": b"\x05\x03\x00",
        "too long": cobs.encode(bytes(4 + frames.MAX_PAYLOAD + 1)) + b"\x00",
    }
    results = run_mpy(f"""
        import json
        import ledframe as lf
        for name, wire in {[(k, list(v)) for k, v in cases.items()]!r}:
            rx = lf.Receiver()
            r = 0
            for b in wire:
                r = rx.push(b)
            print(json.dumps([name, r]))
    """)
    got = dict(results)
    assert got["good"] == 4
    assert got["bad crc"] == -frames.NAK_CRC
    assert got["too short"] == got["not cobs"] == got["too long"] == -frames.NAK_FORMAT
    for name, wire in cases.items():
        decoder = frames.FrameDecoder()
        assert bool(decoder.feed(wire)) == (name == "good")
