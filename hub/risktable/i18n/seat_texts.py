"""The words a seat shows by itself, without the hub: its notices (waiting for the hub,
outbox full), its reasons for a refusal, its dice pairing screen and dice titles.

The seat cannot ask the hub for them (the hub may be what is missing) and cannot shape
Persian itself, so every language's words are laid out here, at build time, into
``texts.bin`` (docs/seat-texts.md has its format), which ``firmware/seat/texts.py``
reads one entry at a time. The English sources below are marked with :func:`N_` for the
catalogue; the file is written from the compiled catalogues.

    python -m risktable.i18n.seat_texts   # rewrite firmware/texts.bin

A text's ``%d`` or ``%s`` (a count, a die's name) becomes a placeholder character
(:data:`PLACEHOLDER`, then the next code point for a second one), which the seat
replaces with the value; it sits in the Persian rows where the bidirectional algorithm
puts a number.
"""

from __future__ import annotations

import importlib
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from riskproto.codec import MAX_DIE_ID
from risktable.i18n import LANGUAGES, N_, RIGHT_TO_LEFT, translation
from risktable.i18n.layout import display_rows

TEXTS: dict[str, str] = {
    # seat/app.py: the notices above the view while the seat holds input back.
    "outbox": N_("outbox full"),
    "waiting": N_("waiting for the hub"),
    # seat/refusal.py: a refusal whose detail is for a developer, by its code.
    "dup": N_("The hub had this input already"),
    "stale": N_("That input came too late for the hub"),
    "version": N_("This seat's firmware does not match the hub"),
    "seat": N_("This seat is not at this table"),
    "order": N_("Inputs got out of order: try again"),
    "unread": N_("The hub could not read that input: try again"),
    # seat/pairing.py: pairing smart dice (%d dice paired; %s a die's name).
    "pairing": N_("Pairing: %d paired"),
    "newdie": N_("Roll a new die"),
    "rollfor": N_("Roll one for %s"),
    "unpair": N_("Confirm: unpair %s"),
    "knob": N_("Knob: choose"),
    "back": N_("Back: done"),
    # seat/dice.py, seat/dice_manual.py, seat/dice_smart.py: the title above the dice
    # (die %d of %d while typing faces in).
    "rolled": N_("Rolled"),
    "entered": N_("Entered"),
    "die": N_("Die %d of %d"),
    # seat/dice_manual.py: the same, over the dice tray's read (accept or correct it).
    "tray": N_("Tray: die %d of %d"),
}
"""Each text's key (what the firmware asks for) and its English, which the firmware
also holds: an English seat shows its own literals (``Seat.words`` in seat/app.py)."""

MAGIC = b"RTX1"
# A code or key and the NULs after it fill its cell, and at least one NUL ends it: the
# seat finds its place with one search of the table (bytes.find), which can then only
# match where a cell begins.
CODE_BYTES = 3
KEY_BYTES = 8
PLACEHOLDER = "\ue000"
"""The first value's stand-in in a stored text (a private-use character: strong
left-to-right, like the Latin and digits that replace it)."""

# Room kept in a right-to-left row for the value that replaces a placeholder: a count
# is one or two digits, a die's name up to eight characters.
SAMPLES = {"d": "00", "s": "0" * MAX_DIE_ID}
"""The widest value the seat puts in each kind of placeholder: a count of dice (one or
two digits), a smart die's id (protocol: at most MAX_DIE_ID characters). Rows are broken
so that they fit with these in place."""
_FORMAT = re.compile(r"%([ds%])")
_DEFAULT_OUT = Path(__file__).resolve().parents[3] / "firmware" / "texts.bin"


@dataclass(frozen=True)
class Entry:
    """One text as a seat shows it in one language: its rows and their direction
    (right to left: display rows, shaped and in visual order; else logical lines the
    seat wraps)."""

    rows: tuple[str, ...]
    rtl: bool


def _placeholders(text: str) -> tuple[str, list[str]]:
    # "%d of %d" -> "\ue000 of \ue001" and the kinds in order; "%%" is a percent sign.
    kinds: list[str] = []

    def one(match: re.Match[str]) -> str:
        if match.group(1) == "%":
            return "%"
        kinds.append(match.group(1))
        return chr(ord(PLACEHOLDER) + len(kinds) - 1)

    return _FORMAT.sub(one, text), kinds


def _measure(width_of: Callable[[str], int], kinds: list[str]) -> Callable[[str], int]:
    # The font has no glyph for a placeholder: it is measured as its sample value.
    def width(text: str) -> int:
        for i, kind in enumerate(kinds):
            text = text.replace(chr(ord(PLACEHOLDER) + i), SAMPLES[kind])
        return width_of(text)

    return width


def estimated_width(text: str) -> int:
    """A stand-in for the seat font's right-to-left face: 8 pixels a character."""
    return 8 * len(text)


def rtl_width() -> Callable[[str], int]:
    """The width in pixels of shaped text in the seat font's right-to-left face
    (``risktable.i18n.font`` on ``firmware/fonts/font.bin``), or
    :func:`estimated_width` where that font is not built yet."""
    try:
        font = importlib.import_module("risktable.i18n.font")
    except ImportError:
        return estimated_width
    path = _DEFAULT_OUT.parent / "fonts" / "font.bin"
    if not path.exists():
        return estimated_width
    face = font.Font.load(path).face("rtl")
    width: Callable[[str], int] = face.width
    return width


def entry(lang: str, key: str, width_of: Callable[[str], int] | None = None) -> Entry:
    """Text ``key`` in ``lang`` as the seat shows it. Left to right: the translated
    line, which the seat wraps as it wraps a view's. A message the catalogue lacks is
    English, and then left to right in every language (the seat's right-to-left face
    holds Persian's glyphs, not Latin words)."""
    source = TEXTS[key]
    said = translation(lang).gettext(source)
    text, kinds = _placeholders(said)
    if lang in RIGHT_TO_LEFT and said != source:
        return Entry(tuple(display_rows([text], _measure(width_of or rtl_width(), kinds))),
                     True)
    return Entry((text,), False)


def table(width_of: Callable[[str], int] | None = None) -> dict[str, dict[str, Entry]]:
    """Every language's entries, by language and key."""
    width_of = width_of or rtl_width()
    return {lang: {key: entry(lang, key, width_of) for key in sorted(TEXTS)}
            for lang in LANGUAGES}


def encode(entries: dict[str, dict[str, Entry]]) -> bytes:
    """``entries`` in the format of ``texts.bin`` (docs/seat-texts.md)."""
    langs = list(entries)
    keys = sorted(TEXTS)
    for key in keys:
        if not key.isascii() or not 0 < len(key) < KEY_BYTES:
            raise ValueError(f"seat text key {key!r}: 1 to {KEY_BYTES - 1} ASCII characters")
    head = MAGIC + bytes((len(langs), len(keys)))
    head += b"".join(lang.encode("ascii").ljust(CODE_BYTES, b"\0") for lang in langs)
    head += b"".join(key.encode("ascii").ljust(KEY_BYTES, b"\0") for key in keys)
    at = len(head) + 4 * len(langs) * len(keys)
    index = b""
    texts = b""
    for lang in langs:
        for key in keys:
            e = entries[lang][key]
            data = bytes((1 if e.rtl else 0,)) + "\n".join(e.rows).encode("utf-8")
            if at + len(texts) + len(data) > 0xFFFF:
                raise ValueError("the seat's texts outgrow texts.bin's 64 KiB offsets")
            index += struct.pack("<HH", at + len(texts), len(data))
            texts += data
    return head + index + texts


def decode(data: bytes) -> dict[str, dict[str, Entry]]:
    """The entries of a ``texts.bin`` (the seat's reading, on CPython)."""
    if data[:4] != MAGIC:
        raise ValueError("not a seat texts file")
    n_lang, n_key = data[4], data[5]
    at = 6
    langs = [data[at + CODE_BYTES * i:at + CODE_BYTES * (i + 1)].rstrip(b"\0").decode("ascii")
             for i in range(n_lang)]
    at += CODE_BYTES * n_lang
    keys = [data[at + KEY_BYTES * i:at + KEY_BYTES * (i + 1)].rstrip(b"\0").decode("ascii")
            for i in range(n_key)]
    at += KEY_BYTES * n_key
    out: dict[str, dict[str, Entry]] = {}
    for li, lang in enumerate(langs):
        out[lang] = {}
        for ki, key in enumerate(keys):
            offset, length = struct.unpack_from("<HH", data, at + 4 * (li * n_key + ki))
            raw = data[offset:offset + length]
            out[lang][key] = Entry(tuple(raw[1:].decode("utf-8").split("\n")), raw[0] == 1)
    return out


def build_texts(path: Path = _DEFAULT_OUT, width_of: Callable[[str], int] | None = None) -> Path:
    """Write ``texts.bin`` at ``path`` from the compiled catalogues; return ``path``."""
    path.write_bytes(encode(table(width_of)))
    return path


if __name__ == "__main__":
    print(build_texts())
