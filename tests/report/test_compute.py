"""The report's numbers against a short game whose every figure is checked by hand.

Three players claim the classic board in index order (territory k goes to
player k mod 3), then each stacks its remaining 21 setup armies on one
territory. In turn 1 player 0 (Seat 1) places its 4 armies on Alaska, takes the
Northwest Territory (1 army) with one roll of 3 dice against 1 (the exact odds
of that roll conquering: 95/144) and fails against Kamchatka (1 army) with one
die against one (5/12), then ends the turn and draws its card.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from risktable import i18n
from risktable.dice_stats import DieStats
from risktable.report import compute
from risktable.report.compute import conquest_probability
from risktable.report.page import render
from risktable.rules import (
    Attack,
    Claim,
    Config,
    DrawCard,
    EndAttack,
    EndTurn,
    Occupy,
    OpeningRoll,
    Place,
    Roll,
    apply,
    new_game,
)
from risktable.rules.actions import Action
from risktable.rules.events import TerritoryConquered
from risktable.rules.presets import preset_config
from risktable.rules.selfplay import selfplay
from tests.rules.scenario import BOARD, T

STACKS = {0: T("alaska"), 1: T("ontario"), 2: T("greenland")}


def hand_game(*, end_turn: bool = True) -> list[Action]:
    actions: list[Action] = [OpeningRoll((6, 2, 1))]
    actions += [Claim(t) for t in range(BOARD.size)]
    actions += [Place(STACKS[k % 3]) for k in range(3 * 21)]
    actions += [
        Place(T("alaska"), 4),
        Attack(T("alaska"), T("northwest_territory"), 3), Roll((6, 5, 4), (3,)), Occupy(3),
        Attack(T("alaska"), T("kamchatka"), 1), Roll((2,), (5,)),
        EndAttack(),
    ]
    if end_turn:
        # The conquest earns a card, drawn before the next turn starts.
        actions += [EndTurn(), DrawCard(T("japan"))]
    # The script is a legal game: every action applies.
    state = new_game(Config(3))
    for a in actions:
        state, _ = apply(state, a)
    return actions


def test_the_exact_odds_of_a_single_roll_conquering() -> None:
    assert conquest_probability(3, 1, 1) == Fraction(855, 1296)
    assert conquest_probability(1, 1, 1) == Fraction(15, 36)
    assert conquest_probability(3, 2, 2) == Fraction(2890, 7776)
    assert conquest_probability(2, 2, 2) == Fraction(295, 1296)
    # Two defence dice on three armies: no single roll can take the territory.
    assert conquest_probability(3, 2, 3) == 0
    # The three-defence-dice house rule: all three must fall.
    assert 0 < conquest_probability(3, 3, 3) < conquest_probability(3, 2, 2)


def test_snapshots_follow_the_setup_and_each_turn() -> None:
    report = compute(Config(3), hand_game(), [])
    setup, turn1, now = report.snapshots
    assert (setup.label, setup.turn, setup.player) == ("setup", 0, -1)
    assert setup.territories == (14, 14, 14) and setup.armies == (35, 35, 35)
    assert (turn1.label, turn1.turn, turn1.player) == ("turn 1", 1, 0)
    # Seat 1 placed 4, took one territory and lost one army on Kamchatka.
    assert turn1.territories == (15, 13, 14) and turn1.armies == (35 + 4 - 1, 34, 35)
    assert now.label == "now" and now.territories == turn1.territories
    assert report.actions == len(hand_game()) and not report.finished
    assert report.winner is None
    assert all(held == () for s in report.snapshots for held in s.continents)


def test_battle_luck_sums_the_exact_odds_of_each_roll() -> None:
    report = compute(Config(3), hand_game(), [])
    seat1, seat2, seat3 = report.luck
    assert (seat1.rolls, seat1.conquests) == (2, 1)
    assert seat1.expected_conquests == Fraction(95, 144) + Fraction(5, 12) == Fraction(155, 144)
    assert seat1.luck == pytest.approx(1 - 155 / 144)
    # The defenders' side: Seat 2 lost the Northwest Territory, Seat 3 held Kamchatka.
    assert (seat2.defended, seat2.losses, seat2.expected_losses) == (1, 1, Fraction(95, 144))
    assert (seat3.defended, seat3.losses, seat3.expected_losses) == (1, 0, Fraction(5, 12))
    assert (seat2.rolls, seat2.conquests, seat2.expected_conquests) == (0, 0, 0)


def test_the_largest_change_in_the_leaders_share_of_armies() -> None:
    report = compute(Config(3), hand_game(), [])
    # No winner yet: the seat with the most armies now (Seat 1, 38) is followed.
    assert report.focus == 0
    assert report.shares[:2] == (35 / 105, 38 / 107)
    swing = report.swing
    assert swing is not None and (swing.label, swing.player) == ("turn 1", 0)
    assert swing.change == pytest.approx(38 / 107 - 35 / 105)


def test_a_report_mid_turn_shows_the_position_up_to_the_last_action() -> None:
    report = compute(Config(3), hand_game(end_turn=False), [])
    assert [s.label for s in report.snapshots] == ["setup", "now"]
    assert report.snapshots[-1].territories == (15, 13, 14)
    assert report.snapshots[-1].turn == 1


def test_a_continent_held_whole_is_reported_for_its_holder() -> None:
    # Claims go to players 0, 1, 2 in turn: every third claim gives Seat 1 the four
    # territories of Australia. The game is still in its setup: one snapshot, now.
    order = [T(t) for t in ("indonesia", "alaska", "greenland", "new_guinea", "alberta",
                            "ontario", "western_australia", "quebec", "iceland",
                            "eastern_australia")]
    rest = [t for t in range(BOARD.size) if t not in order]
    actions: list[Action] = [OpeningRoll((6, 2, 1))]
    actions += [Claim(t) for t in order + rest]
    report = compute(Config(3), actions, [])
    australia = next(k for k, c in enumerate(BOARD.continents) if c.name == "Australia")
    assert report.snapshots[-1].continents[0] == (australia,)


def test_json_and_page_carry_the_same_numbers() -> None:
    die = DieStats("seat1-die1", (1, 2, 3, 4, 5, 6), "smart")
    report = compute(Config(3), hand_game(), [die])
    data = json.loads(json.dumps(report.as_json()))
    assert data["luck"][0]["expected_conquests_exact"] == "155/144"
    assert data["snapshots"][1]["territories"] == [15, 13, 14]
    assert data["dice"][0]["counts"] == [1, 2, 3, 4, 5, 6]
    assert data["dice"][0]["chi_square"] == pytest.approx(die.chi_square())
    page = render(report, "Game 1")
    assert 'data-territories="15" data-armies="38"' in page
    assert 'data-counts="1,2,3,4,5,6"' in page
    # Self-contained: nothing is loaded from anywhere.
    for needle in ("<script", "src=", "href=", "@import", "url(http", "//"):
        assert needle not in page.replace("http://www.w3.org/2000/svg", "")


@pytest.mark.parametrize(("preset", "players"), [
    ("classic_1993", 3), ("two_player_2016", 2), ("master_1993", 3), ("capital_1993_short", 4),
])
def test_whole_selfplay_games_of_each_kind(preset: str, players: int) -> None:
    """Neutral seats, re-rolls and the commander, capitals: the report follows the rules."""
    config = preset_config(preset, players)
    game = next(selfplay(config, 1, 5))
    report = compute(config, game.log, [])
    state = new_game(config)
    conquered = [0] * config.seats
    for action in game.log:
        state, events = apply(state, action)
        for e in events:
            if type(e) is TerritoryConquered:
                conquered[e.player] += 1
    assert [lk.conquests for lk in report.luck] == conquered
    assert sum(lk.losses for lk in report.luck) == sum(conquered)
    assert all(0 <= lk.expected_conquests <= lk.rolls for lk in report.luck)
    end = report.snapshots[-1]
    assert end.label == "end" and report.winner == state.winner
    assert end.territories == tuple(state.owners.count(s) for s in range(config.seats))
    assert sum(end.territories) == config.board.size
    turns = [s.turn for s in report.snapshots]
    assert turns == sorted(turns) and turns[0] == 0
    page = render(report, preset)
    assert page.count('<g class="series"') == 2 * config.seats + 1


def test_a_game_just_begun_has_a_report_too() -> None:
    for actions in ([], [OpeningRoll((6, 2, 1)), Claim(T("alaska"))]):
        report = compute(Config(3), actions, [])
        assert [s.label for s in report.snapshots] == ["now"]
        assert report.swing is None and report.actions == len(actions)
        page = render(report, "Game 1")
        assert "Not enough turns yet" in page and "No physical dice" in page


def test_the_page_in_persian_is_right_to_left_with_the_catalogue_s_names() -> None:
    die = DieStats("seat1-die1", (1, 2, 3, 4, 5, 6), "smart")
    report = compute(Config(3), hand_game(), [die])
    page = render(report, "Game 1", "fa")
    assert '<html lang="fa" dir="rtl">' in page
    with i18n.using("fa"):
        names = [i18n.continent(c.name) for c in BOARD.continents]
    assert all(name in page for name in names) and any(not n.isascii() for n in names)
    # The numbers are the same in every language; the English page keeps its own.
    assert 'data-territories="15" data-armies="38"' in page
    assert '<html lang="en" dir="ltr">' in render(report, "Game 1")
    assert i18n.current() == "en"


@pytest.mark.parametrize("lang", [lang for lang in i18n.LANGUAGES if lang != i18n.DEFAULT])
def test_every_word_of_the_page_is_translated(lang: str) -> None:
    # Fails until the translators' catalogues hold the report's messages.
    die = DieStats("seat1-die1", (1, 2, 3, 4, 5, 6), "smart")
    report = compute(Config(3), hand_game(), [die])
    i18n.missed.clear()
    render(report, "Game 1", lang)
    assert sorted(m for m in i18n.missed if m[0] == lang) == []


def test_the_page_names_the_players_the_configuration_names() -> None:
    report = compute(Config(3), hand_game(), [], {1: "Ana", 3: "Carl"})
    assert [report.seat_name(s) for s in range(3)] == ["Ana", "Seat 2", "Carl"]
    page = render(report, "Game 1")
    assert "Ana" in page and "Carl" in page and "Seat 1" not in page
    assert report.as_json()["seats"] == ["Ana", "Seat 2", "Carl"]
    with i18n.using("pt"):
        assert report.seat_name(1) == i18n._("Seat {n}").format(n=2)


@pytest.mark.parametrize(("lang", "sign"), [("en", "{n}%"), ("tr", "%{n}"), ("pt", "{n}%"),
                                            ("ro", "{n}\u00a0%")])
def test_the_page_writes_its_numbers_as_its_language_does(lang: str, sign: str) -> None:
    die = DieStats("seat1-die1", (1, 2, 3, 4, 5, 6), "smart")
    report = compute(Config(3), hand_game(), [die])
    assert report.swing is not None
    page = render(report, "Game 1", lang)
    before = f"{100 * report.swing.before:.1f}"
    point = "." if lang == "en" else ","
    assert sign.format(n=before.replace(".", point)) in page
    chi = f"{die.chi_square():.2f}"
    assert f"<td>{chi.replace('.', point)}</td>" in page


def test_the_persian_page_writes_persian_digits_in_its_numbers() -> None:
    die = DieStats("seat1-die1", (1, 2, 3, 4, 5, 6), "smart")
    report = compute(Config(3), hand_game(), [die])
    assert report.swing is not None
    page = render(report, "Game 1", "fa")
    before = f"{100 * report.swing.before:.1f}".translate(
        str.maketrans("0123456789.", "۰۱۲۳۴۵۶۷۸۹٫"))
    assert before + "٪" in page
