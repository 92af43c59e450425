"""The message catalogues: every message of the template translated in every language,
with the same placeholders, the language's plural rule, compiled files and template in
step with the sources, and the review list (docs/translations.md) true."""

from __future__ import annotations

import gettext
import re
import string
from functools import cache
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.plurals import get_plural
from babel.messages.pofile import read_po

from risktable import i18n
from risktable.i18n import catalogues
from tests.support.tools import ROOT

LANGS = catalogues.TRANSLATED
NAME_CONTEXTS = ("territory", "continent", "colour", "symbol")

# Each language's plural rule, written out from CLDR's rules (what Babel writes in the
# header): the form a number takes. Persian and Turkish keep a noun singular after a
# number, so their two forms only matter for words like "one"; Romanian has a "few" form
# (0 and numbers ending in 01-19) and Portuguese (CLDR's Brazilian rule) a form for
# whole millions.
PLURAL_FORM = {
    "fa": lambda n: int(n > 1),
    "pt": lambda n: 0 if n in (0, 1) else 1 if n % 1_000_000 == 0 else 2,
    "ro": lambda n: 0 if n == 1 else 1 if n == 0 or 1 <= n % 100 <= 19 else 2,
    "tr": lambda n: int(n != 1),
}
NUMBERS = [*range(0, 130), 1000, 1001, 1019, 1020, 1_000_000, 2_000_000, 2_000_001]


@cache
def template() -> Catalog:
    with catalogues.TEMPLATE.open("rb") as f:
        return read_po(f)


@cache
def catalogue(lang: str) -> Catalog:
    with catalogues.po_path(lang).open("rb") as f:
        return read_po(f, locale=lang, domain=i18n.DOMAIN)


def key(message: Message) -> tuple[str, str]:
    msgid = message.id if isinstance(message.id, str) else message.id[0]
    return message.context or "", msgid


def messages(catalog: Catalog) -> dict[tuple[str, str], Message]:
    return {key(m): m for m in catalog if m.id}


def forms(message: Message) -> list[str]:
    return list(message.string) if isinstance(message.string, (list, tuple)) \
        else [message.string]


def fields(text: str) -> list[tuple[str, str, str]]:
    """The format fields of ``text`` (name, conversion, spec), sorted, as str.format
    reads them; a malformed string fails the test that asks."""
    found = [(name, conversion or "", spec or "")
             for _, name, spec, conversion in string.Formatter().parse(text)
             if name is not None]
    return sorted(found)


PERCENT = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(?:\*|\d+)?(?:\.\d+)?[diouxXeEfFgGcrsa%]")


def percent_specs(text: str) -> list[str]:
    """The printf-style specifications of ``text`` in order ("%%" is a percent sign, not
    a value): the seat's own texts fill theirs by position."""
    return [spec for spec in PERCENT.findall(text) if spec != "%%"]


def test_the_template_has_messages() -> None:
    # An empty template would make every other check here pass vacuously.
    assert len(messages(template())) >= 55


@pytest.mark.parametrize("lang", LANGS)
def test_every_message_is_translated(lang: str) -> None:
    catalog = catalogue(lang)
    assert not catalog.fuzzy, "the header is marked fuzzy (Babel's compile skips it)"
    own = messages(catalog)
    missing = [k for k in messages(template()) if k not in own]
    assert not missing, f"{lang}: not in the catalogue (run catalogues update): {missing}"
    untranslated = [k for k, m in own.items() if not all(forms(m))]
    assert not untranslated, f"{lang}: no translation: {untranslated}"
    fuzzy = [k for k, m in own.items() if m.fuzzy]
    assert not fuzzy, f"{lang}: fuzzy: {fuzzy}"
    extra = [k for k in own if k not in messages(template())]
    assert not extra, f"{lang}: messages the template no longer has: {extra}"


@pytest.mark.parametrize("lang", LANGS)
def test_placeholders_are_kept(lang: str) -> None:
    wrong = []
    for k, message in messages(catalogue(lang)).items():
        ids = [message.id] if isinstance(message.id, str) else list(message.id)
        allowed = [fields(msgid) for msgid in ids]
        for form in forms(message):
            try:
                found = fields(form)
            except ValueError as e:
                wrong.append((k, form, str(e)))
                continue
            # A plural form may follow either English form: Persian's first form also
            # counts 0 and needs {n} where English "one army" has none.
            if found not in allowed:
                wrong.append((k, form, found))
            if "python-format" in message.flags and percent_specs(form) not in [
                    percent_specs(msgid) for msgid in ids]:
                wrong.append((k, form, percent_specs(form)))
    assert not wrong, f"{lang}: placeholders differ from the msgid: {wrong}"


@pytest.mark.parametrize("lang", LANGS)
def test_plural_rule(lang: str) -> None:
    catalog = catalogue(lang)
    # The header Babel writes for the language (its plural table, from CLDR).
    assert catalog.plural_forms == str(get_plural(lang))
    rule = gettext.c2py(catalog.plural_expr)
    assert [rule(n) for n in NUMBERS] == [PLURAL_FORM[lang](n) for n in NUMBERS]
    assert catalog.num_plurals == 1 + max(PLURAL_FORM[lang](n) for n in NUMBERS)
    plurals = [k for k, m in messages(catalog).items() if not isinstance(m.id, str)]
    for k in plurals:
        assert len(forms(messages(catalog)[k])) == catalog.num_plurals, (lang, k)


@pytest.mark.parametrize("lang", LANGS)
def test_the_hub_reads_every_translation(lang: str) -> None:
    # Through the compiled file and risktable.i18n, as a game does: the .mo's header
    # (charset, plural rule) and every entry, with no message reported missed.
    i18n.translation.cache_clear()
    i18n.missed.clear()
    with i18n.using(lang):
        for (context, _msgid), message in messages(catalogue(lang)).items():
            if isinstance(message.id, str):
                got = i18n.pgettext(context, message.id) if context else i18n._(message.id)
                assert got == message.string
                continue
            for n in NUMBERS:
                t = i18n.translation(lang)
                got = (t.npgettext(context, message.id[0], message.id[1], n) if context
                       else i18n.ngettext(message.id[0], message.id[1], n))
                assert got == forms(message)[PLURAL_FORM[lang](n)], (message.id, n)
    assert not i18n.missed


@pytest.mark.parametrize("lang", LANGS)
def test_compiled_catalogue_is_in_step(lang: str, tmp_path: Path) -> None:
    out = tmp_path / "risktable.mo"
    catalogues._babel(["compile", "-D", i18n.DOMAIN, "-i", str(catalogues.po_path(lang)),
                       "-o", str(out), "-l", lang])
    assert out.read_bytes() == catalogues.mo_path(lang).read_bytes(), \
        f"{lang}: the .mo is older than the .po: run python -m risktable.i18n.catalogues compile"


def test_template_is_in_step_with_the_code(tmp_path: Path) -> None:
    out = tmp_path / "risktable.pot"
    catalogues.extract(out)
    with out.open("rb") as f:
        extracted = read_po(f)
    code = {(k, tuple(m.id) if not isinstance(m.id, str) else m.id)
            for k, m in messages(extracted).items()}
    committed = {(k, tuple(m.id) if not isinstance(m.id, str) else m.id)
                 for k, m in messages(template()).items()}
    new = sorted(k for k, _ in code - committed)
    gone = sorted(k for k, _ in committed - code)
    assert not new, f"messages in the code, not in the template: {new} " \
        "(run python -m risktable.i18n.catalogues all)"
    assert not gone, f"messages in the template the code no longer has: {gone}"


@pytest.mark.parametrize("lang", LANGS)
def test_card_symbols_have_distinct_initials(lang: str) -> None:
    # A hub-dealt card is shown as its territory and its symbol's initial ("Alaska P").
    own = messages(catalogue(lang))
    initials = [own[("symbol", s)].string[:1].upper() for s in ("infantry", "cavalry",
                                                                 "artillery")]
    assert len(set(initials)) == 3, (lang, initials)


ROW = re.compile(r"^\| *(territory|continent|colour|symbol|[a-z]*) *\| *(.+?) *\| *(.+?) *\|"
                 r" *(unverified|rule book \d{3}) *\|$")


def review_list() -> dict[str, dict[tuple[str, str], tuple[str, str]]]:
    """docs/translations.md's rows by language: (context, English) -> (translation,
    source)."""
    text = (ROOT / "docs" / "translations.md").read_text(encoding="utf-8")
    rows: dict[str, dict[tuple[str, str], tuple[str, str]]] = {}
    lang = None
    for line in text.splitlines():
        heading = re.match(r"^## .*\((\w+)\)$", line)
        if heading:
            lang = heading.group(1)
            rows[lang] = {}
            continue
        row = ROW.match(line)
        if row and lang:
            context, english, translation, source = row.groups()
            rows[lang][(context, english)] = (translation, source)
    return rows


@pytest.mark.parametrize("lang", LANGS)
def test_review_list_matches_the_catalogue(lang: str) -> None:
    listed = review_list().get(lang, {})
    own = messages(catalogue(lang))
    for k, (translation, source) in listed.items():
        assert k in own, f"{lang}: docs/translations.md lists {k}, not in the catalogue"
        message = own[k]
        assert translation == " / ".join(forms(message)), (lang, k)
        unverified = catalogues.UNVERIFIED in message.auto_comments
        assert (source == "unverified") == unverified, (lang, k, source)
    for k, message in own.items():
        if catalogues.UNVERIFIED in message.auto_comments or k[0] in NAME_CONTEXTS:
            assert k in listed, f"{lang}: {k} is not listed in docs/translations.md"
