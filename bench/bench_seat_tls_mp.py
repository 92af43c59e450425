# Run under micropython (bench/bench_seat_tls.py does): the seat's own MQTT client
# (net/mqtt.py) connecting to a real mosquitto, ROUNDS times in plain MQTT and ROUNDS
# times over TLS (net/tls.py, the context seat/config.py builds from broker.ca), timing
# each connect from the dial to the CONNACK, and noting what a live connection costs:
# MicroPython's heap (gc.mem_free) and the process's resident memory (VmRSS), where
# Mbed TLS's buffers land on the unix port. Prints one JSON line of figures.
#   micropython bench_seat_tls_mp.py CONFIG_JSON ROUNDS
import sys

if ".frozen" not in sys.path:
    sys.path.append(".frozen")

import asyncio
import gc
import json
import time

from net import mqtt
from seat import config as seat_config

with open(sys.argv[1]) as args_file:
    ARGS = json.loads(args_file.read())
ROUNDS = int(sys.argv[2])


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


async def connect_once(broker, dial):
    client = mqtt.Client(broker["host"], broker["port"], "bench-tls",
                         user=broker.get("username"), password=broker.get("password"),
                         open_connection=dial, backoff_ms=50, backoff_max_ms=50)
    start = time.ticks_us()
    task = asyncio.create_task(client.run())
    while not client.connected:
        if client.why_down is not None:
            raise RuntimeError(repr(client.why_down))
        await asyncio.sleep_ms(1)
    took = time.ticks_diff(time.ticks_us(), start)
    # The live connection's share of the heap: free memory while it is up against the
    # same once it is closed and collected (the client object outlives both).
    gc.collect()
    live = gc.mem_free()
    task.cancel()
    try:  # noqa: SIM105 - MicroPython has no contextlib
        await task
    except asyncio.CancelledError:
        pass
    if client._sock is not None:
        client._sock.close()
        client._sock = None
    gc.collect()
    return took, gc.mem_free() - live


async def measure(broker, dial):
    times, heap = [], []
    for _ in range(ROUNDS):
        took, held = await connect_once(broker, dial)
        times.append(took)
        heap.append(held)
    return {"connect_us": times, "heap_bytes": heap, "rss_kib_after": rss_kib()}


async def main():
    figures = {"rounds": ROUNDS, "rss_kib_start": rss_kib()}
    figures["plain"] = await measure(ARGS["plain"], None)
    # The same parsing a seat's start does: broker.ca (base64 DER) to an SSL context;
    # what the heap keeps of a config with the CA beyond the same config without it.
    kept = []
    for broker in (ARGS["plain"], ARGS["tls"]):
        gc.collect()
        before = gc.mem_free()
        cfg = seat_config.parse(json.dumps({"table": "bench", "seat": 1, "broker": broker}))
        gc.collect()
        kept.append(before - gc.mem_free())
    figures["ca_config_heap_bytes"] = kept[1] - kept[0]
    # Parsing the TLS config made net.mqtt's dial the TLS one (net/tls.py), as on a seat.
    figures["tls"] = await measure(cfg["broker"], None)
    print(json.dumps(figures))


asyncio.run(main())
