"""The 2016 classic game at the table: star-card trades by tapping and confirming, and a
whole ``classic_2016`` game played only through seat events."""

from __future__ import annotations

import random
from typing import Any

import pytest

from risktable.rules import DrawCard, TradeStars, replay
from risktable.rules import state as st
from risktable.rules.bots import HeuristicBot
from risktable.rules.decks import ceasefire_card
from risktable.rules.presets import preset_config
from risktable.table import menus
from risktable.table.autopilot import Autopilot
from risktable.table.session import TableSession
from tests.rules.scenario import BOARD, T, position
from tests.table.inputs import back, cards_of, confirm, ok, refused, session_at, tap, turn, uids_of
from tests.table.test_games import play

CONFIG = preset_config("classic_2016", 3)
STARS = CONFIG.stars
assert STARS is not None
ONE = [BOARD.territory_ids[t] for t in range(BOARD.size) if STARS[t] == 1]
TWO = [BOARD.territory_ids[t] for t in range(BOARD.size) if STARS[t] == 2]
LAYOUT = {"ukraine": (0, 5), "middle_east": (1, 2), "afghanistan": (1, 4),
          "eastern_australia": (2, 1)}


def reinforce(hand: tuple[str, ...], pool: int = 3, **kw: Any) -> TableSession:
    return session_at(position(LAYOUT, config=CONFIG, phase=st.REINFORCE, pool=pool,
                               hands={0: hand}, **kw))


def test_tapped_cards_show_their_worth_and_confirm_trades_them_for_the_table_value() -> None:
    hand = (ONE[0], ONE[1], TWO[0])
    table = reinforce(hand)
    assert table.menu.stage == menus.PLACE
    ok(table, 1, tap(1, ONE[0]))
    assert table.view(1)["lines"][:2] == ["1 star: no trade", "Press: trade them"]
    refused(table, 1, confirm(1), "1 star: no trade")
    ok(table, 1, tap(1, ONE[1]))
    assert table.view(1)["lines"][0] == "2 stars = 2 armies"
    out = ok(table, 1, tap(1, TWO[0]))
    assert not out.actions and out.views[1]["lines"][0] == "4 stars = 7 armies"
    assert out.views[1]["lines"][2] == "3 cards tapped"
    out = ok(table, 1, confirm(1))
    assert out.actions == (TradeStars(tuple(sorted(T(c) for c in hand))),)
    assert table.state.pool == 3 + 7 and table.state.hands[0] == ()
    assert table.menu.stage == menus.PLACE and table.pick.cards == ()
    assert table.view(2)["lines"][1:3] == ["Seat 1: Trade 3 cards", "4 stars: 7 armies"]
    # With no card tapped, Confirm places an army again.
    out = ok(table, 1, confirm(1))
    assert table.state.pool == 9 and len(out.actions) == 1


def test_tapping_a_card_again_or_back_untaps_it() -> None:
    table = reinforce((ONE[0], TWO[0], TWO[1]))
    ok(table, 1, tap(1, TWO[0]))
    ok(table, 1, tap(1, ONE[0]))
    ok(table, 1, tap(1, TWO[0]))
    assert table.pick.cards == (T(ONE[0]),)
    ok(table, 1, back(1))
    assert not table.pick.cards and table.log == []
    assert table.view(1)["lines"][0] == "Place 1 army on"


def test_a_trade_beyond_ten_stars_is_refused_and_six_cards_must_be_traded() -> None:
    hand = tuple(TWO[:6])
    table = reinforce(hand)
    assert table.menu.stage == menus.MUST_TRADE
    assert table.view(1)["lines"][:3] == ["You hold 6 cards", "Tap cards, 2-10 stars",
                                          "0 stars: no trade"]
    refused(table, 1, confirm(1), "Tap cards worth 2 to 10 stars")
    refused(table, 1, turn(1, 1), "Nothing to turn")
    refused(table, 2, tap(2, TWO[0]), "No card is wanted")
    refused(table, 1, tap(1, ONE[0]), "do not hold")
    for card in hand:
        ok(table, 1, tap(1, card))
    assert table.view(1)["lines"][2] == "12 stars: no trade"
    refused(table, 1, confirm(1), "12 stars: no trade")
    ok(table, 1, back(1))
    assert table.view(1)["lines"][2] == "10 stars = 30 armies"
    out = ok(table, 1, confirm(1))
    assert out.actions == (TradeStars(tuple(sorted(T(c) for c in hand[:5]))),)
    assert table.state.pool == 3 + 30 and table.state.hands[0] == (T(hand[5]),)
    assert table.menu.stage == menus.PLACE


def test_after_a_conquest_only_a_forced_trade_is_taken() -> None:
    table = reinforce((ONE[0], ONE[1]), conquered=True)
    refused(table, 1, tap(1, ONE[0]), "After a conquest")


def test_a_whole_classic_2016_game_through_seat_events_replays() -> None:
    table = TableSession(CONFIG, [1, 2, 3], cards_of("2016"))
    bots = {seat: HeuristicBot(20 + seat) for seat in table.seats}
    play(table, Autopilot(table, bots, uids_of("2016"), random.Random(2)))
    final = table.state
    assert final.phase == st.GAME_OVER and final.counts[final.winner] == len(final.owners)
    assert replay(CONFIG, table.log) == final
    # The game exercised what 2016 changes most: star trades.
    trades = [a for a in table.log if isinstance(a, TradeStars)]
    assert len(trades) >= 3
    rebuilt = TableSession(CONFIG, table.seats, cards_of("2016"), actions=table.log)
    assert rebuilt.state == final



@pytest.mark.slow
def test_the_ceasefire_card_is_drawn_by_its_tag_and_ends_a_beginner_game() -> None:
    # beginner_2016 ends when the ceasefire card is drawn; the seat taps its own tag.
    config = preset_config("beginner_2016", 3)
    for seed in range(1, 40):
        table = TableSession(config, [1, 2, 3], cards_of("2016"))
        bots = {seat: HeuristicBot(seed * 10 + seat) for seat in table.seats}
        play(table, Autopilot(table, bots, uids_of("2016"), random.Random(seed)))
        if table.state.ceasefire:
            break
    else:
        raise AssertionError("no seed drew the ceasefire card")
    drawn = [a for a in table.log if isinstance(a, DrawCard)]
    assert drawn[-1].card == ceasefire_card(BOARD)
    assert replay(config, table.log) == table.state


def test_tapped_star_cards_survive_a_hub_restart_through_the_ui_state() -> None:
    table = reinforce((ONE[0], TWO[0], TWO[1]))
    ok(table, 1, tap(1, ONE[0]))
    ok(table, 1, tap(1, TWO[1]))
    rebuilt = session_at(position(LAYOUT, config=CONFIG, phase=st.REINFORCE, pool=3,
                                  hands={0: (ONE[0], TWO[0], TWO[1])}))
    rebuilt.restore_ui(table.ui_state())
    assert rebuilt.view(1) == table.view(1)
    assert rebuilt.view(1)["lines"][0] == "3 stars = 4 armies"
    out = ok(rebuilt, 1, confirm(1))
    assert out.actions == (TradeStars(tuple(sorted((T(ONE[0]), T(TWO[1]))))),)
