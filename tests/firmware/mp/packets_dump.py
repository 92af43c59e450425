# Run under micropython: encodes the packets tests/firmware/test_packets.py checks with
# the client's own encoders, printing one JSON object {case: hex or value}. Decoding of
# malformed input is checked through the client (client_check.py).
import json
import sys

if ".frozen" not in sys.path:
    sys.path.append(".frozen")

from net import mqtt

buf = bytearray(600)
out = {}


def enc(name, first, end):
    out[name] = bytes(buf[mqtt._frame(buf, first, end) : end]).hex()


enc("connect_plain", 0x10, mqtt._connect(buf, "seat1", 30))
enc("connect_full", 0x10, mqtt._connect(buf, "c", 2, "u", "p", ("w", b"x", True, 1)))
enc("connect_user_only", 0x10, mqtt._connect(buf, "c", 0, "u"))
enc("publish_qos0", 0x30, mqtt._publish(buf, "a/b", b"hi", 0))
enc("publish_qos1_retain_dup", 0x3B, mqtt._publish(buf, "a/b", b"hi", 10))
enc("publish_200", 0x30, mqtt._publish(buf, "t", b"z" * 200, 0))
enc("publish_utf8_topic", 0x30, mqtt._publish(buf, "t\u00e9", b"", 0))

lengths = {}
for value in (0, 127, 128, 16383, 16384, 2097151, 2097152, 268435455):
    # _frame writes only in front of the body, so a 5-byte buffer takes any length.
    hb = bytearray(5)
    start = mqtt._frame(hb, 0x30, 5 + value)
    encoded = bytes(hb[start + 1 :])
    # Decoded a byte at a time, as the client reads it: -1 until the last byte.
    rb = bytearray(1) + encoded
    steps = [mqtt._length(rb, n) for n in range(1, len(encoded) + 1)]
    lengths[str(value)] = [encoded.hex(), steps[-1], all(s == -1 for s in steps[:-1])]
out["lengths"] = lengths

try:
    mqtt._length(b"\x30\xff\xff\xff\xff", 4)
    out["five_byte_length"] = "accepted"
except ValueError:
    out["five_byte_length"] = "refused"

try:
    mqtt._publish(bytearray(8), "topic", b"payload", 0)
    out["overflow"] = "accepted"
except ValueError:
    out["overflow"] = "refused"
print(json.dumps(out))
