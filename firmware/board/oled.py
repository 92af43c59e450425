# What the seat's display shows, drawn through drivers/ssd1306.py: the hub's prompt
# lines (word-wrapped in the 8x8 font), a line of only digits as a big number (an army
# count to read from across the table), and the dice of a roll under a title.

from micropython import const

TYPE_CHECKING = False
if TYPE_CHECKING:
    from drivers.ssd1306 import SSD1306

_FONT = const(8)
_NUMBER_SCALE = const(3)
_NUMBER_DIGITS = const(5)


def _is_number(line: str) -> bool:
    return 0 < len(line) <= _NUMBER_DIGITS and line.isdigit()


class Screen:
    def __init__(self, display: "SSD1306") -> None:
        self.display = display

    def text(self, lines: "list[str]") -> None:
        d = self.display
        d.clear()
        top = 0
        for line in lines:
            if _is_number(line):
                size = _FONT * _NUMBER_SCALE
                if top + size > d.height:
                    break
                x = (d.width - len(line) * size) // 2
                d.big_text(line, x, top, _NUMBER_SCALE)
                top += size + 2
            else:
                top = d.prompt(line, top)
        d.show()

    def dice(self, title: str, faces: "bytes | bytearray | list[int]") -> None:
        # The title on the first row, the dice as large as fit below it, left to right.
        d = self.display
        d.clear()
        d.prompt(title[:d.width // _FONT], 0)
        count = min(len(faces), 3)
        if count:
            room = d.height - _FONT - 2
            size = min(room, (d.width - 4 * (count + 1)) // count)
            gap = (d.width - count * size) // (count + 1)
            top = _FONT + 2 + (room - size) // 2
            for i in range(count):
                d.die(gap + i * (size + gap), top, size, faces[i])
        d.show()
