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

from seat.app import run  # noqa: E402

run(sys.argv[1] if len(sys.argv) > 1 else "config.json", BUFFERS)
