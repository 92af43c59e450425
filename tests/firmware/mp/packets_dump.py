# Run under micropython: encodes the packets tests/firmware/test_packets.py checks with
# the client's own encoder (written to an in-memory socket, as the client writes them),
# printing one JSON object {case: hex or value}. Decoding of malformed input is checked
# through the client (client_check.py).
import json
import sys

if ".frozen" not in sys.path:
    sys.path.append(".frozen")

from memstream import MemSock
from net import mqtt

out = {}


def enc(name, first, pid=0, topic=None, payload=None, **kw):
    client = mqtt.Client("h", 1, kw.pop("client_id", "c"), **kw)
    client._sock = MemSock()
    client._send(first, pid, topic, payload)
    out[name] = client._sock.take().hex()


enc("connect_plain", 0x10, client_id="seat1", keepalive_s=30)
enc("connect_full", 0x10, keepalive_s=2, user="u", password="p",
    will=lambda: ("w", b"x", True, 1))
enc("connect_user_only", 0x10, keepalive_s=0, user="u")
enc("publish_qos0", 0x30, 0, "a/b", b"hi")
enc("publish_qos1_retain_dup", 0x3B, 10, "a/b", b"hi")
enc("publish_200", 0x30, 0, "t", b"z" * 200)
enc("publish_utf8_topic", 0x30, 0, "t\u00e9", b"")
enc("publish_str_payload", 0x30, 0, "t", "\u00e9!")

lengths = {}
for value in (0, 127, 128, 16383, 16384, 2097151, 2097152, 268435455):
    # _frame writes only in front of the body, so a 5-byte buffer takes any length.
    hb = bytearray(5)
    start = mqtt._frame(hb, 0x30, value)
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
    # A topic longer than the out buffer.
    small = mqtt.Client("h", 1, "c", buffers=(bytearray(8), bytearray(8)))
    small._sock = MemSock()
    small._send(0x30, 0, "topic", b"payload")
    out["overflow"] = "accepted"
except ValueError:
    out["overflow"] = "refused"
print(json.dumps(out))
