# MQTT 3.1.1 packet encoding and decoding, pure and allocation-light.
# Encoders write into a caller's preallocated bytearray and return the length used, so
# the client sends a memoryview slice and never builds packets out of concatenated bytes.
# Decoders take the body of one packet (everything after the fixed header) as a
# memoryview. Section numbers refer to the OASIS MQTT 3.1.1 standard.

from micropython import const

CONNECT = const(0x10)
CONNACK = const(0x20)
PUBLISH = const(0x30)
PUBACK = const(0x40)
SUBSCRIBE = const(0x82)  # 3.8.1: the reserved flag bits of SUBSCRIBE must be 0010
SUBACK = const(0x90)
PINGREQ = const(0xC0)
PINGRESP = const(0xD0)
DISCONNECT = const(0xE0)

_DUP = const(0x08)
_RETAIN = const(0x01)
_MAX_REMAINING = const(268435455)  # 2.2.3: four length bytes at most

_FLAG_CLEAN = const(0x02)
_FLAG_WILL = const(0x04)
_FLAG_WILL_RETAIN = const(0x20)
_FLAG_PASSWORD = const(0x40)
_FLAG_USER = const(0x80)


class PacketError(Exception):
    pass


def _utf8(s):
    return s if isinstance(s, (bytes, bytearray, memoryview)) else s.encode()


def _put_str(buf, i, data):
    n = len(data)
    if n > 0xFFFF:
        raise PacketError("string too long")
    buf[i] = n >> 8
    buf[i + 1] = n & 0xFF
    buf[i + 2 : i + 2 + n] = data
    return i + 2 + n


def _header_size(remaining):
    n = 1
    while remaining > 127:
        remaining >>= 7
        n += 1
    return n + 1


def _put_header(buf, first, remaining):
    # Returns the index where the variable header starts.
    if remaining > _MAX_REMAINING:
        raise PacketError("packet too large")
    buf[0] = first
    i = 1
    while True:
        byte = remaining & 0x7F
        remaining >>= 7
        if remaining:
            buf[i] = byte | 0x80
            i += 1
        else:
            buf[i] = byte
            return i + 1


def _fits(buf, size):
    if size > len(buf):
        raise PacketError("packet of %d bytes exceeds the %d-byte buffer" % (size, len(buf)))


def connect(buf, client_id, keepalive_s, clean=True, user=None, password=None,
            will_topic=None, will_payload=b"", will_qos=0, will_retain=False):
    cid = _utf8(client_id)
    flags = _FLAG_CLEAN if clean else 0
    remaining = 10 + 2 + len(cid)
    wt = None
    if will_topic is not None:
        wt = _utf8(will_topic)
        flags |= _FLAG_WILL | (will_qos << 3)
        if will_retain:
            flags |= _FLAG_WILL_RETAIN
        remaining += 4 + len(wt) + len(will_payload)
    u = None
    p = None
    if user is not None:
        u = _utf8(user)
        flags |= _FLAG_USER
        remaining += 2 + len(u)
        if password is not None:
            # 3.1.2.9: a password without a user name is not allowed.
            p = _utf8(password)
            flags |= _FLAG_PASSWORD
            remaining += 2 + len(p)
    _fits(buf, remaining + _header_size(remaining))
    i = _put_header(buf, CONNECT, remaining)
    i = _put_str(buf, i, b"MQTT")
    buf[i] = 4  # protocol level 4 = 3.1.1
    buf[i + 1] = flags
    buf[i + 2] = keepalive_s >> 8
    buf[i + 3] = keepalive_s & 0xFF
    i = _put_str(buf, i + 4, cid)
    if wt is not None:
        i = _put_str(buf, i, wt)
        i = _put_str(buf, i, will_payload)
    if u is not None:
        i = _put_str(buf, i, u)
    if p is not None:
        i = _put_str(buf, i, p)
    return i


def publish(buf, topic, payload, qos=0, retain=False, dup=False, pid=0):
    t = _utf8(topic)
    remaining = 2 + len(t) + len(payload) + (2 if qos else 0)
    _fits(buf, remaining + _header_size(remaining))
    first = PUBLISH | (qos << 1)
    if retain:
        first |= _RETAIN
    if dup:
        first |= _DUP
    i = _put_header(buf, first, remaining)
    i = _put_str(buf, i, t)
    if qos:
        buf[i] = pid >> 8
        buf[i + 1] = pid & 0xFF
        i += 2
    n = len(payload)
    buf[i : i + n] = payload
    return i + n


def puback(buf, pid):
    buf[0] = PUBACK
    buf[1] = 2
    buf[2] = pid >> 8
    buf[3] = pid & 0xFF
    return 4


def subscribe(buf, pid, topics):
    # topics: a list of (filter, qos) pairs.
    encoded = [(_utf8(t), q) for t, q in topics]
    remaining = 2
    for t, _ in encoded:
        remaining += 3 + len(t)
    _fits(buf, remaining + _header_size(remaining))
    i = _put_header(buf, SUBSCRIBE, remaining)
    buf[i] = pid >> 8
    buf[i + 1] = pid & 0xFF
    i += 2
    for t, q in encoded:
        i = _put_str(buf, i, t)
        buf[i] = q
        i += 1
    return i


def pingreq(buf):
    buf[0] = PINGREQ
    buf[1] = 0
    return 2


def disconnect(buf):
    buf[0] = DISCONNECT
    buf[1] = 0
    return 2


class LengthDecoder:
    # Feeds the Remaining Length bytes one at a time (2.2.3); `value` is set once done.
    def __init__(self):
        self.reset()

    def reset(self):
        self.value = 0
        self._shift = 0

    def feed(self, byte):
        # True once the last length byte has been fed.
        self.value |= (byte & 0x7F) << self._shift
        self._shift += 7
        if byte & 0x80:
            if self._shift >= 28:
                raise PacketError("remaining length longer than 4 bytes")
            return False
        return True


def connack(body):
    # (session_present, return_code)
    if len(body) != 2:
        raise PacketError("CONNACK must have 2 bytes")
    return bool(body[0] & 1), body[1]


def packet_id(body):
    # PUBACK, SUBACK (first two bytes) and the like.
    if len(body) < 2:
        raise PacketError("packet identifier missing")
    return (body[0] << 8) | body[1]


def parse_publish(first, body):
    # (topic str, payload memoryview, qos, retain, dup, pid) from a PUBLISH packet.
    qos = (first >> 1) & 3
    if qos == 3:
        raise PacketError("PUBLISH with QoS 3")
    if len(body) < 2:
        raise PacketError("PUBLISH too short")
    n = (body[0] << 8) | body[1]
    i = 2 + n
    if i > len(body):
        raise PacketError("PUBLISH topic overruns the packet")
    topic = str(bytes(body[2:i]), "utf-8")
    pid = 0
    if qos:
        if i + 2 > len(body):
            raise PacketError("PUBLISH packet identifier missing")
        pid = (body[i] << 8) | body[i + 1]
        i += 2
    return topic, body[i:], qos, bool(first & _RETAIN), bool(first & _DUP), pid
