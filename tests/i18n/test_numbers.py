"""Numbers as each language's rule book writes them: the battle odds a seat shows, the
decimal sign and where the percent sign goes (CLDR through Babel), Persian digits."""

from __future__ import annotations

import pytest

from risktable import i18n
from risktable.i18n import numbers, seat_view
from risktable.rules import state as st
from risktable.rules.odds import battle
from tests.rules.scenario import position
from tests.table.inputs import confirm, go_to, ok, session_at

# Seat 1 holds Ukraine with 5 armies, seat 2 the Middle East with 2: 3 dice against 2.
LAYOUT = {"ukraine": (0, 5), "middle_east": (1, 2), "afghanistan": (1, 4),
          "eastern_australia": (2, 1)}

# The Turkish rule book: "yüzde 41,67" is written %41,67; Portuguese puts the sign after
# with no space, Romanian after a space (CLDR's patterns, which Babel carries).
WRITTEN = {"en": "91.6%", "tr": "%91,6", "pt": "91,6%", "ro": "91,6\u00a0%", "fa": "۹۱٫۶٪"}


@pytest.mark.parametrize(("lang", "text"), WRITTEN.items())
def test_a_percentage_is_written_as_the_language_writes_it(lang: str, text: str) -> None:
    assert numbers.percent(0.916, lang=lang) == text
    with i18n.using(lang):
        assert numbers.percent(0.916) == text


def test_persian_writes_persian_digits_and_its_own_decimal_sign() -> None:
    assert numbers.decimal(1234.5, 2, lang="fa") == "۱٬۲۳۴٫۵۰"
    assert numbers.native_digits("Bot 2: 14 armies", "fa") == "Bot ۲: ۱۴ armies"
    assert numbers.native_digits("Bot 2: 14 armies", "tr") == "Bot 2: 14 armies"


def odds_line(lang: str) -> str:
    table = session_at(position(LAYOUT, phase=st.ATTACK))
    table.set_language(1, lang)
    ok(table, 1, confirm(1))
    go_to(table, 1, "middle_east")
    lines = ok(table, 1, confirm(1)).views[1]["lines"]
    return str(lines[-1])


def test_a_turkish_seat_shows_the_battle_odds_as_turkish_writes_them() -> None:
    win = float(battle(5, 2).attacker_wins)
    assert odds_line("tr").endswith(" " + numbers.percent(win, lang="tr"))
    assert "%" + f"{100 * win:.1f}".replace(".", ",") in odds_line("tr")
    assert odds_line("pt").endswith(f"{100 * win:.1f}".replace(".", ",") + "%")


def test_a_persian_seat_shows_persian_digits_throughout() -> None:
    table = session_at(position(LAYOUT, phase=st.ATTACK))
    table.set_language(1, "fa")
    ok(table, 1, confirm(1))
    go_to(table, 1, "middle_east")
    view = ok(table, 1, confirm(1)).views[1]
    for shaping in (True, False):
        sent = seat_view.written(view, "fa", shaping=shaping,
                                 width_of=lambda text: 6 * len(text))
        text = "".join(sent["lines"])
        assert not any("0" <= ch <= "9" for ch in text), sent["lines"]
        assert "٪" in text and "٫" in text and any("۰" <= ch <= "۹" for ch in text)
    refusal = seat_view.detail_for("3 armies", "fa", shaping=True)
    assert refusal == "۳ armies"
