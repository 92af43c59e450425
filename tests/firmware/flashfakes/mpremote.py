"""A stand-in for ``python -m mpremote`` (1.29) in the seat flash tests.

It appends its argv and working directory to the JSON-lines file FAKE_TOOL_LOG. ``exec``
prints FAKE_MP_VERSION (default (1, 29, 0, '')) as the pinned runtime would print
sys.implementation.version; ``fs cp`` checks that every source exists and lists them,
and with FAKE_BOARD set copies a single file into that folder as the board's flash.
FAKE_MP_SILENT=1: the port never answers, as mpremote fails on a board without a REPL.
"""

import json
import os
import shutil
import sys

args = sys.argv[1:]
with open(os.environ["FAKE_TOOL_LOG"], "a") as log:
    log.write(json.dumps(["mpremote", *args, {"cwd": os.getcwd()}]) + "\n")
assert args[0] == "connect"
port, command = args[1], args[2:]
if os.environ.get("FAKE_MP_SILENT") == "1":
    print(f"mpremote: failed to access {port} (it may be in use by another program)",
          file=sys.stderr)
    sys.exit(1)
if command[0] == "exec":
    print(os.environ.get("FAKE_MP_VERSION", "(1, 29, 0, '')"))
elif command[:2] == ["fs", "cp"]:
    sources = [a for a in command[2:-1] if a != "-r"]
    for source in sources:
        if not os.path.exists(source):
            print(f"mpremote: cp: {source}: No such file or directory", file=sys.stderr)
            sys.exit(1)
        print(f"cp {source} {command[-1]}")
    board = os.environ.get("FAKE_BOARD")
    if board and "-r" not in command and len(sources) == 1:
        shutil.copyfile(sources[0], os.path.join(board, command[-1].lstrip(":")))
elif command[0] == "reset":
    pass
else:
    print(f"mpremote: unknown command {command}", file=sys.stderr)
    sys.exit(1)
