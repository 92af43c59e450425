"""A stand-in for ``python -m esptool`` (5.x) in the seat flash tests.

It appends its argv to the JSON-lines file FAKE_TOOL_LOG and prints what esptool prints
for the board FAKE_CHIP (default ESP32-S3); FAKE_PORT_DEAD=1 makes it fail to connect,
as esptool does when nothing answers on the port.
"""

import json
import os
import sys

args = sys.argv[1:]
with open(os.environ["FAKE_TOOL_LOG"], "a") as log:
    log.write(json.dumps(["esptool", *args]) + "\n")
port = args[args.index("--port") + 1]
print("esptool v5.6.0")
print("Connecting....")
if os.environ.get("FAKE_PORT_DEAD") == "1":
    print("\nA fatal error occurred: Failed to connect to Espressif device: No serial data "
          "received.", file=sys.stderr)
    sys.exit(2)
chip = os.environ.get("FAKE_CHIP", "ESP32-S3")
if "--chip" in args and args[args.index("--chip") + 1] != chip.lower().replace("-", ""):
    print(f"\nA fatal error occurred: This chip is {chip}, not "
          f"{args[args.index('--chip') + 1]}. Wrong chip argument?", file=sys.stderr)
    sys.exit(2)
print(f"Connected to {chip} on {port}:")
print(f"{'Chip type:':<20}{chip} (QFN56) (revision v0.2)")
print(f"{'Features:':<20}Wi-Fi, BT 5 (LE), Dual Core + LP Core, 240MHz, Embedded PSRAM 8MB")
print(f"{'MAC:':<20}f4:12:fa:00:00:01")
command = next(a for a in args if a in ("chip-id", "erase-flash", "write-flash"))
if command == "chip-id":
    print("Chip ID: 0x00000001")
elif command == "erase-flash":
    print("Flash memory erased successfully in 4.2 seconds.")
elif command == "write-flash":
    offset, image = args[args.index("write-flash") + 1:][:2]
    size = os.path.getsize(image)
    print(f"Wrote {size} bytes at {offset} in 1.0 seconds.")
print("Hard resetting via RTS pin...")
