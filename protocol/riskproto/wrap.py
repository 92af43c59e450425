# The seat's word wrap of a left-to-right line: the hub lays its lines out the way the
# seat will (risktable.i18n.layout), so both use this one function. A seat's display is
# 16 columns of 8-pixel cells (drivers/ssd1306.py), whatever script the line is in.


def wrap(text: str, per_line: int) -> "list[str]":
    # Greedy word wrap; a word longer than a line is cut across lines.
    lines: "list[str]" = []
    line = ""
    for word in text.split():
        while len(word) > per_line:
            if line:
                lines.append(line)
                line = ""
            lines.append(word[:per_line])
            word = word[per_line:]
        if not word:
            continue
        if not line:
            line = word
        elif len(line) + 1 + len(word) <= per_line:
            line = line + " " + word
        else:
            lines.append(line)
            line = word
    if line:
        lines.append(line)
    return lines
