"""The game report as one self-contained HTML page: inline SVG charts and tables.

Nothing on the page is fetched: no scripts, fonts, images or style sheets
from anywhere, so the file works offline, mailed or copied to a phone. Every
chart is an ``<svg role="img">`` with a title and a description, axis labels,
and each seat drawn in its seat colour *and* with its own line dash, marker
shape or fill pattern plus its name, so nothing depends on telling colours
apart. Every number a chart draws is also in a table, and on the chart's
elements as ``data-`` attributes (what the browser test reads).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from html import escape

from risktable import i18n
from risktable.dice_stats import MIN_ROLLS
from risktable.hardware.palette import NEUTRAL, SEAT_COLOURS
from risktable.i18n import N_, _, ngettext, numbers
from risktable.report.compute import LUCK_METHOD, GameReport, Snapshot

# Chart geometry in SVG user units; the page scales the whole drawing to its width.
WIDTH = 960
HEIGHT = 420
LEFT, RIGHT, TOP, BOTTOM = 80, 125, 20, 70

# Per seat index: line dash, marker shape and fill pattern, so a seat is told apart
# without its colour.
DASHES = ("", "10 5", "3 4", "14 4 3 4", "7 3 2 3 2 3", "2 2", "1 6")
MARKERS = ("circle", "square", "triangle", "diamond", "plus", "down", "cross")
PATTERNS = ("solid", "stripes", "dots", "hlines", "crosshatch", "vlines", "checks")
# How the legend names them (the names above are also the SVG patterns' kinds).
_STYLE_WORDS = {
    "solid": N_("solid"), "stripes": N_("stripes"), "dots": N_("dots"),
    "hlines": N_("horizontal lines"), "crosshatch": N_("crosshatch"),
    "vlines": N_("vertical lines"), "checks": N_("checks"), "circle": N_("circle"),
    "square": N_("square"), "triangle": N_("triangle"), "diamond": N_("diamond"),
    "plus": N_("plus"), "down": N_("down triangle"), "cross": N_("cross"),
}
_VERDICTS = {"too few rolls": N_("too few rolls"), "fair": N_("fair"),
             "suspicious": N_("suspicious")}
_DIE_KINDS = {"seat": N_("seat"), "manual": N_("typed in"), "smart": N_("smart"),
              "named": N_("named"), "camera": N_("camera")}

CSS = """
:root { color-scheme: light; --ink: #1a1a1a; --muted: #555; --rule: #ccc; }
* { box-sizing: border-box; }
body { margin: 0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  font-size: clamp(15px, 0.6vw + 12px, 26px); line-height: 1.45; color: var(--ink);
  background: #fafafa; }
main { max-width: 75em; margin: 0 auto; padding: 0.75em; }
h1 { font-size: 1.6em; margin: 0.4em 0; }
h2 { font-size: 1.25em; margin: 1.4em 0 0.4em; border-bottom: 2px solid var(--rule); }
figure { margin: 0.5em 0; background: #fff; border: 1px solid var(--rule);
  border-radius: 6px; padding: 0.5em; }
figcaption { color: var(--muted); font-size: 0.9em; }
/* The charts are drawn with their axes at fixed places, in either direction of the page
   (start and end sides elsewhere, so that a right-to-left page mirrors). */
svg { display: block; width: 100%; height: auto; direction: ltr; }
svg text { font-family: inherit; fill: var(--ink); }
.scroll { overflow-x: auto; -webkit-overflow-scrolling: touch; }
table { border-collapse: collapse; margin: 0.5em 0; background: #fff; }
caption { text-align: start; font-weight: 600; padding: 0.3em 0; }
th, td { border: 1px solid var(--rule); padding: 0.25em 0.55em; text-align: end; }
th[scope=row], td.name, th.name { text-align: start; }
thead th { vertical-align: bottom; }
.swatch { display: inline-block; width: 2.4em; height: 0.9em; vertical-align: middle;
  margin-inline-end: 0.35em; border: 1px solid #333; }
.dice { display: grid; gap: 0.6em; grid-template-columns: repeat(auto-fill, minmax(17em, 1fr)); }
.note { color: var(--muted); font-size: 0.9em; }
.suspicious { font-weight: 700; color: #a00; }
/* On a phone the wide charts keep a readable size and scroll sideways. */
@media (max-width: 700px) { svg.wide { min-width: 680px; } }
@media (min-width: 1600px) { main { max-width: 95em; } }
"""


def seat_rgb(report: GameReport, seat: int) -> str:
    """The CSS colour of seat index ``seat`` (the seat colours of the table's LEDs)."""
    if seat < report.config.players and seat < len(SEAT_COLOURS):
        r, g, b = SEAT_COLOURS[seat].rgb
    else:
        r, g, b = NEUTRAL.rgb
    return f"rgb({r},{g},{b})"


def _style_index(report: GameReport, seat: int) -> int:
    # Neutral seats (two-player games) share the grey colour but keep a style of
    # their own: there are at most five seats in such a game.
    return seat % len(DASHES)


def _num(x: float) -> str:
    """A coordinate, short."""
    return f"{x:.1f}".rstrip("0").rstrip(".")


def _pct(x: float) -> str:
    return numbers.percent(x)


def _tick(v: float) -> str:
    """An axis tick's number as the page's language writes it (a whole number bare)."""
    return numbers.decimal(v, 0 if v == int(v) else 1)


def _share_tick(v: float) -> str:
    return numbers.percent(v, 0)


def _when(snap_label: str) -> str:
    """A snapshot's label (compute's "setup", "turn N", "end", "now") in the language."""
    words = {"setup": _("setup"), "end": _("end"), "now": _("now")}
    if snap_label in words:
        return words[snap_label]
    return _("turn {n}").format(n=snap_label.removeprefix("turn "))


def _verdict(verdict: str) -> str:
    return _(_VERDICTS[verdict]) if verdict in _VERDICTS else verdict


def _kind(kind: str) -> str:
    return _(_DIE_KINDS[kind]) if kind in _DIE_KINDS else kind


def _patterns(report: GameReport, prefix: str) -> str:
    """SVG pattern definitions: each seat's colour with its own overlay."""
    out = []
    for seat in range(report.seats):
        kind = PATTERNS[_style_index(report, seat)]
        colour = seat_rgb(report, seat)
        ink = 'stroke="#000" stroke-opacity="0.55" stroke-width="1.6"'
        overlay = {
            "solid": "",
            "stripes": f'<path d="M-2,2 l4,-4 M0,8 l8,-8 M6,10 l4,-4" {ink}/>',
            "dots": '<circle cx="4" cy="4" r="1.7" fill="#000" fill-opacity="0.55"/>',
            "hlines": f'<path d="M0,4 h8" {ink}/>',
            "crosshatch": f'<path d="M0,0 l8,8 M8,0 l-8,8" {ink}/>',
            "vlines": f'<path d="M4,0 v8" {ink}/>',
            "checks": '<rect width="4" height="4" fill="#000" fill-opacity="0.35"/>'
                      '<rect x="4" y="4" width="4" height="4" fill="#000" fill-opacity="0.35"/>',
        }[kind]
        out.append(f'<pattern id="{prefix}-p{seat}" width="8" height="8" '
                   f'patternUnits="userSpaceOnUse"><rect width="8" height="8" '
                   f'fill="{colour}"/>{overlay}</pattern>')
    return f"<defs>{''.join(out)}</defs>"


def _marker(kind: str, x: float, y: float, colour: str, r: float = 5.0) -> str:
    common = f'fill="{colour}" stroke="#222" stroke-width="1.2"'
    if kind == "circle":
        return f'<circle cx="{_num(x)}" cy="{_num(y)}" r="{_num(r)}" {common}/>'
    if kind == "square":
        return (f'<rect x="{_num(x - r)}" y="{_num(y - r)}" width="{_num(2 * r)}" '
                f'height="{_num(2 * r)}" {common}/>')
    shapes = {
        "triangle": [(0, -1.2), (1.1, 0.9), (-1.1, 0.9)],
        "down": [(0, 1.2), (1.1, -0.9), (-1.1, -0.9)],
        "diamond": [(0, -1.3), (1.3, 0), (0, 1.3), (-1.3, 0)],
        "plus": [(-0.4, -1.2), (0.4, -1.2), (0.4, -0.4), (1.2, -0.4), (1.2, 0.4), (0.4, 0.4),
                 (0.4, 1.2), (-0.4, 1.2), (-0.4, 0.4), (-1.2, 0.4), (-1.2, -0.4),
                 (-0.4, -0.4)],
        "cross": [(-1, -1.3), (0, -0.3), (1, -1.3), (1.3, -1), (0.3, 0), (1.3, 1), (1, 1.3),
                  (0, 0.3), (-1, 1.3), (-1.3, 1), (-0.3, 0), (-1.3, -1)],
    }[kind]
    points = " ".join(f"{_num(x + dx * r)},{_num(y + dy * r)}" for dx, dy in shapes)
    return f'<polygon points="{points}" {common}/>'


def _nice_step(span: float, ticks: int = 6) -> float:
    """A round tick step (1, 2 or 5 times a power of ten) giving about ``ticks`` ticks."""
    if span <= 0:
        return 1.0
    raw = span / ticks
    power = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if raw <= m * power:
            return float(m * power)
    return float(10 * power)


def _svg_open(chart_id: str, title: str, desc: str, height: int = HEIGHT) -> str:
    return (f'<svg id="{chart_id}" class="wide" viewBox="0 0 {WIDTH} {height}" role="img" '
            f'aria-labelledby="{chart_id}-title {chart_id}-desc" '
            f'xmlns="http://www.w3.org/2000/svg">'
            f'<title id="{chart_id}-title">{escape(title)}</title>'
            f'<desc id="{chart_id}-desc">{escape(desc)}</desc>'
            f'<rect width="{WIDTH}" height="{height}" fill="#fff"/>')


def _axes(x_label: str, y_label: str, y_max: float, y_step: float, x_ticks: Sequence[int],
          x_of: dict[int, float], y_format: Callable[[float], str] = _tick) -> str:
    """Axis lines, grid, ticks and the two axis labels of a plot area."""
    bottom = HEIGHT - BOTTOM
    parts = ['<g class="axes" font-size="18">']
    y = 0.0
    while y <= y_max + 1e-9:
        py = bottom - (bottom - TOP) * (y / y_max if y_max else 0)
        parts.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{_num(py)}" y2="{_num(py)}" '
                     f'stroke="#e3e3e3"/>'
                     f'<text x="{LEFT - 8}" y="{_num(py + 6)}" text-anchor="end">'
                     f'{escape(y_format(y))}</text>')
        y += y_step
    for k in x_ticks:
        px = x_of[k]
        parts.append(f'<line x1="{_num(px)}" x2="{_num(px)}" y1="{bottom}" y2="{bottom + 6}" '
                     f'stroke="#333"/><text x="{_num(px)}" y="{bottom + 22}" '
                     f'text-anchor="middle">{k}</text>')
    parts.append(f'<line x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{bottom}" stroke="#333"/>'
                 f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{bottom}" y2="{bottom}" '
                 f'stroke="#333"/>'
                 f'<text class="x-label" x="{(LEFT + WIDTH - RIGHT) / 2}" y="{HEIGHT - 12}" '
                 f'text-anchor="middle" font-size="20">{escape(x_label)}</text>'
                 f'<text class="y-label" x="18" y="{(TOP + bottom) / 2}" text-anchor="middle" '
                 f'font-size="20" transform="rotate(-90 18 {(TOP + bottom) / 2})">'
                 f'{escape(y_label)}</text></g>')
    return "".join(parts)


def _x_positions(snapshots: Sequence[Snapshot]) -> tuple[list[float], list[int], dict[int, float]]:
    """x of each snapshot (by turn), the turns to tick, and x of each ticked turn."""
    last = max(snapshots[-1].turn, 1)
    span = WIDTH - LEFT - RIGHT

    def x(turn: int) -> float:
        return LEFT + span * turn / last

    step = max(1, int(_nice_step(last, 10)))
    ticks = list(range(0, last + 1, step))
    return [x(s.turn) for s in snapshots], ticks, {t: x(t) for t in ticks}


def _spread(ys: list[tuple[float, int]], gap: float, limit: float) -> dict[int, float]:
    """End-label heights pushed apart so no two labels overlap, none below ``limit``."""
    order = sorted(ys)
    heights: list[float] = []
    for y, _key in order:
        heights.append(max(y, heights[-1] + gap) if heights else y)
    # Labels pushed past the bottom move back up, keeping their gaps.
    for k in range(len(heights) - 1, -1, -1):
        cap = limit if k == len(heights) - 1 else heights[k + 1] - gap
        heights[k] = min(heights[k], cap)
    return {key: h for (_y, key), h in zip(order, heights, strict=True)}


def line_chart(report: GameReport, chart_id: str, title: str, desc: str, y_label: str,
               series: dict[int, list[float]], *, y_format: Callable[[float], str] = _tick,
               y_max: float | None = None, highlight: tuple[int, int] | None = None) -> str:
    """A chart of one line per seat over the snapshots (x: turns played).

    ``series`` maps seat index to one value per snapshot; ``highlight`` shades
    the stretch between two snapshot indices (the largest swing).
    """
    snaps = report.snapshots
    xs, ticks, x_of = _x_positions(snaps)
    top = max((v for vals in series.values() for v in vals), default=1.0)
    if y_max is None:
        y_step = _nice_step(top)
        y_max = max(y_step, math.ceil(top / y_step) * y_step)
    else:
        y_step = _nice_step(y_max)
    bottom = HEIGHT - BOTTOM

    def y(v: float) -> float:
        return bottom - (bottom - TOP) * v / y_max

    parts = [_svg_open(chart_id, title, desc)]
    if highlight is not None:
        a, b = highlight
        parts.append(f'<rect class="swing" x="{_num(xs[a])}" y="{TOP}" '
                     f'width="{_num(max(xs[b] - xs[a], 3))}" height="{bottom - TOP}" '
                     f'fill="#ffd54a" fill-opacity="0.45" stroke="#b08800" '
                     f'stroke-dasharray="4 3"/>')
    parts.append(_axes(_("turns played"), y_label, y_max, y_step, ticks, x_of, y_format))
    every = max(1, len(snaps) // 30)  # markers on at most about 30 points per line
    ends: list[tuple[float, int]] = []
    for seat, values in series.items():
        style = _style_index(report, seat)
        colour = seat_rgb(report, seat)
        points = " ".join(f"{_num(px)},{_num(y(v))}" for px, v in zip(xs, values, strict=True))
        dash = f' stroke-dasharray="{DASHES[style]}"' if DASHES[style] else ""
        values_attr = ",".join(f"{v:g}" for v in values)
        parts.append(f'<g class="series" data-seat="{seat}" '
                     f'data-name="{escape(report.seat_name(seat))}" '
                     f'data-values="{values_attr}">'
                     f'<title>{escape(report.seat_name(seat))}</title>'
                     f'<polyline points="{points}" fill="none" stroke="#222" '
                     f'stroke-width="5.5" stroke-linejoin="round" stroke-opacity="0.55"/>'
                     f'<polyline points="{points}" fill="none" stroke="{colour}" '
                     f'stroke-width="3.5" stroke-linejoin="round"{dash}/>')
        for k in range(0, len(values), every):
            parts.append(_marker(MARKERS[style], xs[k], y(values[k]), colour))
        parts.append(_marker(MARKERS[style], xs[-1], y(values[-1]), colour))
        parts.append("</g>")
        ends.append((y(values[-1]), seat))
    for seat, ly in _spread(ends, 20, bottom).items():
        parts.append(f'<text class="end-label" x="{WIDTH - RIGHT + 10}" y="{_num(ly + 5)}" '
                     f'font-size="19">{escape(report.seat_name(seat))}</text>')
    parts.append("</svg>")
    return "".join(parts)


def continents_chart(report: GameReport) -> str:
    """One row per continent, one column per snapshot: who held it whole."""
    board = report.config.board
    snaps = report.snapshots
    rows = len(board.continents)
    row_h = 34
    label_w = 190
    height = TOP + rows * row_h + 60
    span = WIDTH - label_w - 20
    cell = span / len(snaps)
    parts = [_svg_open("chart-continents", _("Continents held over time"),
                       _("For each continent, a band over the turns filled with the pattern of "
                         "the seat that held the whole continent; blank where nobody did."),
                       height), _patterns(report, "cont")]
    for r, continent in enumerate(board.continents):
        name = i18n.continent(continent.name)
        top = TOP + r * row_h
        parts.append(f'<text x="{label_w - 10}" y="{top + row_h / 2 + 6}" text-anchor="end" '
                     f'font-size="19">{escape(name)}</text>'
                     f'<rect x="{label_w}" y="{top + 3}" width="{_num(span)}" '
                     f'height="{row_h - 6}" fill="#f2f2f2" stroke="#ccc"/>')
        holders = []
        for k, snap in enumerate(snaps):
            holder = next((s for s, held in enumerate(snap.continents) if r in held), -1)
            holders.append(str(holder))
            if holder >= 0:
                parts.append(f'<rect x="{_num(label_w + k * cell)}" y="{top + 3}" '
                             f'width="{_num(cell + 0.4)}" height="{row_h - 6}" '
                             f'fill="url(#cont-p{holder})"><title>{escape(name)}: '
                             f'{escape(report.seat_name(holder))}, {escape(_when(snap.label))}'
                             f'</title></rect>')
        parts.append(f'<g class="continent" data-continent="{escape(continent.name)}" '
                     f'data-holders="{",".join(holders)}"/>')
    axis_y = TOP + rows * row_h + 22
    _xs, ticks, _x_of = _x_positions(snaps)
    last = max(snaps[-1].turn, 1)
    for t in ticks:
        px = label_w + span * t / last
        parts.append(f'<text x="{_num(px)}" y="{axis_y}" text-anchor="middle" '
                     f'font-size="18">{t}</text>')
    # Messages stay outside f-strings: Babel's extractor does not look inside them.
    x_label = escape(_("turns played"))
    parts.append(f'<text class="x-label" x="{label_w + span / 2}" y="{axis_y + 26}" '
                 f'text-anchor="middle" font-size="20">{x_label}</text></svg>')
    return "".join(parts)


def dice_chart(report: GameReport, index: int) -> str:
    """One die's six face counts as bars, with the fair expectation as a dashed line."""
    die = report.dice[index]
    w, h = 360, 240
    left, bottom, top = 44, h - 44, 16
    expected = die.rolls / 6
    peak = max(max(die.counts), expected, 1)
    step = _nice_step(peak, 4)
    y_max = math.ceil(peak / step) * step
    chart_id = f"chart-die-{index}"

    def y(v: float) -> float:
        return bottom - (bottom - top) * v / y_max

    title = escape(_("Faces of die {die}").format(die=die.die))
    parts = [f'<svg id="{chart_id}" viewBox="0 0 {w} {h}" role="img" '
             f'aria-labelledby="{chart_id}-title {chart_id}-desc" '
             f'xmlns="http://www.w3.org/2000/svg" class="die" data-die="{escape(die.die)}" '
             f'data-counts="{",".join(map(str, die.counts))}">'
             f'<title id="{chart_id}-title">'
             f'{title}</title>'
             f'<desc id="{chart_id}-desc">'
             + escape(ngettext("How often each face 1 to 6 came up in {n} roll; the dashed "
                               "line is what a fair die gives on average ({mean} each).",
                               "How often each face 1 to 6 came up in {n} rolls; the dashed "
                               "line is what a fair die gives on average ({mean} each).",
                               die.rolls).format(n=die.rolls, mean=numbers.decimal(expected)))
             + f'</desc><rect width="{w}" height="{h}" fill="#fff"/>']
    v = 0.0
    while v <= y_max + 1e-9:
        parts.append(f'<line x1="{left}" x2="{w - 8}" y1="{_num(y(v))}" y2="{_num(y(v))}" '
                     f'stroke="#e3e3e3"/><text x="{left - 6}" y="{_num(y(v) + 5)}" '
                     f'text-anchor="end" font-size="13">{v:g}</text>')
        v += step
    slot = (w - 8 - left) / 6
    for face, count in enumerate(die.counts, start=1):
        x0 = left + (face - 1) * slot + slot * 0.15
        tip = escape(_("face {face}: {count}").format(face=face, count=count))
        parts.append(f'<rect class="face" data-face="{face}" data-count="{count}" '
                     f'x="{_num(x0)}" y="{_num(y(count))}" width="{_num(slot * 0.7)}" '
                     f'height="{_num(bottom - y(count))}" fill="#4a7fb0" stroke="#223">'
                     f'<title>{tip}</title></rect>'
                     f'<text x="{_num(x0 + slot * 0.35)}" y="{_num(y(count) - 4)}" '
                     f'text-anchor="middle" font-size="13">{count}</text>'
                     f'<text x="{_num(x0 + slot * 0.35)}" y="{bottom + 18}" '
                     f'text-anchor="middle" font-size="14">{face}</text>')
    face_word, times_word = escape(_("face")), escape(_("times"))
    parts.append(f'<line x1="{left}" x2="{w - 8}" y1="{_num(y(expected))}" '
                 f'y2="{_num(y(expected))}" stroke="#c0392b" stroke-width="2.5" '
                 f'stroke-dasharray="7 4"/>'
                 f'<line x1="{left}" x2="{left}" y1="{top}" y2="{bottom}" stroke="#333"/>'
                 f'<line x1="{left}" x2="{w - 8}" y1="{bottom}" y2="{bottom}" stroke="#333"/>'
                 f'<text x="{(left + w) / 2}" y="{h - 6}" text-anchor="middle" '
                 f'font-size="14">{face_word}</text><text x="12" '
                 f'y="{(top + bottom) / 2}" text-anchor="middle" font-size="14" '
                 f'transform="rotate(-90 12 {(top + bottom) / 2})">{times_word}</text>'
                 f'</svg>')
    return "".join(parts)


def luck_chart(report: GameReport) -> str:
    """Per player: conquests made (patterned bar) against conquests expected (outlined)."""
    players = report.config.players
    rows = [report.luck[s] for s in range(players)]
    bar_h, gap = 22, 16
    label_w = 120
    height = TOP + players * (2 * bar_h + gap) + 56
    peak = max([float(lk.expected_conquests) for lk in rows] + [lk.conquests for lk in rows]
               + [1.0])
    step = _nice_step(peak, 6)
    x_max = math.ceil(peak / step) * step
    span = WIDTH - label_w - 170  # room for the value written after the longest bar

    def x(v: float) -> float:
        return label_w + span * v / x_max

    parts = [_svg_open("chart-luck", _("Battle luck: conquests against the odds"),
                       _("For each player, the territories conquered (filled bar) and the "
                         "conquests expected from the exact odds of every roll the player made "
                         "as attacker (outlined bar)."), height), _patterns(report, "luck")]
    bottom = TOP + players * (2 * bar_h + gap)
    v = 0.0
    while v <= x_max + 1e-9:
        parts.append(f'<line x1="{_num(x(v))}" x2="{_num(x(v))}" y1="{TOP}" y2="{bottom}" '
                     f'stroke="#e3e3e3"/><text x="{_num(x(v))}" y="{bottom + 20}" '
                     f'text-anchor="middle" font-size="18">{v:g}</text>')
        v += step
    for k, lk in enumerate(rows):
        top = TOP + k * (2 * bar_h + gap)
        expected = float(lk.expected_conquests)
        made_tip = escape(_("conquests made: {n}").format(n=lk.conquests))
        made = escape(_("{n} made").format(n=lk.conquests))
        expected_tip = escape(_("conquests expected: {n}").format(n=numbers.decimal(expected, 2)))
        expected_text = escape(_("{n} expected").format(n=numbers.decimal(expected)))
        parts.append(
            f'<g class="luck" data-seat="{lk.seat}" data-conquests="{lk.conquests}" '
            f'data-expected="{expected:.6f}" data-rolls="{lk.rolls}">'
            f'<text x="{label_w - 10}" y="{top + bar_h + 5}" text-anchor="end" '
            f'font-size="19">{escape(report.seat_name(lk.seat))}</text>'
            f'<rect x="{label_w}" y="{top}" width="{_num(x(lk.conquests) - label_w)}" '
            f'height="{bar_h}" fill="url(#luck-p{lk.seat})" stroke="#222">'
            f'<title>{made_tip}</title></rect>'
            f'<text x="{_num(x(lk.conquests) + 6)}" y="{top + bar_h - 5}" font-size="18">'
            f'{made}</text>'
            f'<rect x="{label_w}" y="{top + bar_h}" width="{_num(x(expected) - label_w)}" '
            f'height="{bar_h}" fill="#fff" stroke="#222" stroke-width="2" '
            f'stroke-dasharray="5 3"><title>{expected_tip}</title></rect>'
            f'<text x="{_num(x(expected) + 6)}" y="{top + 2 * bar_h - 5}" font-size="18">'
            f'{expected_text}</text></g>')
    x_label = escape(_("territories conquered"))
    parts.append(f'<line x1="{label_w}" x2="{label_w}" y1="{TOP}" y2="{bottom}" stroke="#333"/>'
                 f'<text class="x-label" x="{label_w + span / 2}" y="{height - 8}" '
                 f'text-anchor="middle" font-size="20">{x_label}</text></svg>')
    return "".join(parts)


def _legend(report: GameReport) -> str:
    items = []
    for seat in range(report.seats):
        style = _style_index(report, seat)
        colour = seat_rgb(report, seat)
        dash = f' stroke-dasharray="{DASHES[style]}"' if DASHES[style] else ""
        pattern = escape(_(_STYLE_WORDS[PATTERNS[style]]))
        marker = escape(_(_STYLE_WORDS[MARKERS[style]]))
        items.append(
            f'<li><svg viewBox="0 0 60 20" width="60" height="20" aria-hidden="true" '
            f'style="display:inline-block;width:3.2em;vertical-align:middle">'
            f'{_patterns(report, f"leg{seat}")}'
            f'<rect x="0" y="2" width="14" height="16" fill="url(#leg{seat}-p{seat})" '
            f'stroke="#222"/><line x1="18" x2="58" y1="10" y2="10" stroke="{colour}" '
            f'stroke-width="3.5"{dash}/>{_marker(MARKERS[style], 38, 10, colour, 4.5)}'
            f'</svg> {escape(report.seat_name(seat))} '
            f'<span class="note">({escape(_colour_name(report, seat))}, '
            f'{pattern}, {marker})</span></li>')
    return f'<ul class="legend">{"".join(items)}</ul>'


def _colour_name(report: GameReport, seat: int) -> str:
    if seat < report.config.players and seat < len(SEAT_COLOURS):
        return i18n.colour(SEAT_COLOURS[seat].name)
    return i18n.colour(NEUTRAL.name)


def _final_table(report: GameReport) -> str:
    snap = report.snapshots[-1]
    board = report.config.board
    rows = []
    for seat in range(report.seats):
        held = ", ".join(i18n.continent(board.continents[c].name)
                         for c in snap.continents[seat]) or "-"
        mark = _(" (winner)") if seat == report.winner else ""
        rows.append(f'<tr data-seat="{seat}" data-territories="{snap.territories[seat]}" '
                    f'data-armies="{snap.armies[seat]}"><th scope="row">'
                    f'{escape(report.seat_name(seat))}{escape(mark)}</th>'
                    f'<td class="territories">{snap.territories[seat]}</td>'
                    f'<td class="armies">{snap.armies[seat]}</td>'
                    f'<td class="name">{escape(held)}</td></tr>')
    heads = _th(_("Seat")) + _th(_("Territories")) + _th(_("Armies")) + _th(
        _("Continents held"), "name")
    caption = _("Territories and armies at the end") if report.finished else ngettext(
        "Territories and armies now, after {n} action",
        "Territories and armies now, after {n} actions", report.actions).format(n=report.actions)
    return (f'<div class="scroll"><table id="final"><caption>{escape(caption)}'
            f'</caption><thead><tr>{heads}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def _turn_table(report: GameReport) -> str:
    head = "".join(_th(_("{seat} territories / armies").format(seat=report.seat_name(s)))
                   for s in range(report.seats))
    rows = []
    for snap in report.snapshots:
        who = "" if snap.player < 0 else f" ({escape(report.seat_name(snap.player))})"
        cells = "".join(f"<td>{snap.territories[s]} / {snap.armies[s]}</td>"
                        for s in range(report.seats))
        rows.append(f'<tr><th scope="row">{escape(_when(snap.label))}{who}</th>{cells}</tr>')
    n = len(report.snapshots)
    summary = ngettext("Every turn as a table ({n} row)", "Every turn as a table ({n} rows)",
                       n).format(n=n)
    caption = _("Territories / armies per seat at the end of each turn")
    when = _th(_("When"))
    return (f'<details><summary>{escape(summary)}</summary>'
            f'<div class="scroll"><table id="turns"><caption>{escape(caption)}</caption>'
            f'<thead><tr>{when}{head}</tr>'
            f'</thead><tbody>{"".join(rows)}</tbody></table></div></details>')


def _continent_table(report: GameReport) -> str:
    board = report.config.board
    head = "".join(f'<th scope="col">{escape(report.seat_name(s))}</th>'
                   for s in range(report.seats))
    rows = []
    for c, continent in enumerate(board.continents):
        counts = [sum(1 for snap in report.snapshots[1:] if c in snap.continents[s])
                  for s in range(report.seats)]
        cells = "".join(f"<td>{n}</td>" for n in counts)
        rows.append(f'<tr><th scope="row">{escape(i18n.continent(continent.name))} '
                    f'(+{continent.bonus})</th>{cells}</tr>')
    caption = _("Snapshots after the setup in which each seat held the continent whole")
    first = _th(_("Continent"))
    return (f'<div class="scroll"><table id="continents"><caption>{escape(caption)}</caption>'
            f'<thead><tr>{first}{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def _luck_table(report: GameReport) -> str:
    rows = []
    for lk in report.luck:
        if lk.seat >= report.config.players and not lk.defended:
            continue
        rows.append(
            f'<tr data-seat="{lk.seat}"><th scope="row">{escape(report.seat_name(lk.seat))}'
            f'</th><td>{lk.rolls}</td><td class="conquests">{lk.conquests}</td>'
            f'<td class="expected">{numbers.decimal(float(lk.expected_conquests), 2)}</td>'
            f'<td>{numbers.decimal(lk.luck, 2, signed=True)}</td><td>{lk.defended}</td>'
            f'<td>{lk.losses}</td><td>{numbers.decimal(float(lk.expected_losses), 2)}</td></tr>')
    heads = [_("Seat"), _("Rolls attacking"), _("Conquests"), _("Expected"), _("Luck"),
             _("Rolls defending"), _("Territories lost"), _("Expected lost")]
    caption = escape(_("Battle luck (exact per-roll odds)"))
    return (f'<div class="scroll"><table id="luck"><caption>{caption}</caption><thead><tr>'
            + "".join(f'<th scope="col">{escape(h)}</th>' for h in heads)
            + f'</tr></thead><tbody>{"".join(rows)}</tbody></table></div>')


def _dice_table(report: GameReport) -> str:
    rows = []
    for d in report.dice:
        verdict = d.verdict()
        cls = ' class="suspicious"' if verdict == "suspicious" else ""
        verdict = _verdict(verdict)
        cells = "".join(f'<td class="face{f + 1}">{n}</td>' for f, n in enumerate(d.counts))
        rows.append(f'<tr data-die="{escape(d.die)}" data-counts="{",".join(map(str, d.counts))}">'
                    f'<th scope="row">{escape(d.die)}</th>'
                    f'<td class="name">{escape(_kind(d.kind))}</td>'
                    f'{cells}<td>{d.rolls}</td><td>{numbers.decimal(d.chi_square(), 2)}</td>'
                    f'<td>{numbers.significant(d.p_value(), 3)}</td>'
                    f'<td{cls}>{escape(verdict)}</td></tr>')
    faces = "".join(f'<th scope="col">{f}</th>' for f in range(1, 7))
    caption = escape(_("Faces of each physical die"))
    heads = _th(_("Die")) + _th(_("Kind")) + faces + "".join(
        _th(word) for word in (_("Rolls"), _("Chi-square"), _("p-value"), _("Verdict")))
    return (f'<div class="scroll"><table id="dice"><caption>{caption}</caption><thead><tr>'
            f'{heads}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>')


def _th(word: str, cls: str = "") -> str:
    """A column head."""
    css = f' class="{cls}"' if cls else ""
    return f'<th scope="col"{css}>{escape(word)}</th>'


def _figure(svg: str, caption: str) -> str:
    return (f'<figure><div class="scroll">{svg}</div><figcaption>{escape(caption)}'
            f"</figcaption></figure>")


def render(report: GameReport, title: str, lang: str | None = None) -> str:
    """The whole page for ``report`` under the heading ``title``, written in ``lang``
    (one of risktable.i18n.LANGUAGES; ``None``: the context's language)."""
    with i18n.using(lang) as written:
        return _render(report, title, written)


def _render(report: GameReport, title: str, lang: str) -> str:
    snaps = report.snapshots
    seats = range(report.seats)
    territories = {s: [float(x.territories[s]) for x in snaps] for s in seats}
    armies = {s: [float(x.armies[s]) for x in snaps] for s in seats}
    focus = report.seat_name(report.focus)
    if report.winner is not None:
        status = _("{seat} won.").format(seat=report.seat_name(report.winner))
        whose = _("the winner ({seat})").format(seat=focus)
    elif report.finished:
        status = _("The game ended without a winner.")
        whose = _("the seat with the most armies now ({seat})").format(seat=focus)
    else:
        status = _("The game is under way: this is the story up to action {n}.").format(
            n=report.actions)
        whose = _("the seat with the most armies now ({seat})").format(seat=focus)
    swing = report.swing
    highlight = None
    swing_text = _("Not enough turns yet for a change in share.")
    if swing is not None:
        k = next(i for i, s in enumerate(snaps) if s.label == swing.label and s.turn == swing.turn)
        highlight = (k - 1, k)
        if swing.label == "end":
            when = _("turn {n}, the one that ended the game").format(n=swing.turn)
        elif swing.label == "now":
            when = _("turn {n}, the one under way").format(n=swing.turn)
        else:
            when = _("{when} ({seat}'s turn)").format(when=_when(swing.label),
                                                      seat=report.seat_name(swing.player))
        swing_text = _("The largest change in the share of all armies held by {whose} came "
                       "in {when}: from {before} to {after} ({change} points).").format(
            whose=whose, when=when, before=_pct(swing.before), after=_pct(swing.after),
            change=numbers.decimal(100 * swing.change, signed=True))
    share_chart = line_chart(
        report, "chart-share", _("Share of all armies held by {seat}").format(seat=focus),
        _("{whose}'s armies as a share of all armies on the board after each turn; the "
          "shaded band is the turn with the largest change.").format(whose=whose),
        _("share of all armies"),
        {report.focus: list(report.shares)}, y_format=_share_tick, y_max=1.0, highlight=highlight)
    dice = "".join(
        "<figure>" + dice_chart(report, k) + "<figcaption>" + escape(ngettext(
            "{die} ({kind}): {n} roll, chi-square {chi}, p = {p}, {verdict}",
            "{die} ({kind}): {n} rolls, chi-square {chi}, p = {p}, {verdict}", d.rolls).format(
            die=d.die, kind=_kind(d.kind), n=d.rolls, chi=numbers.decimal(d.chi_square(), 2),
            p=numbers.significant(d.p_value(), 3), verdict=_verdict(d.verdict())))
        + "</figcaption></figure>" for k, d in enumerate(report.dice))
    turns, actions = report.snapshots[-1].turn, report.actions
    counts = ", ".join([ngettext("{n} turn", "{n} turns", turns).format(n=turns),
                        ngettext("{n} action", "{n} actions", actions).format(n=actions),
                        ngettext("{n} player", "{n} players", report.config.players).format(
                            n=report.config.players)])

    def h2(text: str) -> str:
        return f"<h2>{escape(text)}</h2>"

    def note(text: str) -> str:
        return f'<p class="note">{escape(text)}</p>'

    body = [
        f"<h1>{escape(title)}</h1>",
        f"<p>{escape(status)} {escape(counts)}.</p>",
        h2(_("Seats")), _legend(report), _final_table(report),
        h2(_("Territories per seat")),
        _figure(line_chart(report, "chart-territories",
                           _("Territories per seat over the turns"),
                           _("The number of territories each seat held at the end of each "
                             "turn."), _("territories"), territories),
                _("Territories held at the end of every turn (turn 0: after the setup).")),
        h2(_("Armies per seat")),
        _figure(line_chart(report, "chart-armies", _("Armies per seat over the turns"),
                           _("The armies each seat had on the board at the end of each turn."),
                           _("armies on the board"), armies),
                _("Armies on the board at the end of every turn.")),
        _turn_table(report),
        h2(_("Continents held")),
        _figure(continents_chart(report), _("Who held each continent whole, turn by turn.")),
        _continent_table(report),
        h2(_("The turning point")),
        _figure(share_chart, swing_text),
        h2(_("Battle luck")),
        note(_("Expected conquests: {method}. Luck is conquests made minus conquests "
               "expected.").format(method=_(LUCK_METHOD))),
        _figure(luck_chart(report), _("Conquests made against conquests expected.")),
        _luck_table(report),
        h2(_("Dice")),
        note(_("Each physical die against a fair die (dashed line: the expected count per "
               "face). Pearson's chi-square over the six faces, 5 degrees of freedom; a "
               "verdict needs at least {n} rolls.").format(n=MIN_ROLLS)),
        f'<div class="dice">{dice}</div>' if report.dice else
        "<p>" + escape(_("No physical dice were read in this game.")) + "</p>",
        _dice_table(report),
    ]
    direction = "rtl" if lang in i18n.RIGHT_TO_LEFT else "ltr"
    return (f'<!DOCTYPE html>\n<html lang="{lang}" dir="{direction}"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{escape(title)}</title><style>{CSS}</style></head>"
            f'<body><main>{"".join(body)}</main></body></html>\n')
