# Prints riskproto's verdict on every example message, one line each:
#   <folder>/<file> ok
#   <folder>/<file> <error code> <field or ->
# Runs unchanged under CPython and MicroPython (the test compares the two outputs):
#   python verdicts_script.py PROTOCOL_DIR
import os
import sys

sys.path.insert(0, sys.argv[1])

from riskproto.messages import ProtocolError, decode


def verdict(data: bytes) -> str:
    try:
        decode(data)
    except ProtocolError as exc:
        return exc.code + " " + (exc.field or "-")
    return "ok"


def main() -> None:
    root = sys.argv[1] + "/examples"
    for folder in ("valid", "invalid"):
        for name in sorted(os.listdir(root + "/" + folder)):
            if not name.endswith(".json"):
                continue
            with open(root + "/" + folder + "/" + name, "rb") as f:
                data = f.read()
            print(folder + "/" + name, verdict(data))


main()
