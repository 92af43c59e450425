# The seat's safe mode: entered at start-up after a bad configuration, or after three
# failed starts in a row (board/__init__.py counts them), instead of resetting forever.
# Nothing runs: no watchdog is armed, no network joined, no task started, so the REPL
# is free for mpremote (firmware/README.md, "Safe mode": fix the config, then reset).
# The display says so, in English (the seat may not have read its language). Loaded
# only to enter it.

import os
import sys

from log import log

# The unix port's exit status for the safe mode: the emulated seats' supervisor
# (risktable.demo.seats.SAFE_MODE_STATUS) leaves a seat that ends so in it.
_STATUS = 5


def enter(config_path, cfg, why):
    # cfg: the parsed config, or None when it could not be read. Returns None on a
    # device (the seat's run() returns, and the boot leaves the board at the REPL); on
    # the unix port the process ends with status 5.
    log("safe mode:", why)
    # The next start, after a person's fix and reset, tries in earnest again.
    try:
        os.remove(config_path + ".starts")
    except OSError:
        pass
    lines = ["safe mode", why, "mpremote: fix", "then reset"]
    import machine

    if not hasattr(machine, "reset"):
        # The unix port: the emulated board's display line, then the status.
        import json

        print(json.dumps({"oled": lines}))
        raise SystemExit(_STATUS)
    pinout = cfg["pinout"] if cfg is not None else "seat-pinout.json"
    try:
        from board import pinout as pins
        from board.display import open_screen

        screen = open_screen(pins.load(pins.beside(config_path, pinout)))
        if screen is not None:
            screen.text(lines)
    except Exception as exc:  # noqa: BLE001 - no display, no pinout: the log says it
        log("safe mode not shown:", repr(exc))
    sys.modules.pop("seat.safe", None)
    return None
