"""Unpacks a TFRecord file of object-detection examples (TensorFlow's Object Detection API
layout, as the public repository ``nell-byler/dice_detection`` ships its photos) into
JPEG files and one ``labels.json`` in the reader's format (risktable.dice_camera.photos),
without TensorFlow: a TFRecord is a run of length-prefixed records, each a serialized
``tf.train.Example``, whose protobuf wire format is read here directly.

    python tools/dice_reader/unpack_tfrecord.py tfrecords/test.record OUT_DIR

Keys read from each example: ``image/encoded``, ``image/filename``, ``image/width``,
``image/height``, ``image/object/bbox/{xmin,ymin,xmax,ymax}`` (fractions) and
``image/object/class/text`` (``one`` .. ``six``, or digits). The record's CRCs are
checked. The photos keep their licence: copy the source's LICENSE beside them.
"""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path

WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


def _crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def _masked(crc: int) -> int:
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def records(data: bytes) -> list[bytes]:
    """The records of a TFRecord file, each length and payload CRC checked."""
    out, at = [], 0
    while at < len(data):
        header = data[at:at + 8]
        (length,) = struct.unpack("<Q", header)
        (length_crc,) = struct.unpack("<I", data[at + 8:at + 12])
        if _masked(_crc32c(header)) != length_crc:
            raise ValueError(f"record at byte {at}: bad length CRC")
        payload = data[at + 12:at + 12 + length]
        (payload_crc,) = struct.unpack("<I", data[at + 12 + length:at + 16 + length])
        if _masked(_crc32c(payload)) != payload_crc:
            raise ValueError(f"record at byte {at}: bad payload CRC")
        out.append(payload)
        at += 16 + length
    return out


def _varint(buf: bytes, at: int) -> tuple[int, int]:
    value, shift = 0, 0
    while True:
        byte = buf[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, at


def _fields(buf: bytes) -> list[tuple[int, int, bytes | int]]:
    # (field number, wire type, value): bytes for length-delimited, the raw 4 or 8
    # bytes' integer for fixed widths, the integer for varints.
    out: list[tuple[int, int, bytes | int]] = []
    at = 0
    while at < len(buf):
        key, at = _varint(buf, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, at = _varint(buf, at)
            out.append((number, wire, value))
        elif wire == 2:
            length, at = _varint(buf, at)
            out.append((number, wire, buf[at:at + length]))
            at += length
        elif wire == 5:
            out.append((number, wire, buf[at:at + 4]))
            at += 4
        elif wire == 1:
            out.append((number, wire, buf[at:at + 8]))
            at += 8
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
    return out


def _feature(buf: bytes) -> list[bytes] | list[float] | list[int]:
    # Feature: oneof bytes_list = 1, float_list = 2, int64_list = 3; each a repeated
    # field 1 (floats and ints may be packed).
    for number, _, value in _fields(buf):
        assert isinstance(value, bytes)
        inner = _fields(value)
        if number == 1:
            return [v for _, _, v in inner if isinstance(v, bytes)]
        if number == 2:
            floats: list[float] = []
            for _, wire, v in inner:
                assert isinstance(v, bytes)
                floats += struct.unpack(f"<{len(v) // 4}f", v) if wire == 2 \
                    else struct.unpack("<f", v)
            return floats
        if number == 3:
            ints: list[int] = []
            for _, wire, v in inner:
                if wire == 2:
                    assert isinstance(v, bytes)
                    at = 0
                    while at < len(v):
                        n, at = _varint(v, at)
                        ints.append(n)
                else:
                    assert isinstance(v, int)
                    ints.append(v)
            return ints
    return []


def example(buf: bytes) -> dict[str, list[bytes] | list[float] | list[int]]:
    """A serialized ``tf.train.Example`` as ``{key: values}``."""
    found: dict[str, list[bytes] | list[float] | list[int]] = {}
    for _, _, features in _fields(buf):  # Example.features = 1
        assert isinstance(features, bytes)
        for _, _, entry in _fields(features):  # Features.feature = 1: map entries
            assert isinstance(entry, bytes)
            key, value = b"", b""
            for number, _, v in _fields(entry):
                assert isinstance(v, bytes)
                if number == 1:
                    key = v
                else:
                    value = v
            found[key.decode()] = _feature(value)
    return found


def _value(text: bytes) -> int:
    word = text.decode().strip().lower()
    return WORDS[word] if word in WORDS else int(word)


def unpack(record_file: Path, out: Path) -> dict[str, object]:
    """Write every example's photo into ``out`` and return the labels written to
    ``out/labels.json``."""
    out.mkdir(parents=True, exist_ok=True)
    labels: dict[str, object] = {}
    for payload in records(record_file.read_bytes()):
        ex = example(payload)
        name = Path(bytes(ex["image/filename"][0]).decode()).name  # type: ignore[arg-type]
        (out / name).write_bytes(bytes(ex["image/encoded"][0]))  # type: ignore[arg-type]
        boxes = zip(*(ex[f"image/object/bbox/{k}"] for k in ("xmin", "ymin", "xmax", "ymax")),
                    ex["image/object/class/text"], strict=True)
        labels[name] = {
            "width": ex["image/width"][0], "height": ex["image/height"][0],
            "dice": [{"value": _value(text),  # type: ignore[arg-type]
                      "box": [round(float(c), 4) for c in (x0, y0, x1, y1)]}
                     for x0, y0, x1, y1, text in boxes],
        }
    (out / "labels.json").write_text(json.dumps(labels, indent=1, sort_keys=True) + "\n")
    return labels


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    labels = unpack(Path(argv[0]), Path(argv[1]))
    dice = sum(len(entry["dice"]) for entry in labels.values())  # type: ignore[attr-defined]
    print(f"{argv[1]}: {len(labels)} photos, {dice} dice")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
