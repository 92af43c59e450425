"""Words a reader of each language changed, each checked against that language's rule
book (/work/shared/seeds: the Persian, Portuguese, Romanian and Turkish books): the
catalogues say them so."""

from __future__ import annotations

import pytest

from risktable import i18n

ZWNJ = "\u200c"


def _say(lang: str, context: str, message: str) -> str:
    with i18n.using(lang):
        return i18n.pgettext(context, message) if context else i18n._(message)


@pytest.mark.parametrize(("lang", "context", "message", "said"), [
    # The Persian book's example names the territory between Scandinavia and Afghanistan
    # روسیه; مأموریت with its hamza; شمال‌غربی joined by a zero-width non-joiner; the
    # venue's name after the noun; the United States, not the continent's name.
    ("fa", "territory", "Ukraine", "روسیه"),
    ("fa", "", "Mission: destroy", "مأموریت: نابود کردن"),
    ("fa", "territory", "Northwest Territory", f"قلمرو شمال{ZWNJ}غربی"),
    ("fa", "", "risktable venue", "سالن risktable"),
    ("fa", "territory", "Eastern United States", "شرق ایالات متحده"),
    ("fa", "territory", "Western United States", "غرب ایالات متحده"),
    # A phase is a noun (the book's verb is fortalecer); the capital's card as elsewhere.
    ("pt", "phase", "fortify", "fortalecimento"),
    ("pt", "", "Lay capital card down:", "Baixe a carta da capital:"),
    ("ro", "territory", "Northwest Territory", "Teritoriul de Nord-Vest"),
    ("tr", "", "Place {armies} of", "Tarafsıza {armies} koy:"),  # noqa: RUF001
])
def test_the_word_a_reader_of_the_language_would_write(
        lang: str, context: str, message: str, said: str) -> None:
    assert _say(lang, context, message) == said


def test_no_persian_message_spells_mission_without_its_hamza() -> None:
    from risktable.i18n.font import catalogue_messages

    assert [t for t in catalogue_messages("fa") if "ماموریت" in t] == []


def test_the_portuguese_conquest_lines_say_where_from_plainly() -> None:
    from risktable.i18n.font import catalogue_messages

    assert [t for t in catalogue_messages("pt") if "a partir de" in t] == []


def test_the_turkish_share_chart_title_is_a_phrase_with_the_player_in_it() -> None:
    title = _say("tr", "", "Share of all armies held by {seat}").format(seat="Ana")
    assert ":" not in title and "Ana" in title and title.endswith("payı")  # noqa: RUF001
