"""Keep the message catalogues in step with the code (a maintainer's tool, run from a
checkout with Babel, a dependency of the hub).

    python -m risktable.i18n.catalogues extract   # the code's messages -> locale/risktable.pot
                                                  # (and the pages' -> web/messages.json)
    python -m risktable.i18n.catalogues update    # merge the .pot into each language's .po
    python -m risktable.i18n.catalogues compile   # each .po -> its .mo (shipped in the wheel)
    python -m risktable.i18n.catalogues all       # the three in turn, then the seat's
                                                  # font for the catalogues' characters
                                                  # and its own texts (texts.bin)

The .po files are what translators edit; the .mo files are generated and committed so an
installed hub needs only the standard library's gettext. tests/i18n checks both are in
step with the code.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from risktable.i18n import DEFAULT, DOMAIN, LANGUAGES, LOCALE_DIR

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog

PACKAGE = Path(__file__).resolve().parent.parent
TEMPLATE = LOCALE_DIR / f"{DOMAIN}.pot"
WEB_MESSAGES = PACKAGE / "web" / "messages.json"
# The call names whose string arguments are messages (Babel's keyword specs).
KEYWORDS = ("_", "N_", "ngettext:1,2", "pgettext:1c,2", "npgettext:1c,2,3", "territory",
            "continent", "colour")
TRANSLATED = tuple(lang for lang in LANGUAGES if lang != DEFAULT)
# The translator comment of a translation no native speaker has checked yet (listed in
# docs/translations.md for review).
UNVERIFIED = "unverified"
# Which files hold messages, and in which language (Python, or the pages' JavaScript).
MAPPING = Path(__file__).parent / "babel.cfg"


def po_path(lang: str) -> Path:
    """Where the catalogue translators edit for ``lang`` lives."""
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def mo_path(lang: str) -> Path:
    """Where the compiled catalogue of ``lang`` lives."""
    return po_path(lang).with_suffix(".mo")


def _babel(args: list[str]) -> None:
    from babel.messages.frontend import CommandLineInterface

    CommandLineInterface().run(["pybabel", "-q", *args])  # type: ignore[no-untyped-call]


def extract(out: Path = TEMPLATE) -> None:
    """Write the code's messages to ``out`` (a .pot), sorted, without line numbers
    (so a change elsewhere in a file does not rewrite the template)."""
    args = ["extract", "--no-wrap", "--sort-output", "--no-location", "--omit-header",
            "--project", "risktable", "-F", str(MAPPING), "-o", str(out)]
    for keyword in KEYWORDS:
        args += ["-k", keyword]
    _babel([*args, str(PACKAGE)])
    _add_names(out)
    if out == TEMPLATE:
        rows = ",\n".join(json.dumps(row, ensure_ascii=False) for row in web_messages())
        WEB_MESSAGES.write_text(f"[\n{rows}\n]\n", "utf-8")


def web_messages() -> list[list[str]]:
    """[context, message, plural] of every message the pages' JavaScript asks for (``""``:
    none), and the board's names: what the page server translates into ``/i18n/<lang>.json``
    (risktable.web.server), read from the committed ``web/messages.json`` at run time."""
    from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
    from babel.messages.frontend import parse_keywords, parse_mapping_cfg

    with MAPPING.open() as f:
        method_map, options_map = parse_mapping_cfg(f)  # type: ignore[no-untyped-call]
    js = [(pattern, method) for pattern, method in method_map
          if method in ("ignore", "javascript")]
    keywords = {**DEFAULT_KEYWORDS, **parse_keywords(list(KEYWORDS))}
    found: set[tuple[str, str, str]] = set()
    for _file, _line, message, _comments, context in extract_from_dir(
            PACKAGE, js, options_map, keywords=keywords):
        singular, plural = (message, "") if isinstance(message, str) else message[:2]
        found.add((context or "", singular, plural))
    found.update((context, name, "") for context, name in board_names())
    return [list(entry) for entry in sorted(found)]


def board_names() -> list[tuple[str, str]]:
    """(context, English name) of every name the board data holds and a player reads:
    its territories and continents, and the seat colours. They live in data files, not
    in calls Babel can find, so the template gets them from here."""
    from risktable.hardware.palette import NEUTRAL, SEAT_COLOURS
    from risktable.rules.board import SYMBOLS

    board = json.loads((PACKAGE / "rules" / "data" / "classic_map.json").read_text())
    names = [("territory", t["name"]) for t in board["territories"]]
    names += [("continent", c["name"]) for c in board["continents"]]
    names += [("colour", c.name) for c in (*SEAT_COLOURS, NEUTRAL)]
    names += [("symbol", symbol) for symbol in SYMBOLS]
    return names


def _add_names(pot: Path) -> None:
    from babel.messages.pofile import read_po, write_po

    with pot.open("rb") as f:
        catalog = read_po(f)
    for context, name in board_names():
        catalog.add(name, context=context)
    with pot.open("wb") as f:
        write_po(f, catalog, width=0, sort_output=True, omit_header=True, no_location=True)


def _new_catalog(lang: str) -> Catalog:
    from babel.messages.catalog import Catalog

    catalog = Catalog(locale=lang, domain=DOMAIN, project="risktable",
                      header_comment=f"# The messages of risktable in {lang}.",
                      last_translator="risktable translators",
                      language_team=f"risktable {lang}", fuzzy=False)
    return catalog


def update() -> None:
    """Merge the template into every language's catalogue: new messages empty, messages
    gone from the template dropped, the header (with the language's Plural-Forms from
    Babel's CLDR data) and the ``#. unverified`` marks kept."""
    from babel.messages.pofile import read_po, write_po

    with TEMPLATE.open("rb") as f:
        template = read_po(f)
    for lang in TRANSLATED:
        po = po_path(lang)
        if po.exists():
            with po.open("rb") as f:
                catalog = read_po(f, locale=lang, domain=DOMAIN)
        else:
            po.parent.mkdir(parents=True, exist_ok=True)
            catalog = _new_catalog(lang)
        marks = {key: [c for c in m.auto_comments if c == UNVERIFIED]
                 for key, m in ((catalog._key_for(m.id, m.context), m) for m in catalog)}
        # No fuzzy matching: a guess from a similar message would be shown to players
        # until a translator clears it; an empty translation is found by the tests.
        catalog.update(template, no_fuzzy_matching=True, update_creation_date=False)
        for message in catalog:
            for mark in marks.get(catalog._key_for(message.id, message.context), []):
                if mark not in message.auto_comments:
                    message.auto_comments.append(mark)
        with po.open("wb") as f:
            write_po(f, catalog, width=0, sort_output=True, no_location=True,
                     ignore_obsolete=True)


def compile_all() -> None:
    """Compile every language's catalogue to the .mo gettext loads."""
    for lang in TRANSLATED:
        _babel(["compile", "-D", DOMAIN, "-i", str(po_path(lang)), "-o",
                str(mo_path(lang)), "-l", lang])


def font() -> None:
    """Rebuild the seat's font (firmware/fonts/font.bin) for the compiled catalogues."""
    from risktable.i18n.font import write_font

    write_font()


def seat_texts() -> None:
    """Rewrite the seat's own texts (firmware/texts.bin) from the compiled catalogues,
    measured with the rebuilt font."""
    from risktable.i18n import seat_texts as texts
    from risktable.i18n import translation

    # The catalogues were just compiled: read them again, not this process's copies.
    translation.cache_clear()
    texts.build_texts()


def main(argv: list[str]) -> int:
    steps: dict[str, list[Callable[[], object]]] = {
        "extract": [extract], "update": [update], "compile": [compile_all],
        "all": [extract, update, compile_all, font, seat_texts]}
    if len(argv) != 1 or argv[0] not in steps:
        print(__doc__, file=sys.stderr)
        return 2
    for step in steps[argv[0]]:
        step()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
