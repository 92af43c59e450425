"""The seat's bitmap font: built from Debian's fonts for the characters the catalogues
use, and read back for the hub's layout (docs/fonts.md describes the file).

Two faces:

``latin``
    8 px cells for the characters outside ASCII that left-to-right languages use (the
    seat draws ASCII with framebuf's built-in 8x8 font, so these must keep its grid and
    look: a bold 7 px capital, a 5 px x-height, marks in the rows above and below).
``rtl``
    16 px rows of variable width for shaped Persian (Arabic presentation forms, in
    visual order) and the printable ASCII a Persian row can hold (digits, punctuation,
    a player's Latin name).

Building needs Pillow (a development dependency) and Babel, imported only there;
reading needs neither::

    python -m risktable.i18n.font            # rebuild firmware/fonts/font.bin
    python -m risktable.i18n.font --out F    # somewhere else

    >>> face = Font.load(FONT_PATH).face("latin")
    >>> face.height, face.width("ç") if face.has("ç") else 8
    (8, 8)
"""

from __future__ import annotations

import struct
import sys
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from risktable.i18n import DEFAULT, LANGUAGES, NAMES, RIGHT_TO_LEFT
from risktable.i18n.layout import visual

if TYPE_CHECKING:
    from PIL import ImageFont

REPO = Path(__file__).resolve().parents[3]
FONT_PATH = REPO / "firmware" / "fonts" / "font.bin"
"""The committed font file the seat bundle ships."""

MAGIC = b"RTFN"
VERSION = 1
HEADER = struct.Struct("<4sBBH")      # magic, version, face count, reserved
FACE = struct.Struct("<8sBBHII")      # name, height, stride (bytes a row), count, index, bitmaps
ENTRY = struct.Struct("<HBx")         # code point, advance (px)

FACES = ("latin", "rtl")
LATIN_HEIGHT = 8
RTL_HEIGHT = 16
FALLBACK = "?"
"""A character a face lacks is drawn (and measured) as this one, when the face has it."""

DEJAVU = Path("/usr/share/fonts/truetype/dejavu")
LATIN_FONT = DEJAVU / "DejaVuSans-Bold.ttf"
RTL_FONT = Path("/usr/share/fonts/truetype/noto/NotoNaskhArabic-Regular.ttf")
RTL_SIZE = 15
RTL_LATIN_FONT = DEJAVU / "DejaVuSans.ttf"
RTL_LATIN_SIZE = 11
# At 15 px Noto Naskh's letters reach 12 rows above the baseline (alef with madda, gaf)
# and 3 below it (the tails of noon, reh, yeh): the baseline row that fits both in 16
# rows (an alef alone is 10 px).
RTL_BASELINE = 12
RTL_THRESHOLD = 100
# DejaVu Sans Bold at 9 px: 7 px capitals and a 5 px x-height, framebuf's proportions.
LATIN_SIZE = 9
LATIN_CAPITAL_UNDER_MARK = 5  # rows of a capital with a mark above it
LATIN_BASELINE = 6  # the row the built-in font's letters stand on (row 7: descenders)

# Marks drawn over (or under) a base letter in the 8 px cell, after Unicode's canonical
# decomposition: rendered at 8 px the fonts' own marks are one blurred pixel, so these
# are drawn to the grid, centred on the base's ink. Rows are strings of '#' and '.'.
_MARKS_ABOVE = {
    "\u0300": ("#..", ".#."),       # grave
    "\u0301": ("..#", ".#."),       # acute
    "\u0302": (".#.", "#.#"),       # circumflex
    "\u0303": (".#.#", "#.#."),     # tilde
    "\u0306": ("#..#", ".##."),     # breve
    "\u0307": ("##",),              # dot above
    "\u0308": ("##.##",),           # diaeresis
    "\u030a": (".#.", "#.#"),       # ring (over a, as a small circle)
    "\u030b": (".#.#", "#.#."),     # double acute
    "\u030c": ("#.#", ".#."),       # caron
}
_MARKS_BELOW = {
    "\u0326": ("##",),              # comma below (ș ț)
    "\u0327": (".##",),             # cedilla (ç ş)
    "\u0328": ("..##",),            # ogonek
}
_DOTLESS = {"i": "\u0131", "j": "\u0237"}


class FontError(ValueError):
    """A font file that is not one, or a character set a face cannot hold."""


@dataclass(frozen=True)
class Glyph:
    """One character's bitmap: ``advance`` px wide on the row, ``stride`` bytes a row
    of ``height`` rows, MONO_HLSB (most significant bit leftmost)."""

    char: str
    advance: int
    height: int
    stride: int
    bitmap: bytes

    def pixel(self, x: int, y: int) -> bool:
        """Whether the pixel at column ``x``, row ``y`` of the glyph's cell is ink."""
        return bool(self.bitmap[y * self.stride + x // 8] & (0x80 >> (x % 8)))

    def rows(self) -> list[str]:
        """The bitmap as rows of '#' (ink) and '.', ``stride * 8`` columns each."""
        return ["".join("#" if self.pixel(x, y) else "." for x in range(self.stride * 8))
                for y in range(self.height)]

    def ink(self) -> tuple[int, int] | None:
        """The first and last rows holding ink, or None for a blank glyph."""
        inked = [y for y in range(self.height) if any(self.bitmap[y * self.stride:
                                                                  (y + 1) * self.stride])]
        return (inked[0], inked[-1]) if inked else None


class Face:
    """One face of a :class:`Font`: its glyphs by character."""

    def __init__(self, name: str, height: int, stride: int, glyphs: dict[str, Glyph]) -> None:
        self.name = name
        self.height = height
        self.stride = stride
        self.glyphs = glyphs

    def has(self, ch: str) -> bool:
        """Whether the face holds a glyph for the character ``ch``."""
        return ch in self.glyphs

    def glyph(self, ch: str) -> Glyph:
        """The glyph the seat draws for ``ch``: its own, else :data:`FALLBACK`'s
        (KeyError when the face has neither)."""
        found = self.glyphs.get(ch)
        if found is None:
            found = self.glyphs[FALLBACK]
        return found

    def width(self, text: str) -> int:
        """The width in pixels of ``text`` drawn with this face (the sum of advances)."""
        return sum(self.glyph(ch).advance for ch in text)


class Font:
    """A font file's faces, by name ("latin", "rtl")."""

    def __init__(self, faces: dict[str, Face]) -> None:
        self.faces = faces

    @classmethod
    def load(cls, path: Path = FONT_PATH) -> Font:
        """Read a font file (no Pillow needed)."""
        return cls.parse(Path(path).read_bytes())

    @classmethod
    def parse(cls, data: bytes) -> Font:
        """Read a font file's bytes; :class:`FontError` when they are not one."""
        try:
            magic, version, count, _ = HEADER.unpack_from(data, 0)
            if magic != MAGIC or version != VERSION:
                raise FontError(f"not a version {VERSION} seat font")
            faces: dict[str, Face] = {}
            for i in range(count):
                raw, height, stride, n, index, bitmaps = FACE.unpack_from(
                    data, HEADER.size + i * FACE.size)
                name = raw.rstrip(b"\0").decode("ascii")
                size = height * stride
                glyphs: dict[str, Glyph] = {}
                for j in range(n):
                    cp, advance = ENTRY.unpack_from(data, index + j * ENTRY.size)
                    at = bitmaps + j * size
                    if at + size > len(data):
                        raise FontError(f"face {name}: glyph {j} past the end of the file")
                    glyphs[chr(cp)] = Glyph(chr(cp), advance, height, stride,
                                            data[at:at + size])
                faces[name] = Face(name, height, stride, glyphs)
        except struct.error as exc:
            raise FontError(f"truncated seat font: {exc}") from None
        return cls(faces)

    def face(self, name: str) -> Face:
        """The face called ``name`` ("latin" or "rtl")."""
        return self.faces[name]


# ---- which characters


def missing_chars(font: Font, latin: set[str], rtl: set[str]) -> set[tuple[str, str]]:
    """(face, character) of each of ``latin`` (outside ASCII) and ``rtl`` that ``font``
    lacks: what the seat would draw as "?"."""
    lacking = {("latin", ch) for ch in latin if ord(ch) > 0x7E and not font.face("latin").has(ch)}
    lacking |= {("rtl", ch) for ch in rtl if not font.face("rtl").has(ch)}
    return lacking


def catalogue_messages(lang: str) -> list[str]:
    """Every translated text of ``lang``'s catalogue (each msgstr and plural form); for
    English, the messages themselves (msgids, from the template)."""
    from babel.messages.pofile import read_po

    from risktable.i18n.catalogues import TEMPLATE, po_path

    path = TEMPLATE if lang == DEFAULT else po_path(lang)
    with path.open("rb") as f:
        catalog = read_po(f)
    texts: list[str] = []
    for message in catalog:
        if not message.id:
            continue  # the header
        source = message.id if lang == DEFAULT else message.string
        texts += [source] if isinstance(source, str) else list(source or ())
    return [t for t in texts if t]


_TATWEEL = "\u0640"
_LAM = "\u0644"


def joining_forms(letters: set[str]) -> set[str]:
    """Every presentation form of each Arabic-script letter in ``letters`` (isolated,
    initial, medial, final; lam with each alef there), as shaping can give them."""
    import arabic_reshaper

    forms: set[str] = set()
    arabic = {ch for ch in letters if 0x0600 <= ord(ch) <= 0x06FF and ch != _TATWEEL}
    for ch in arabic:
        for text in (ch, ch + _TATWEEL, _TATWEEL + ch + _TATWEEL, _TATWEEL + ch):
            forms.update(str(arabic_reshaper.reshape(text)))
        if _LAM in arabic and unicodedata.name(ch, "").startswith("ARABIC LETTER ALEF"):
            for text in (_LAM + ch, _TATWEEL + _LAM + ch):
                forms.update(str(arabic_reshaper.reshape(text)))
    forms.discard(_TATWEEL)
    return forms


def catalogue_chars() -> tuple[set[str], set[str]]:
    """(latin, rtl): the characters outside ASCII every left-to-right catalogue uses,
    and every character of the right-to-left catalogues once shaped, with each
    language's own name (a language menu shows them). The rtl set holds every joining
    form of each letter used, not only those the messages show: the hub breaks a word
    too long for a row and puts names into messages, which can join a letter another
    way. The seat's own texts are catalogue messages too (marked with N_()), so their
    characters are in, and so are the characters a language's numbers use (Persian
    ۰-۹, ٫ and ٪; the no-break space of Romanian's "91,6 %": risktable.i18n.numbers)."""
    from risktable.i18n.numbers import number_chars

    latin: set[str] = set()
    rtl: set[str] = set()
    for lang in LANGUAGES:
        texts = [*catalogue_messages(lang), NAMES[lang], number_chars(lang)]
        if lang in RIGHT_TO_LEFT:
            for text in texts:
                rtl.update(visual(text))
            rtl.update(joining_forms(set("".join(texts))))
        else:
            for text in texts:
                latin.update(ch for ch in text if ord(ch) > 0x7E)
    rtl.discard("\n")
    latin.discard("\n")
    return latin, rtl


# ---- drawing glyphs


def _truetype(path: Path, size: int) -> ImageFont.FreeTypeFont:
    from PIL import ImageFont

    if not path.is_file():
        raise FontError(f"{path} is missing (Debian: fonts-dejavu-core, fonts-noto-core)")
    return ImageFont.truetype(str(path), size, layout_engine=ImageFont.Layout.BASIC)


def _ink(ch: str, font: ImageFont.FreeTypeFont, threshold: int = 0,
         size: int = 32) -> list[list[bool]]:
    # ``ch`` drawn with its baseline at row size//2 and its origin at column size//4, as
    # a grid of booleans: threshold 0 is FreeType's hinted monochrome rendering (crisp
    # Latin at 8 px), else the grey levels above it (keeps Arabic dots, which the
    # monochrome hinting drops at 14 px).
    from PIL import Image, ImageDraw

    image = Image.new("1" if threshold == 0 else "L", (size * 2, size), 0)
    draw = ImageDraw.Draw(image)
    draw.fontmode = "1" if threshold == 0 else "L"
    draw.text((size // 4, size // 2), ch, font=font, fill=1 if threshold == 0 else 255,
              anchor="ls")
    return [[int(image.getpixel((x, y))) > threshold  # type: ignore[arg-type]
             for x in range(size * 2)] for y in range(size)]


def _bounds(grid: list[list[bool]]) -> tuple[int, int, int, int] | None:
    rows = [y for y, row in enumerate(grid) if any(row)]
    cols = [x for x in range(len(grid[0])) if any(row[x] for row in grid)]
    if not rows:
        return None
    return cols[0], rows[0], cols[-1], rows[-1]


def _pack(cell: list[list[bool]], stride: int) -> bytes:
    out = bytearray()
    for row in cell:
        for byte in range(stride):
            value = 0
            for bit in range(8):
                x = byte * 8 + bit
                if x < len(row) and row[x]:
                    value |= 0x80 >> bit
            out.append(value)
    return bytes(out)


def _squash(rows: list[list[bool]], height: int) -> list[list[bool]]:
    # ``rows`` cut to ``height`` by dropping, one at a time, the inner row most like the
    # one below it (a stem's or a bowl's straight run), which keeps the letter's shape.
    rows = [list(r) for r in rows]
    while len(rows) > height and len(rows) > 2:
        diffs = [sum(a != b for a, b in zip(rows[i], rows[i + 1], strict=True))
                 for i in range(1, len(rows) - 1)]
        del rows[1 + diffs.index(min(diffs))]
    return rows


def _latin_glyph(ch: str, font: ImageFont.FreeTypeFont) -> list[list[bool]]:
    # A base letter from DejaVu Sans Bold on the built-in font's baseline, with its
    # marks drawn to the grid; a character with no such decomposition (dotless i, sharp
    # s, quotes, dashes) is the font's own glyph, moved into the cell.
    cell = [[False] * LATIN_HEIGHT for _ in range(LATIN_HEIGHT)]
    parts = unicodedata.normalize("NFD", ch)
    base, marks = parts[0], parts[1:]
    above = [m for m in marks if m in _MARKS_ABOVE]
    below = [m for m in marks if m in _MARKS_BELOW]
    if len(above) + len(below) != len(marks) or len(above) > 1 or len(below) > 1:
        base, above, below = ch, [], []
    if above:
        base = _DOTLESS.get(base, base)  # the mark takes the place of an i's dot
    capital = above and (base.isupper() or base.isdigit())
    grid = _ink(base, font)
    bounds = _bounds(grid)
    if bounds is None:
        return cell
    x0, y0, x1, y1 = bounds
    baseline = len(grid) // 2
    # Left-aligned from column 1 like the built-in font's letters, at most 7 columns.
    dx = x0 - 1 if x1 - x0 < 7 else x0
    rows = [row[dx:dx + LATIN_HEIGHT] for row in grid[y0:y1 + 1]]
    if capital:
        # A capital under a mark: squashed to 5 rows standing on the last row, under
        # the mark in rows 0..1 with a blank row between.
        rows = _squash(rows, LATIN_CAPITAL_UNDER_MARK)
        top = LATIN_HEIGHT - len(rows)
    else:
        top = y0 - (baseline - 1 - LATIN_BASELINE)
        top = max(0, min(top, LATIN_HEIGHT - len(rows)))
    for y, row in enumerate(rows[:LATIN_HEIGHT]):
        cell[top + y] = [bool(v) for v in row]
    left, right = x0 - dx, min(x1 - dx, LATIN_HEIGHT - 1)
    for mark in above:
        pattern = _MARKS_ABOVE[mark]
        if top < len(pattern):
            pattern = pattern[len(pattern) - top:]  # no room: its lower rows only
        # One blank row between mark and letter when there is room for it.
        my = top - len(pattern) - (1 if top > len(pattern) else 0)
        if pattern:
            _stamp(cell, pattern, left, right, my)
    for mark in below:
        _stamp(cell, _MARKS_BELOW[mark], left, right, LATIN_HEIGHT - 1)
    return cell


def _stamp(cell: list[list[bool]], pattern: tuple[str, ...], left: int, right: int,
           top: int) -> None:
    # A mark's rows centred over the columns left..right.
    width = len(pattern[0])
    mx = max(0, min(left + (right - left + 2 - width) // 2, LATIN_HEIGHT - width))
    for y, row in enumerate(pattern):
        for x, c in enumerate(row):
            if c == "#" and 0 <= top + y < LATIN_HEIGHT:
                cell[top + y][mx + x] = True


def _missing(ch: str, font: ImageFont.FreeTypeFont) -> bool:
    # Whether ``font`` lacks ``ch``: it draws the same box as for a non-character.
    return _ink(ch, font) == _ink("\uffff", font)


def _rtl_glyph(ch: str, font: ImageFont.FreeTypeFont,
               stride: int) -> tuple[int, list[list[bool]]]:
    # ``ch`` on the face's baseline; ink above or below the 16 rows (the tip of a hamza
    # over a final alef) is cut rather than every glyph made smaller.
    grid = _ink(ch, font, RTL_THRESHOLD)
    origin, middle = len(grid) // 4, len(grid) // 2
    advance = max(1, round(font.getlength(ch)))
    cell = [[False] * (stride * 8) for _ in range(RTL_HEIGHT)]
    for y in range(RTL_HEIGHT):
        gy = y - RTL_BASELINE + middle
        for x in range(stride * 8):
            # Ink left of the origin (a pixel of some joined forms) is cut too: the
            # advances, not the ink, decide where the next glyph joins.
            if 0 <= gy < len(grid) and grid[gy][origin + x]:
                cell[y][x] = True
    return advance, cell


def build_font(chars_latin: set[str], chars_rtl: set[str]) -> bytes:
    """The font file holding ``chars_latin`` in the 8 px "latin" face and
    ``chars_rtl`` plus printable ASCII in the 16 px "rtl" face. Deterministic: the same
    characters and fonts give the same bytes."""
    latin_chars = sorted({ch for ch in chars_latin if ord(ch) > 0x7E})
    rtl_chars = sorted(set(chars_rtl) | {chr(c) for c in range(0x20, 0x7F)})
    for ch in (*latin_chars, *rtl_chars):
        if len(ch) != 1 or ord(ch) > 0xFFFF:
            raise FontError(f"{ch!r}: a face holds single characters of the BMP")
    regular = _truetype(LATIN_FONT, LATIN_SIZE)
    faces: list[tuple[str, int, int, list[tuple[str, int, bytes]]]] = []
    faces.append(("latin", LATIN_HEIGHT, 1,
                  [(ch, LATIN_HEIGHT, _pack(_latin_glyph(ch, regular), 1))
                   for ch in latin_chars]))
    arabic = _truetype(RTL_FONT, RTL_SIZE)
    latin = _truetype(RTL_LATIN_FONT, RTL_LATIN_SIZE)
    # ASCII, and what the Arabic font lacks, from DejaVu Sans (Noto Naskh's brackets are
    # taller than its letters, and it has no Latin letters).
    sources = {ch: latin if ord(ch) < 0x80 or _missing(ch, arabic) else arabic
               for ch in rtl_chars}
    stride = (max(max(round(sources[ch].getlength(ch)) for ch in rtl_chars), 1) + 7) // 8
    rtl: list[tuple[str, int, bytes]] = []
    for ch in rtl_chars:
        advance, cell = _rtl_glyph(ch, sources[ch], stride)
        rtl.append((ch, advance, _pack(cell, stride)))
    faces.append(("rtl", RTL_HEIGHT, stride, rtl))
    return pack_faces(faces)


def pack_faces(faces: list[tuple[str, int, int, list[tuple[str, int, bytes]]]]) -> bytes:
    """The file for faces given as (name, height, stride, [(char, advance, bitmap)]),
    each face's glyphs sorted by code point."""
    head = bytearray(HEADER.pack(MAGIC, VERSION, len(faces), 0))
    at = HEADER.size + FACE.size * len(faces)
    body = bytearray()
    for name, height, stride, glyphs in faces:
        glyphs = sorted(glyphs)
        index = at + len(body)
        for ch, advance, _ in glyphs:
            body += ENTRY.pack(ord(ch), advance)
        bitmaps = at + len(body)
        for ch, _, bitmap in glyphs:
            if len(bitmap) != height * stride:
                raise FontError(f"{ch!r}: {len(bitmap)} bytes, not {height * stride}")
            body += bitmap
        head += FACE.pack(name.encode("ascii"), height, stride, len(glyphs), index, bitmaps)
    return bytes(head + body)


def write_font(out: Path = FONT_PATH) -> Path:
    """Build the font for the catalogues' characters into ``out``; returns ``out``."""
    latin, rtl = catalogue_chars()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(build_font(latin, rtl))
    return out


def main(argv: list[str]) -> int:
    out = FONT_PATH
    if argv[:1] == ["--out"] and len(argv) == 2:
        out = Path(argv[1])
    elif argv:
        print(__doc__, file=sys.stderr)
        return 2
    path = write_font(out)
    font = Font.load(path)
    print(f"{path}: " + ", ".join(f"{name} {len(face.glyphs)} glyphs"
                                  for name, face in font.faces.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
