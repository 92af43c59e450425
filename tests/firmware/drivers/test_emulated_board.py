"""board/emulated.py's outputs under MicroPython: the ring line written in place from
one buffer, and only changes printed."""

from __future__ import annotations

from tests.firmware.drivers.conftest import RunMpy


def test_ring_lines_carry_every_value_and_only_changes_print(run_mpy: RunMpy) -> None:
    out = run_mpy(
        """
        from board.emulated import Board
        board = Board({"ring_size": 4, "control_port": 0, "watchdog_ms": 8000})
        pixels = bytearray(12)
        board.show_ring(pixels)
        board.show_ring(pixels)  # unchanged: nothing printed
        pixels[:] = bytes([255, 0, 7, 10, 99, 100, 1, 200, 9, 56, 255, 0])
        board.show_ring(pixels)
        pixels[0] = 3  # shorter numbers than before leave no stale digits
        pixels[5] = 0
        board.show_ring(pixels)
        board.show_text(["a", "b"])
        board.show_text(["a", "b"])
        board.show_dice("Rolled", bytes([3, 5]))
        board.beep(100, 2000)
        board.beep(100, 2000)  # every beep is heard
        board.show_net(True)
        board.show_net(True)
        """
    )
    assert out == [
        {"ring": [[0, 0, 0]] * 4},
        {"ring": [[255, 0, 7], [10, 99, 100], [1, 200, 9], [56, 255, 0]]},
        {"ring": [[3, 0, 7], [10, 99, 0], [1, 200, 9], [56, 255, 0]]},
        {"oled": ["a", "b"]},
        {"oled": ["Rolled", "3 5"]},
        {"beep": [100, 2000]},
        {"beep": [100, 2000]},
        {"net": "up"},
    ]


def test_input_lines_blank_skipped_bad_ones_refused(run_mpy: RunMpy) -> None:
    out = run_mpy(
        """
        import json
        from board.emulated import Board
        board = Board({"ring_size": 4, "control_port": 0, "watchdog_ms": 8000})
        for line in ("", "\\n", "  \\r\\n", ' {"encoder": -2}\\n', b'{"card": "04ab"}\\r\\n',
                     '{"button": "roll", "long": true}', '{"encoder": 0}\\n', "nonsense\\n"):
            board.take(line)
        got = []
        while len(board.inputs):
            got.append(board.inputs.get_nowait())
        print(json.dumps(got))
        """
    )
    assert out == [[
        {"kind": "encoder", "steps": -2},
        {"kind": "card", "uid": "04AB"},
        {"kind": "button", "button": "roll", "press": "long"},
    ]]
