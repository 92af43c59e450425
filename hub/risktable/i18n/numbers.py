"""Numbers as each language writes them: the decimal sign and where the percent sign
goes (CLDR's, through Babel), and Persian's own digits.

Every fraction or percentage a seat, a page or the report shows is written here, in the
context's language (:func:`risktable.i18n.using`):

>>> from risktable import i18n
>>> [percent(0.916, lang=lang) for lang in ("en", "pt", "ro", "tr")]
['91.6%', '91,6%', '91,6\xa0%', '%91,6']
>>> with i18n.using("tr"):
...     percent(0.916)
'%91,6'
>>> with i18n.using("fa"):
...     percent(0.916), decimal(2.5), native_digits("3 armies")
('۹۱٫۶٪', '۲٫۵', '۳ armies')

Babel writes Persian in the Latin numbering system (ASCII digits, "." and "%"), but the
Persian rule book writes every number in Persian digits (۰-۹), its decimal sign is ٫ and
its percent sign ٪: this module puts them in (:func:`native_digits` for a whole line), and
the seat's font carries those glyphs (docs/fonts.md).
"""

from __future__ import annotations

from functools import cache

from babel import Locale
from babel.numbers import NumberPattern, parse_pattern

from risktable import i18n

NATIVE_SIGNS = {"fa": "۰۱۲۳۴۵۶۷۸۹٫٬٪"}
"""The characters a language's numbers use in place of ASCII ``0123456789.,%``, for a
language whose book writes its own (the seat's font must hold them)."""

# The ASCII each native sign replaces: the decimal point, the group comma and the
# percent sign Babel wrote become the language's own, with the digits.
_NATIVE = {lang: str.maketrans("0123456789.,%", signs) for lang, signs in NATIVE_SIGNS.items()}
_NATIVE_DIGITS = {lang: str.maketrans("0123456789", signs[:10])
                  for lang, signs in NATIVE_SIGNS.items()}


@cache
def _locale(lang: str) -> Locale:
    return Locale.parse(lang)


@cache
def _pattern(lang: str, kind: str, places: int) -> NumberPattern:
    # The locale's own pattern (where the sign goes, a space before it) with exactly
    # ``places`` digits after the decimal sign; "significant": ``places`` significant
    # digits at most, trailing zeros dropped (CLDR's "@##" pattern).
    locale = _locale(lang)
    if kind == "significant":
        return parse_pattern("@" + "#" * (places - 1))
    formats = locale.percent_formats if kind == "percent" else locale.decimal_formats
    pattern = parse_pattern(formats[None].pattern)
    pattern.frac_prec = (places, places)
    return pattern


def _write(value: float, kind: str, places: int, lang: str | None, signed: bool = False) -> str:
    lang = lang or i18n.current()
    # Persian: Babel's Latin symbols for the Persian locale (".", "," and "%"), then the
    # book's own signs and digits in one translation.
    text = str(_pattern(lang, kind, places).apply(value, _locale(lang)))
    if signed and not text.lstrip("\u200e\u061c").startswith(("-", "\u2212")):
        text = "+" + text
    return text.translate(_NATIVE[lang]) if lang in _NATIVE else text


def percent(fraction: float, places: int = 1, lang: str | None = None) -> str:
    """``fraction`` (0.916) as a percentage with ``places`` decimals in ``lang`` (default:
    the context's language): ``91.6%``, ``%91,6``, ``91,6 %``, ``۹۱٫۶٪``."""
    return _write(fraction, "percent", places, lang)


def decimal(value: float, places: int = 1, lang: str | None = None, *,
            signed: bool = False) -> str:
    """``value`` with ``places`` decimals in ``lang`` (default: the context's language);
    ``signed``: a plus sign before a value that is not negative (a change).

    >>> decimal(-0.5, 2, "pt"), decimal(0.25, 2, "ro", signed=True)
    ('-0,50', '+0,25')
    """
    return _write(value, "decimal", places, lang, signed)


def significant(value: float, digits: int = 3, lang: str | None = None) -> str:
    """``value`` to ``digits`` significant digits in ``lang`` (a p-value: 0.0123).

    >>> significant(0.012345, lang="tr"), significant(0.5, lang="en")
    ('0,0123', '0.5')
    """
    return _write(value, "significant", digits, lang)


def native_digits(text: str, lang: str | None = None) -> str:
    """``text`` with its ASCII digits in ``lang``'s own (Persian ۰-۹), for a language
    whose book writes them; other text unchanged."""
    lang = lang or i18n.current()
    table = _NATIVE_DIGITS.get(lang)
    return text.translate(table) if table else text


def number_chars(lang: str) -> str:
    """Every character ``lang``'s numbers can be written with (what the seat's font must
    draw): its digits, signs and the spaces of its patterns (Romanian's no-break space).

    >>> number_chars("ro")[-1], number_chars("fa")[-10:] == native_digits("0123456789", "fa")
    ('\xa0', True)
    """
    samples = (percent(-0.5, 1, lang), decimal(-1234.5, 1, lang),
               native_digits("0123456789", lang))
    return "".join(sorted(set("".join(samples))))


def page_numbers(lang: str) -> dict[str, str]:
    """How a page writes numbers in ``lang`` (the page catalogue's ``numbers``): the
    decimal sign, the percent pattern with ``{n}`` for the number, and the ten digits.

    >>> page_numbers("tr")
    {'decimal': ',', 'percent': '%{n}', 'digits': '0123456789'}
    """
    digits = native_digits("0123456789", lang)
    return {"decimal": decimal(0.5, 1, lang)[1],
            "percent": percent(0.25, 0, lang).replace(native_digits("25", lang), "{n}"),
            "digits": digits}
