"""The keyboard seat of the demo (risktable.demo.keyboard): keys to board input lines,
card taps, and the panel that shows what the person's seat shows."""

from __future__ import annotations

import random

import pytest

from risktable import i18n
from risktable.demo.keyboard import (
    KEY_LINES,
    Keyboard,
    NothingToTap,
    card_key_line,
    card_label,
    seat_panel,
    session_card_keys,
    split_keys,
)
from risktable.demo.pilot import demo_card_uids
from risktable.rules import Config, new_game
from risktable.rules.state import DRAW
from risktable.table import menus
from risktable.table.session import TableSession


def test_arrow_keys_are_one_key_each() -> None:
    assert list(split_keys("\x1b[C\x1b[Dr\r q")) == ["\x1b[C", "\x1b[D", "r", "\r", " ", "q"]
    assert list(split_keys("\x1b")) == ["\x1b"]


def test_keys_are_the_seat_controls() -> None:
    assert KEY_LINES["\x1b[C"] == {"encoder": 1} and KEY_LINES["\x1b[D"] == {"encoder": -1}
    assert KEY_LINES["\r"] == KEY_LINES[" "] == {"button": "confirm"}
    assert KEY_LINES["\x7f"] == KEY_LINES["b"] == {"button": "back"}
    assert KEY_LINES["r"] == {"button": "roll"}


def _session_with_hands(**changes: object) -> tuple[TableSession, dict[str, int]]:
    # A hand-made position: seat 1 holds cards 4 and 17, the pile is cards 1 to 3.
    config = Config(3)
    cards = demo_card_uids(config.board, "1993")
    start = new_game(config)._replace(hands=((4, 17), (), ()), draw_pile=(1, 2, 3), **changes)
    return TableSession(config, [1, 2, 3], cards, start=start), cards


def test_digits_tap_the_cards_of_the_hand() -> None:
    session, cards = _session_with_hands()
    uids = {card: uid for uid, card in cards.items()}
    rng = random.Random(1)
    assert card_key_line(session, 1, "1", uids, rng) == {"card": uids[4]}
    assert card_key_line(session, 1, "2", uids, rng) == {"card": uids[17]}
    assert card_key_line(session, 1, "0", uids, rng) is None
    assert card_key_line(session, 1, "x", uids, rng) is None
    # A digit past the hand says so rather than doing nothing without a word.
    with pytest.raises(NothingToTap, match=r"^3: you hold no card 3$"):
        card_key_line(session, 1, "3", uids, rng)
    with pytest.raises(NothingToTap, match=r"^1: you hold no card 1$"):
        card_key_line(session, 2, "1", uids, rng)  # seat 2 holds nothing
    # c draws only when the seat is asked for a card, and says why not otherwise.
    assert session.menu.stage != menus.CARD
    with pytest.raises(NothingToTap, match=r"^c: no card to tap now$"):
        card_key_line(session, 1, "c", uids, rng)


def test_a_digit_while_a_card_is_asked_for_points_to_c() -> None:
    # A dealt or drawn card is not in the hand until it is tapped: a person told to tap
    # the card they were dealt may try 1 first.
    session, cards = _session_with_hands(phase=DRAW, player=1)
    uids = {card: uid for uid, card in cards.items()}
    assert session.menu.stage == menus.CARD
    with pytest.raises(NothingToTap, match=r"^1: you hold no card 1; c taps the card you are "
                                           r"asked for$"):
        card_key_line(session, 2, "1", uids, random.Random(1))


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_a_digit_past_the_hand_says_why_in_the_seats_language(lang: str) -> None:
    session, cards = _session_with_hands()
    keys = session_card_keys(lambda look: look(session), 1, cards, lang=lang)
    with pytest.raises(NothingToTap) as why:
        keys("3")
    with i18n.using(lang):
        said = i18n._("{key}: you hold no card {key}").format(key="3")
    assert str(why.value) == said and said.startswith("3")
    assert lang == i18n.DEFAULT or said != "3: you hold no card 3"  # translated


def test_c_taps_a_card_of_the_pile_when_one_is_asked_for() -> None:
    session, cards = _session_with_hands(phase=DRAW, player=0)
    uids = {card: uid for uid, card in cards.items()}
    assert session.menu.stage == menus.CARD
    drawn = {card_key_line(session, 1, "c", uids, random.Random(n))["card"]  # type: ignore[index]
             for n in range(30)}
    assert drawn == {uids[1], uids[2], uids[3]}


def test_the_panel_shows_the_seat_and_the_hand() -> None:
    session, _ = _session_with_hands()
    panel = seat_panel(session, 1, {"oled": ["Claim a territory:", "Alaska"], "armed": [947, 2]})
    lines = panel.splitlines()
    assert lines[0].startswith("Your seat: 1 (orange)")
    assert "  | Claim a territory:" in lines and "  | Alaska" in lines
    assert "  2 dice to roll (press r)" in lines and "947" not in panel
    state = session.state
    assert f"  cards: 1 {card_label(state, 4)}, 2 {card_label(state, 17)}" in lines
    assert "q quit" in lines[-1]
    # Typed dice (the tray's table): entered with the knob. With the demo's tray, a roll
    # that is no battle (none is armed here) is typed all the same: r rolls nothing.
    typed = {"armed": [947, 2]}
    for tray in (False, True):
        lines = seat_panel(session, 1, typed, typed=True, tray=tray).splitlines()
        assert "  2 dice to enter (<- -> set a die, Enter sends)" in lines


def test_a_key_goes_to_the_seat_as_its_line() -> None:
    session, cards = _session_with_hands()
    sent: list[dict[str, object]] = []
    keys = session_card_keys(lambda look: look(session), 1, cards)
    keyboard = Keyboard(None, 1, sent.append, keys, lambda: None)  # type: ignore[arg-type]
    assert keyboard.press("\x1b[C") and keyboard.press("1") and not keyboard.press("x")
    assert sent == [{"encoder": 1}, {"card": next(u for u, c in cards.items() if c == 4)}]
    assert keyboard.keys == 2


def test_r_at_a_tray_rolls_into_it_when_it_can_and_is_the_roll_button_otherwise() -> None:
    session, cards = _session_with_hands()
    sent: list[dict[str, object]] = []
    rolled: list[bool] = []
    can_roll = [True]

    def roll() -> bool:
        rolled.append(can_roll[0])
        return can_roll[0]

    keys = session_card_keys(lambda look: look(session), 1, cards)
    keyboard = Keyboard(None, 1, sent.append, keys, lambda: None,  # type: ignore[arg-type]
                        roll=roll)
    assert keyboard.press("r") and sent == [] and keyboard.keys == 1
    can_roll[0] = False  # no battle roll armed at the seat: its Roll button
    assert keyboard.press("r") and sent == [{"button": "roll"}] and keyboard.keys == 2
    assert rolled == [True, False]
    # Without a tray, r never asks it.
    plain = Keyboard(None, 1, sent.append, keys, lambda: None)  # type: ignore[arg-type]
    assert plain.press("r") and sent[-1] == {"button": "roll"}


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_c_outside_the_card_step_says_why_on_the_panel_in_the_seats_language(
        lang: str) -> None:
    session, cards = _session_with_hands()
    sent: list[dict[str, object]] = []
    redraws: list[str] = []
    keys = session_card_keys(lambda look: look(session), 1, cards, lang=lang)
    keyboard = Keyboard(None, 1, sent.append, keys, lambda: None,  # type: ignore[arg-type]
                        noted=lambda: redraws.append(keyboard.note))
    assert not keyboard.press("c") and sent == []
    with i18n.using(lang):
        why = i18n._("c: no card to tap now")
        panel = seat_panel(session, 1, {"oled": ["Roll 1 die"]}, keyboard.note)
    assert keyboard.note == why and redraws == [why]
    assert lang == i18n.DEFAULT or why != "c: no card to tap now"  # translated
    assert f"  {why}" in panel.splitlines()
    # The note stays until a key goes in, then the panel drops it.
    assert keyboard.press("\x1b[C") and keyboard.note == "" and redraws == [why, ""]
    assert why not in seat_panel(session, 1, {}, keyboard.note)
