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
#   async run(), async join_network(), and for the seat's self-healing: reset_cause
#   (why this boot began: one of riskproto.messages.RESET_CAUSES), watchdog() (the
#   hardware watchdog armed with watchdog_ms, the config's, with feed()), reset(cause) (keeps the cause for the next
#   start's birth, then resets; never returns).


def make(cfg, config_path):
    # The cause a seat kept before it reset itself (the boards' reset()), once.
    kept = None
    try:
        with open(config_path + ".reset") as f:
            kept = f.read()
        import os

        os.remove(config_path + ".reset")
    except OSError:
        pass
    # The config's parsing left garbage: the board's code is loaded into a clean heap.
    import gc

    gc.collect()
    if cfg["board"] == "esp32":
        from board import esp32

        return esp32.Board(cfg, config_path, kept)
    from board import emulated

    return emulated.Board(cfg, config_path, kept)
