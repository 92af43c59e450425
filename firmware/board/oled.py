# What the seat's display shows, drawn through drivers/ssd1306.py: the hub's prompt
# lines (word-wrapped in the 8x8 font), a line of only digits as a big number (an army
# count to read from across the table), and the dice of a roll under a title. A text
# taller than the display is never cut: it is shown a page at a time (the seat turns
# the page every 3 s), as are right-to-left rows, four 16 px rows to a page.

from micropython import const

TYPE_CHECKING = False
if TYPE_CHECKING:
    from drivers.ssd1306 import SSD1306

_FONT = const(8)
_NUMBER_SCALE = const(3)
_NUMBER_DIGITS = const(5)
_RTL_ROW = const(16)  # a row of the font's rtl face


def _is_number(line: str) -> bool:
    return 0 < len(line) <= _NUMBER_DIGITS and line.isdigit()


class Screen:
    def __init__(self, display: "SSD1306") -> None:
        self.display = display

    def text(self, lines: "list[str]", rtl: bool = False, page: int = 0) -> int:
        # Draws page `page` (modulo their count) of the lines; returns the count.
        d = self.display
        d.clear()
        if rtl:
            pages = d.rtl(lines, page)
        else:
            pages = self._pages(lines, -1)
            self._pages(lines, page % pages)
        d.show()
        return pages

    def _pages(self, lines: "list[str]", page: int) -> int:
        # Lays the lines out in pages, drawing those of page `page` (-1: none); a row
        # or big number that does not fit below the last starts the next page.
        d = self.display
        top = 0
        n = 0
        for line in lines:
            if _is_number(line):
                size = _FONT * _NUMBER_SCALE
                if top + size > d.height and top:
                    n += 1
                    top = 0
                if n == page:
                    d.big_text(line, (d.width - len(line) * size) // 2, top, _NUMBER_SCALE)
                top += size + 2
            else:
                for row in d.rows(line):
                    if top + _FONT > d.height:
                        n += 1
                        top = 0
                    if n == page:
                        d.line(row, top)
                    top += _FONT
        return n + 1

    def dice(self, title: str, faces: "bytes | bytearray | list[int]",
             rtl: bool = False) -> None:
        # The title on the first row (a right-to-left one: one row of the rtl face, as
        # the hub's texts.bin wrote it), the dice as large as fit below it, left to right.
        d = self.display
        d.clear()
        if rtl:
            d.rtl([title], 0)
            head = _RTL_ROW
        else:
            d.prompt(title[:d.width // _FONT], 0)
            head = _FONT
        count = min(len(faces), 3)
        if count:
            room = d.height - head - 2
            size = min(room, (d.width - 4 * (count + 1)) // count)
            gap = (d.width - count * size) // (count + 1)
            top = head + 2 + (room - size) // 2
            for i in range(count):
                d.die(gap + i * (size + gap), top, size, faces[i])
        d.show()
