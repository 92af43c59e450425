"""The players' languages: message catalogues and the language of what is being written.

Every word a player reads goes through :func:`_`, :func:`ngettext` or :func:`pgettext`
(the standard library's gettext on the catalogues in ``locale/``, extracted and compiled
with Babel: ``python -m risktable.i18n.catalogues``). The language is not an argument of
every function that writes text: it is the context's, set with :func:`using` around the
code that writes one seat's (or one page's) words, so one table can mix languages.

English is the source language: its catalogue is the messages themselves.
"""

from __future__ import annotations

import contextlib
import contextvars
import gettext
from collections.abc import Iterator
from functools import cache
from pathlib import Path

LANGUAGES = ("en", "fa", "pt", "ro", "tr")
"""The languages a seat, a page or the hub can speak, by ISO 639-1 code."""

NAMES = {"en": "English", "fa": "فارسی", "pt": "Português", "ro": "Română", "tr": "Türkçe"}
"""Each language's name in itself, for menus that choose one."""

RIGHT_TO_LEFT = frozenset({"fa"})
"""Languages written right to left (the hub shapes and orders their text for a seat)."""

DEFAULT = "en"
DOMAIN = "risktable"
LOCALE_DIR = Path(__file__).parent / "locale"

_current: contextvars.ContextVar[str] = contextvars.ContextVar("risktable_language",
                                                               default=DEFAULT)


class UnknownLanguage(ValueError):
    """A language code that is not one of :data:`LANGUAGES`."""

    def __init__(self, code: str) -> None:
        super().__init__(f"unknown language {code!r}: choose one of {', '.join(LANGUAGES)}")
        self.code = code


def check_language(code: str) -> str:
    """``code`` if it is one of :data:`LANGUAGES`, else :class:`UnknownLanguage`."""
    if code not in LANGUAGES:
        raise UnknownLanguage(code)
    return code


class _Misses(gettext.NullTranslations):
    # The fallback of every catalogue: a message it lacks is recorded (the tests make a
    # game in each language fail on one) and shown in English rather than not at all.
    def __init__(self, lang: str) -> None:
        super().__init__()
        self.lang = lang

    def gettext(self, message: str) -> str:
        missed.add((self.lang, "", message))
        return message

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        missed.add((self.lang, "", msgid1))
        return msgid1 if n == 1 else msgid2

    def pgettext(self, context: str, message: str) -> str:
        missed.add((self.lang, context, message))
        return message

    def npgettext(self, context: str, msgid1: str, msgid2: str, n: int) -> str:
        missed.add((self.lang, context, msgid1))
        return msgid1 if n == 1 else msgid2


missed: set[tuple[str, str, str]] = set()
"""(language, context, message) of every message asked for in a language whose
catalogue lacks it, since the process started (or the set was cleared)."""


@cache
def translation(lang: str) -> gettext.NullTranslations:
    """The compiled catalogue of ``lang`` (English: the messages themselves)."""
    check_language(lang)
    if lang == DEFAULT:
        return gettext.NullTranslations()
    t = gettext.translation(DOMAIN, LOCALE_DIR, languages=[lang])
    t.add_fallback(_Misses(lang))
    return t


def current() -> str:
    """The language being written in this context."""
    return _current.get()


@contextlib.contextmanager
def using(lang: str | None) -> Iterator[str]:
    """Write in ``lang`` (``None``: keep the current language) inside the block."""
    if lang is None:
        yield current()
        return
    token = _current.set(check_language(lang))
    try:
        yield lang
    finally:
        _current.reset(token)


def _(message: str) -> str:
    """``message`` in the current language."""
    return translation(current()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a message for the number ``n`` in the current language (its
    catalogue's plural rule: Persian and Turkish nouns stay singular after a number,
    Romanian has a third form)."""
    return translation(current()).ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` in the current language, told apart from the same English word in
    another ``context`` (a territory, a continent, a colour, a menu)."""
    return translation(current()).pgettext(context, message)


def N_(message: str) -> str:
    """Mark ``message`` for the catalogue where it is written; it is translated later
    with :func:`_` where it is shown."""
    return message


def territory(name: str) -> str:
    """A territory's name in the current language."""
    return pgettext("territory", name)


def continent(name: str) -> str:
    """A continent's name in the current language."""
    return pgettext("continent", name)


def colour(name: str) -> str:
    """A colour's name in the current language."""
    return pgettext("colour", name)
