# riskproto speed and allocation, under whichever interpreter runs this file:
#   python bench/proto_codec.py        (the hub)
#   micropython bench/proto_codec.py   (the seat firmware's logic, on the unix port)
# Prints microseconds per operation for representative messages, the hub gate's
# throughput, and (MicroPython) bytes allocated per decode. ``--quick``: 50
# operations each instead of 2000 (a smoke run).
import gc
import sys
import time

_HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
sys.path.insert(0, _HERE + "/../protocol")

from riskproto.gate import HubGate  # noqa: E402
from riskproto.messages import decode, encode, message  # noqa: E402
from riskproto.sequence import Outbox  # noqa: E402
from riskproto.territories import TERRITORIES  # noqa: E402

try:
    _ticks_us = time.ticks_us
    _ticks_diff = time.ticks_diff
except AttributeError:

    def _ticks_us() -> int:
        return time.perf_counter_ns() // 1000

    def _ticks_diff(a: int, b: int) -> int:
        return a - b


SAMPLES = (
    ("event encoder", message("event", seat=1, seq=41, kind="encoder", steps=-2)),
    (
        "event dice x3",
        message(
            "event",
            seat=3,
            seq=12,
            kind="dice",
            roll=5,
            dice=[
                {"id": "PX-7A31", "face": 6, "state": "settled"},
                {"id": "PX-0B2C", "face": 2, "state": "settled"},
                {"id": "PX-91FE", "face": 2, "state": "settled"},
            ],
        ),
    ),
    (
        "view full",
        message(
            "view",
            seat=2,
            colour=[30, 90, 220],
            name="Ana",
            active=True,
            phase="attack",
            lines=["Attack from Ural", "to Siberia?", "win 71 %", ""],
            ring={"mode": "count", "value": 3, "max": 3},
        ),
    ),
    ("board", message("board", owners=[1, 2, 3] * 14, armies=[5] * len(TERRITORIES))),
)


def per_op_us(fn: "object", arg: "object", n: int) -> float:
    start = _ticks_us()
    for _ in range(n):
        fn(arg)
    return _ticks_diff(_ticks_us(), start) / n


def alloc_bytes(fn: "object", arg: "object") -> "int | None":
    if not hasattr(gc, "mem_alloc"):
        return None
    gc.collect()
    before = gc.mem_alloc()
    fn(arg)
    return gc.mem_alloc() - before


def main() -> None:
    n = 50 if "--quick" in sys.argv else 2000
    version = ".".join([str(x) for x in sys.implementation.version[:3]])
    print("interpreter:", sys.implementation.name, version)
    for name, msg in SAMPLES:
        data = encode(msg)
        enc = per_op_us(encode, msg, n)
        dec = per_op_us(decode, data, n)
        alloc = alloc_bytes(decode, data)
        extra = "" if alloc is None else f", decode allocates {alloc} B"
        print(f"{name:14} {len(data):4} B  encode {enc:7.1f} us  decode {dec:7.1f} us{extra}")

    gate = HubGate("den", seats=6)
    payloads = [
        encode(message("event", seat=1, seq=i, kind="encoder", steps=1)) for i in range(1, n + 1)
    ]
    topic = "risk/den/seat/1/event"
    start = _ticks_us()
    for i in range(n):
        gate.receive(topic, payloads[i])
        gate.answered(1, i + 1)
    us = _ticks_diff(_ticks_us(), start) / n
    print(f"hub gate: receive + answer {us:.1f} us per event ({int(1e6 / us)} events/s)")

    box = Outbox(seat=1, capacity=16)
    start = _ticks_us()
    for i in range(n):
        seq = box.add(message("event", kind="encoder", steps=1))
        box.due(i)
        box.answered(seq)
    us = _ticks_diff(_ticks_us(), start) / n
    print(f"seat outbox: add + send + answer {us:.1f} us per event")


main()
