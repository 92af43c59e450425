# Seat firmware entry point. On the device boot runs main.py with no arguments and the
# config is /config.json; on the unix port the config path is the first argument:
#   MICROPYPATH=firmware:protocol micropython firmware/main.py CONFIG.json

import sys

# The MQTT client's two packet buffers (net/mqtt.py) come first, while the heap is still
# in one piece: loading the compiled modules leaves it in small pieces, and in a small
# heap no piece would be large enough for them afterwards. Out: a CONNECT (the longest
# table id leaves some 130 bytes for user name and password; a longer one is logged as
# "cannot connect: ValueError('out buffer')") or a SUBSCRIBE; payloads are written from
# their own bytes. In: a whole view message.
BUFFERS = (bytearray(320), bytearray(1152))

# MICROPYPATH replaces the unix port's default path, which drops the frozen modules
# (asyncio among them); on the device ".frozen" is already on the path.
if ".frozen" not in sys.path:
    sys.path.append(".frozen")

try:
    # Network updates: the slot to run from, and a rollback of a version that did not
    # come online (otaboot.py). Its module stays only where an update left its marker.
    import otaboot

    if not otaboot.select():
        sys.modules.pop("otaboot")
    del otaboot
    # Its code gives its heap back now, in one piece, before the seat's modules load.
    import gc

    gc.collect()
    from seat.app import run

    run(sys.argv[1] if len(sys.argv) > 1 else "config.json", BUFFERS)
except Exception as exc:  # noqa: BLE001
    # Whatever escaped the seat (it resets itself on the failures it sees, so this is
    # start-up: an import, a MemoryError): logged, then a reset rather than a board
    # left at the REPL. The unix port has no machine.reset(): status 3 stands for it.
    from log import log_exception

    log_exception("main, reset", exc)
    import machine

    if hasattr(machine, "reset"):
        machine.reset()
    sys.exit(3)
