# Feeds a fixed conversation through riskproto's HubGate and prints what the hub
# would do, one line per message, with dict keys sorted so that CPython and
# MicroPython (whose dicts iterate in another order) print identical text:
#   python gate_script.py PROTOCOL_DIR
import sys

if __name__ == "__main__":
    sys.path.insert(0, sys.argv[1])

from riskproto.gate import APPLY, HOLD, HubGate
from riskproto.messages import E_NOT_ALLOWED, ProtocolError


def canon(value: "object") -> str:
    if isinstance(value, dict):
        keys = sorted(value)
        return "{" + ",".join([k + ":" + canon(value[k]) for k in keys]) + "}"
    if isinstance(value, list):
        return "[" + ",".join([canon(v) for v in value]) + "]"
    return repr(value)


def ev(seat: int, seq: int, rest: str = '"kind":"resync"') -> bytes:
    return (
        '{"v":1,"t":"event","seat":' + str(seat) + ',"seq":' + str(seq) + "," + rest + "}"
    ).encode()


def birth(seat: int, session: int, boot: int, online: str = "true") -> bytes:
    fields = '"seat":' + str(seat) + ',"online":' + online
    fields += ',"session":' + str(session) + ',"boot":' + str(boot)
    return ('{"v":1,"t":"seat_status",' + fields + "}").encode()


T = "risk/den/seat/"
CONVERSATION = [
    (T + "1/status", birth(1, 10, 500)),
    (T + "1/event", ev(1, 1)),
    (T + "1/event", ev(1, 1)),
    (T + "1/event", ev(1, 2, '"kind":"encoder","steps":3')),
    (T + "1/event", ev(1, 3, '"kind":"encoder","steps":99')),
    (T + "1/event", b'{"v":1,"t":"event","seat":1,"seq":4'),
    (T + "1/event", b'{"v":2,"t":"event","seat":1,"seq":5,"kind":"resync"}'),
    (T + "1/event", ev(2, 6)),
    (T + "3/event", ev(3, 1)),
    (T + "2/status", birth(2, 7, 900)),
    (T + "2/event", ev(2, 1, '"kind":"card","uid":"04A2249A"')),
    (T + "1/status", birth(1, 11, 501)),
    (T + "1/status", birth(1, 10, 500, "false")),
    (T + "1/event", ev(1, 1)),
    (T + "1/event", ev(1, 3, '"kind":"encoder","steps":-2')),
    (T + "1/event", ev(1, 3, '"kind":"encoder","steps":-2')),
    (T + "1/event", ev(1, 4, '"kind":"encoder"')),
    (T + "1/event", ev(1, 2)),
    (T + "1/event", ev(1, 99)),
    (T + "1/event", ev(1, 5)),
    (T + "1/status", birth(1, 11, 501, "false")),
    ("risk/other/seat/1/event", ev(1, 1)),
    (T + "1/view", b"{}"),
]


def main() -> None:
    gate = HubGate("den", seats=2, window=8)
    for topic, payload in CONVERSATION:
        inbound = gate.receive(topic, payload)
        line = [inbound.action, str(inbound.seat), str(inbound.presence)]
        for reply_topic, reply in inbound.replies:
            line.append(reply_topic + "=" + canon(reply))
        if inbound.action == HOLD:
            line.append("seq=" + str(inbound.seq) + (" repeat" if inbound.repeat else ""))
        while inbound is not None and inbound.action == APPLY:
            seat = inbound.seat
            assert seat is not None and inbound.seq is not None
            # The contract refuses an invalid event in its turn; the game refuses card
            # taps here, to show a refusal's answer.
            error = inbound.error
            if inbound.msg is not None and inbound.msg["kind"] == "card":
                error = ProtocolError(E_NOT_ALLOWED, "no card is wanted now")
            reply_topic, reply = gate.answered(seat, inbound.seq, error)
            line.append(reply_topic + "=" + canon(reply))
            inbound = gate.release(seat)
        print(" ".join(line))


if __name__ == "__main__":
    main()
