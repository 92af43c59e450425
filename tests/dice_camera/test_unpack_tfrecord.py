"""tools/dice_reader/unpack_tfrecord.py: a TFRecord of object-detection examples, built
here from the format's specification (length, masked CRC-32C, protobuf wire format),
unpacks to the photo and labels it holds; a damaged record is refused."""

from __future__ import annotations

import importlib.util
import json
import struct
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.tools import ROOT

# The CRC-32C of "123456789" (RFC 3720's check value, the Castagnoli polynomial).
CRC32C_CHECK = 0xE3069283


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "unpack_tfrecord", ROOT / "tools" / "dice_reader" / "unpack_tfrecord.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _feature(kind: int, values: list[bytes] | list[float] | list[int]) -> bytes:
    if kind == 1:
        inner = b"".join(_field(1, v) for v in values)  # type: ignore[arg-type]
    elif kind == 2:  # packed floats
        inner = _field(1, struct.pack(f"<{len(values)}f", *values))
    else:  # packed varints
        inner = _field(1, b"".join(_varint(int(v)) for v in values))
    return _field(kind, inner)


def _example(features: dict[str, tuple[int, list[bytes] | list[float] | list[int]]]) -> bytes:
    entries = b"".join(_field(1, _field(1, key.encode()) + _field(2, _feature(*value)))
                       for key, value in features.items())
    return _field(1, entries)


def _record(tool: ModuleType, payload: bytes) -> bytes:
    header = struct.pack("<Q", len(payload))
    return (header + struct.pack("<I", tool._masked(tool._crc32c(header))) + payload
            + struct.pack("<I", tool._masked(tool._crc32c(payload))))


def test_unpacks_a_record_built_from_the_format(tmp_path: Path) -> None:
    tool = _tool()
    assert tool._crc32c(b"123456789") == CRC32C_CHECK
    photo = b"\xff\xd8 not really a jpeg \xff\xd9"
    payload = _example({
        "image/encoded": (1, [photo]),
        "image/filename": (1, [b"IMG_1.jpg"]),
        "image/width": (3, [640]),
        "image/height": (3, [480]),
        "image/object/bbox/xmin": (2, [0.25, 0.5]),
        "image/object/bbox/ymin": (2, [0.125, 0.5]),
        "image/object/bbox/xmax": (2, [0.375, 0.625]),
        "image/object/bbox/ymax": (2, [0.25, 0.75]),
        "image/object/class/text": (1, [b"five", b"2"]),
    })
    source = tmp_path / "test.record"
    source.write_bytes(_record(tool, payload) * 1)
    labels = tool.unpack(source, tmp_path / "out")
    assert (tmp_path / "out" / "IMG_1.jpg").read_bytes() == photo
    assert labels == json.loads((tmp_path / "out" / "labels.json").read_text()) == {
        "IMG_1.jpg": {"width": 640, "height": 480, "dice": [
            {"value": 5, "box": [0.25, 0.125, 0.375, 0.25]},
            {"value": 2, "box": [0.5, 0.5, 0.625, 0.75]}]}}
    damaged = bytearray(_record(tool, payload))
    damaged[20] ^= 1
    source.write_bytes(bytes(damaged))
    with pytest.raises(ValueError, match="bad payload CRC"):
        tool.unpack(source, tmp_path / "again")
