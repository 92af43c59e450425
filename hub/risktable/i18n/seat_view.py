"""A view as one seat reads it: the hub's notice in the seat's language, and for a
right-to-left seat the lines turned into the display rows it draws.

The session and the service write each seat's lines in its language already; this is
the last step before the view goes out, where the hub knows whether the seat shapes
text itself (a browser: ``caps`` with ``shaping``) or draws what it is sent (a seat
controller, whose font holds the joined forms; :mod:`risktable.i18n.layout`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from risktable import i18n
from risktable.i18n.numbers import native_digits

MAX_ROWS = 12
"""The most lines a view holds (protocol/README.md, view ``lines``)."""

LOGICAL_LINES = 4
"""The most logical lines the hub writes in a view (the notice included), before a
right-to-left seat's are broken into display rows."""


@cache
def _rtl_width() -> Callable[[str], int]:
    # The seat font's right-to-left face measures what the seat will draw.
    from risktable.i18n.font import Font

    return Font.load().face("rtl").width


def written(view: dict[str, Any], lang: str, *, shaping: bool = False,
            notice: str | None = None,
            width_of: Callable[[str], int] | None = None) -> dict[str, Any]:
    """``view`` (fields of a ``view`` message, its lines in ``lang`` already) as the seat
    gets it: ``notice`` (an English message, or ``None``) translated on top, its numbers
    in ``lang``'s own digits (Persian ۰-۹), and for a right-to-left ``lang`` on a seat
    that does not shape, display rows and ``rtl``."""
    out = dict(view)
    lines = list(out.get("lines", []))
    if notice is not None:
        with i18n.using(lang):
            lines = [i18n._(notice), *lines][:LOGICAL_LINES]
    # A language with digits of its own (Persian) writes every number of a line in them.
    lines = [native_digits(line, lang) for line in lines]
    if "lines" in out or lines:
        out["lines"] = lines
    if lang in i18n.RIGHT_TO_LEFT and not shaping:
        from risktable.i18n.layout import display_rows

        # A view without lines shows its name: a seat that does not shape gets it as a
        # display row too.
        shown = lines or ([str(out["name"])] if out.get("name") else [])
        if shown:
            out["lines"] = display_rows(shown, width_of or _rtl_width())[:MAX_ROWS]
            out["rtl"] = True
    return out


def detail_for(detail: str, lang: str, *, shaping: bool = False,
               width_of: Callable[[str], int] | None = None) -> str:
    """A refusal's ``detail`` as a seat of ``lang`` shows it, its numbers in ``lang``'s
    own digits: for a right-to-left seat that does not shape, its display rows joined by
    newlines (the seat draws each)."""
    detail = native_digits(detail, lang)
    if lang not in i18n.RIGHT_TO_LEFT or shaping or not detail:
        return detail
    from risktable.i18n.layout import display_rows

    return "\n".join(display_rows([detail], width_of or _rtl_width()))
