# The board layer: everything with pins, buses or radios sits behind one object chosen at
# start-up from the config's "board" key. Both boards offer the same surface:
#   ring_size, has_roll_button, wifi_up, show_ring(pixels), show_text(lines, rtl)
#   (rtl: the lines are right-to-left display rows, protocol/README.md view `rtl`),
#   show_dice(title, faces, rtl), show_net(up), show_hub(up), beep(ms, hz),
#   refused(why) (an input the seat did not take: "outbox full", "waiting for the hub"),
#   numbered(seq, kind) (an event the seat queued for the hub, under its sequence number),
#   arm_dice(roll, count), smart_dice(paired ids, pairing) (ESP32 only: the smart dice
#   its radio keeps to), inputs (a BoundedQueue of event dicts, plus smart-dice readings
#   {"kind": "reading", "id", "state", "face", and "battery", "rssi" when known} that
#   the seat keeps to itself),
#   async run(), async join_network(wdt) (feeding wdt, the watchdog, at every retry),
#   GC_THRESHOLD (bytes allocated between collections on this board, the reason beside
#   it), config_path, and for the seat's self-healing: reset_cause (why this boot began:
#   one of riskproto.messages.RESET_CAUSES), watchdog() (the hardware watchdog armed with
#   watchdog_ms, the config's, with feed()), reset(cause) (keeps the cause for the next
#   start's birth, then resets; never returns).
#
# make() also counts the seat's failed starts (firmware/README.md, "Safe mode"): every
# start adds one to CONFIG.starts before anything can fail, and the seat removes the
# file once it has run a whole watchdog period online with its loops healthy
# (seat/app.py). On the ESP32 a power-on starts the count afresh (a person switched the
# seat off and on: a try in earnest); the unix port cannot tell a power-on from a
# supervisor's restart, so there every start counts until one proves itself. A start
# that finds three failed starts before it goes to the safe mode (seat/safe.py)
# instead of trying a fourth. Two small flash writes per boot, none while the seat runs.

import os

_FAILED_STARTS = 3


def make(cfg, config_path):
    # The board, or None in the safe mode on a device (the unix port exits then) and
    # after the self-test.
    # The cause a seat kept before it reset itself (the boards' reset()), once.
    kept = None
    try:
        with open(config_path + ".reset") as f:
            kept = f.read()
        os.remove(config_path + ".reset")
    except OSError:
        pass
    starts = config_path + ".starts"
    failed = 0
    if cfg["board"] != "esp32" or _not_powered_on():
        try:
            with open(starts) as f:
                failed = int(f.read())
        except (OSError, ValueError):
            pass
    if failed >= _FAILED_STARTS:
        from seat.safe import enter

        return enter(config_path, cfg, "%d failed starts" % failed)
    try:
        with open(starts, "w") as f:
            f.write(str(failed + 1))
    except OSError as exc:  # a full or read-only filesystem: start all the same
        from log import log

        log("cannot count the start:", repr(exc))
    # The config's parsing left garbage: the board's code is loaded into a clean heap.
    import gc

    gc.collect()
    if cfg["board"] == "esp32":
        from board import esp32

        board = esp32.Board(cfg, config_path, kept)
        if board.selftest:
            # Confirm held at power-on: the bring-up self-test in place of the game, with
            # no watchdog (it waits on a person), then the REPL as the safe mode leaves
            # it. Here, not in seat/app.py, whose code stays in the seat's heap.
            from seat.selftest import on_board

            on_board(board, cfg, config_path)
            return None
        return board
    from board import emulated

    return emulated.Board(cfg, config_path, kept)


def _not_powered_on():
    import machine

    return machine.reset_cause() != machine.PWRON_RESET
