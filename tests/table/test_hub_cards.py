"""A table with no physical cards (``cards = "hub"``): the hub draws and deals every card,
each seat sees only its own hand, and trades are chosen with the knob and Confirm."""

from __future__ import annotations

import random
from typing import Any

import pytest

from risktable.rules import Config, DrawCard, EndTurn, Trade, TradeStars, replay
from risktable.rules import state as st
from risktable.rules.bots import HeuristicBot
from risktable.rules.presets import preset_config
from risktable.table import menus
from risktable.table.autopilot import Autopilot
from risktable.table.prompts import TRADE_HINT, card_label, hand_line
from risktable.table.session import Outcome, TableSession
from tests.rules.scenario import BOARD, T, position
from tests.table.inputs import back, confirm, ok, refused, session_at, tap, turn
from tests.table.test_games import play

LAYOUT = {"ukraine": (0, 5), "middle_east": (1, 2), "afghanistan": (1, 4),
          "eastern_australia": (2, 1)}


def hub_game(config: Config, seed: int) -> tuple[TableSession, Autopilot]:
    table = TableSession(config, list(range(1, config.players + 1)), {}, hub_cards=True,
                         dice=random.Random(seed))
    bots = {seat: HeuristicBot(seed * 10 + seat) for seat in table.seats}
    return table, Autopilot(table, bots, {}, random.Random(seed))


def reinforce(pool: int = 3, **kw: Any) -> TableSession:
    return session_at(position(LAYOUT, phase=st.REINFORCE, pool=pool, **kw), hub_cards=True)


def _hands_shown(table: TableSession, seat: int) -> list[str]:
    return [line for line in table.view(seat)["lines"] if line.startswith("Hand: ")]


def test_a_whole_hub_cards_game_is_played_through_the_trade_menu_and_replays() -> None:
    table, pilot = hub_game(Config(3), 4)
    play(table, pilot)
    final = table.state
    assert final.phase == st.GAME_OVER and final.counts[final.winner] == len(final.owners)
    assert replay(table.config, table.log) == final
    assert [a for a in table.log if isinstance(a, DrawCard)]
    assert len([a for a in table.log if isinstance(a, Trade)]) >= 2


def test_a_whole_2016_hub_cards_game_trades_stars_through_the_menu() -> None:
    table, pilot = hub_game(preset_config("classic_2016", 3), 2)
    play(table, pilot)
    assert table.state.phase == st.GAME_OVER
    assert replay(table.config, table.log) == table.state
    assert len([a for a in table.log if isinstance(a, TradeStars)]) >= 2


@pytest.mark.slow
def test_a_restart_mid_game_keeps_every_hand_and_screen() -> None:
    table, pilot = hub_game(Config(4), 1)
    checked = 0
    while table.state.phase != st.GAME_OVER:
        play(table, pilot, stop_at=53)
        rebuilt = TableSession(table.config, table.seats, {}, hub_cards=True,
                               actions=table.log)
        rebuilt.restore_ui(table.ui_state())
        assert rebuilt.state.hands == table.state.hands and rebuilt.log == table.log
        assert {s: rebuilt.view(s) for s in table.seats} == \
            {s: table.view(s) for s in table.seats}
        checked += any(table.state.hands)
    assert checked > 5


def test_the_hub_draws_at_once_and_only_the_receiver_is_told_the_card() -> None:
    table = session_at(position(LAYOUT, phase=st.FORTIFY, conquered=True), hub_cards=True,
                       dice=random.Random(3))
    ok(table, 1, turn(1, -1))
    out = ok(table, 1, confirm(1))
    assert out.actions[0] == EndTurn() and isinstance(out.actions[1], DrawCard)
    card = out.actions[1].card
    assert table.state.hands[0] == (card,) and table.state.phase == st.REINFORCE
    label = card_label(table.state, card)
    mine = table.view(1)["lines"]
    assert f"You drew {label}"[:24] in [line[:24] for line in mine]
    assert _hands_shown(table, 1) == [f"Hand: {label}"[:24]]
    for seat in (2, 3):
        assert not any(BOARD.territory_names[card] in line for line in table.view(seat)["lines"])
        assert _hands_shown(table, seat) == []
    assert BOARD.territory_ids[card] not in table.highlight or card == T("ukraine")


def test_a_voluntary_trade_is_chosen_from_the_menu_or_the_cards_are_kept() -> None:
    table = reinforce(hands={0: ("alaska", "ukraine", "wild1")})
    menu = table.menu
    cards = (T("alaska"), T("ukraine"), BOARD.size)
    assert menu.stage == menus.TRADE_STAGE and menu.options == (Trade(cards),)
    names = ", ".join(card_label(table.state, c) for c in cards)
    lines = table.view(1)["lines"]
    assert (lines[0], lines[-1]) == ("Trade 1 of 2", TRADE_HINT)
    assert ", ".join(line.rstrip(",") for line in lines[1:-1]) == names  # on 1 or 2 lines
    assert names.endswith(", Wild") and names.split(",")[0] in ("Alaska I", "Alaska C",
                                                                "Alaska A")
    assert table.highlight == frozenset()  # the hand never shows on the board
    ok(table, 1, turn(1, 1))
    assert table.view(1)["lines"] == ["Keep the cards", "Choice 2 of 2", "You hold 3 cards",
                                      "Press: place armies"]
    ok(table, 1, confirm(1))
    assert table.menu.stage == menus.PLACE and not table.log
    ok(table, 1, confirm(1))  # an army placed: the menu is not asked again
    assert table.menu.stage == menus.PLACE and len(table.log) == 1
    ok(table, 1, back(1))  # the army taken back
    ok(table, 1, back(1))  # and the cards not kept after all
    assert table.menu.stage == menus.TRADE_STAGE and not table.menu.keeps
    ok(table, 1, confirm(1))
    assert table.menu.stage == menus.BONUS and table.menu.choices == (T("alaska"), T("ukraine"))
    # The set is not traded yet: the public board must not show which territories its
    # cards name (the player may still go back and keep them).
    assert not table.highlight & {"alaska", "ukraine"}
    ok(table, 1, back(1))
    assert table.menu.stage == menus.TRADE_STAGE
    ok(table, 1, confirm(1))
    out = ok(table, 1, confirm(1))
    assert out.actions == (Trade(cards, T("alaska")),) and table.state.pool == 3 + 4


def test_a_forced_trade_offers_no_keep() -> None:
    hand = ("alaska", "ukraine", "wild1", "middle_east", "afghanistan")
    table = reinforce(hands={0: hand})
    menu = table.menu
    assert menu.stage == menus.MUST_TRADE and menu.high == len(menu.options) - 1
    assert table.view(1)["lines"][0] == f"Must trade: 1 of {len(menu.options)}"
    for _ in range(len(menu.options)):
        ok(table, 1, turn(1, 1))
        assert not table.menu.keeps and table.menu.stage == menus.MUST_TRADE
    wanted = (T("middle_east"), T("afghanistan"), BOARD.size)
    ok(table, 1, turn(1, table.menu.options.index(Trade(tuple(sorted(wanted)))) -
                   table.menu.value))
    out = ok(table, 1, confirm(1))
    assert out.actions == (Trade(tuple(sorted(wanted))),) and table.menu.stage == menus.PLACE


def test_star_trades_are_walked_and_confirmed() -> None:
    config = preset_config("classic_2016", 3)
    stars = config.stars
    assert stars is not None
    two = [BOARD.territory_ids[t] for t in range(BOARD.size) if stars[t] == 2][:2]
    table = session_at(position(LAYOUT, config=config, phase=st.REINFORCE, pool=3,
                                hands={0: tuple(two)}), hub_cards=True)
    menu = table.menu
    assert menu.stage == menus.TRADE_STAGE and menu.options == (TradeStars((T(two[0]),
                                                                            T(two[1]))),)
    assert table.view(1)["lines"][1] == "4 stars = 7 armies"
    out = ok(table, 1, confirm(1))
    assert out.actions == menu.options and table.state.pool == 3 + 7


def test_card_taps_are_refused_in_a_hub_cards_game() -> None:
    table = reinforce(hands={0: ("alaska", "ukraine", "wild1")})
    # The tap carries an enrolled UID of a held card: refused for the game, not the card.
    refused(table, 1, tap(1, "alaska"), "This game deals no physical cards")


def test_no_screen_ever_shows_a_hand_but_its_own() -> None:
    table, pilot = hub_game(Config(4), 6)
    seen = {"hand": 0, "drew": 0}

    def check(views: dict[int, dict[str, Any]]) -> None:
        state = table.state
        for seat, view in views.items():
            player = table.seats.index(seat)
            own = {card_label(state, c) for c in state.hands[player]}
            for line in view["lines"]:
                if line.startswith("Hand: "):
                    assert line == hand_line(state, player)
                    seen["hand"] += 1
                if line.startswith("You drew "):
                    assert any(f"You drew {label}"[:23] in line for label in own), line
                    seen["drew"] += 1

    while table.state.phase != st.GAME_OVER:
        while (bot_move := table.step_bots()) is not None:
            check(dict(bot_move.views))
        nxt = pilot.next_event()
        if nxt is None:
            break
        out = table.handle(*nxt)
        assert out.error is None
        check(dict(out.views))
    assert seen["hand"] > 50 and seen["drew"] > 5


def test_a_capital_game_with_hub_cards_asks_nobody_to_handle_a_capital_card() -> None:
    # The capital cards lie before their owners and pass to their captors in the hub's
    # hands alone: no seat is told to take a card from a pile or lay one down.
    table, pilot = hub_game(preset_config("capital_1993", 3), 3)
    told: list[str] = []
    moments: set[str] = set()

    def after(out: Outcome) -> None:
        if any(s >= 0 for s in table.state.laid):
            moments.add("laid")
        moments.update(type(e).__name__ for e in out.events if type(e).__name__ ==
                       "CapitalCardPassed")
        told.extend(line for seat in table.seats for line in table.view(seat)["lines"]
                    if "pile" in line or line.startswith("Lay capital")
                    or (line.startswith("Take ") and "capital" in line))

    play(table, pilot, after=after)
    revealed, passed = "laid" in moments, "CapitalCardPassed" in moments
    assert revealed and passed  # the game went through both moments
    assert told == []
