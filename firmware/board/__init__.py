# The board layer: everything with pins, buses or radios sits behind one object chosen at
# start-up from the config's "board" key. Both boards offer the same surface:
#   ring_size, has_roll_button, wifi_up, show_ring(pixels), show_text(lines),
#   show_dice(title, faces), show_net(up), show_hub(up), beep(ms, hz),
#   arm_dice(roll, count), inputs (a BoundedQueue of event dicts, plus smart-dice
#   readings {"kind": "reading", "id", "state", "face"} that the seat keeps to itself),
#   async run(), async join_network().


def make(cfg, config_path):
    if cfg["board"] == "esp32":
        from board import esp32

        return esp32.Board(cfg, config_path)
    from board import emulated

    return emulated.Board(cfg)
