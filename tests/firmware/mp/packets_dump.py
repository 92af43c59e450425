# Run under micropython: encodes and decodes the packets tests/firmware/test_packets.py
# checks, printing one JSON object {case: hex or value}.
import json
import sys

if ".frozen" not in sys.path:
    sys.path.append(".frozen")

from net import packets

buf = bytearray(600)
out = {}


def enc(name, n):
    out[name] = bytes(buf[:n]).hex()


enc("connect_plain", packets.connect(buf, "seat1", 30))
enc("connect_full", packets.connect(buf, "c", 2, True, "u", "p", "w", b"x", 1, True))
enc("connect_user_only", packets.connect(buf, "c", 0, False, "u"))
enc("publish_qos0", packets.publish(buf, "a/b", b"hi"))
enc("publish_qos1_retain_dup", packets.publish(buf, "a/b", b"hi", 1, True, True, 10))
enc("publish_200", packets.publish(buf, "t", b"z" * 200))
enc("puback", packets.puback(buf, 0x1234))
enc("subscribe", packets.subscribe(buf, 1, [("a/+", 1), ("b", 0)]))
enc("pingreq", packets.pingreq(buf))
enc("disconnect", packets.disconnect(buf))

lengths = {}
for value in (0, 127, 128, 16383, 16384, 2097151, 2097152, 268435455):
    hb = bytearray(5)
    end = packets._put_header(hb, 0x30, value)
    dec = packets.LengthDecoder()
    done = False
    for b in hb[1:end]:
        assert not done
        done = dec.feed(b)
    lengths[str(value)] = [bytes(hb[1:end]).hex(), dec.value, done]
out["lengths"] = lengths

try:
    dec = packets.LengthDecoder()
    for b in b"\xff\xff\xff\xff":
        dec.feed(b)
    out["five_byte_length"] = "accepted"
except packets.PacketError:
    out["five_byte_length"] = "refused"

try:
    packets.publish(bytearray(8), "topic", b"payload")
    out["overflow"] = "accepted"
except packets.PacketError:
    out["overflow"] = "refused"

body = memoryview(bytes.fromhex("0003612f62000a6869"))
topic, payload, qos, retain, dup, pid = packets.parse_publish(0x3B, body)
out["parse_qos1"] = [topic, bytes(payload).hex(), qos, retain, dup, pid]
topic, payload, qos, retain, dup, pid = packets.parse_publish(0x30, memoryview(b"\x00\x01xab"))
out["parse_qos0"] = [topic, bytes(payload).hex(), qos, retain, dup, pid]
BAD = (
    ("parse_qos3", 0x36, b"\x00\x01xab"),
    ("parse_overrun", 0x30, b"\x00\x09x"),
    ("parse_no_pid", 0x32, b"\x00\x01x"),
)
for name, first, raw in BAD:
    try:
        packets.parse_publish(first, memoryview(raw))
        out[name] = "accepted"
    except packets.PacketError:
        out[name] = "refused"
out["connack"] = list(packets.connack(memoryview(b"\x01\x05")))
out["packet_id"] = packets.packet_id(memoryview(b"\x12\x34"))
print(json.dumps(out))
