"""Secret Mission Risk: the deck in play, missions met the moment they are met (also in
another player's turn), both readings of a target destroyed by someone else."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from risktable.rules import (
    Attack,
    Config,
    OpeningRoll,
    Options,
    Place,
    Roll,
    apply,
    chance_outcomes,
    new_game,
)
from risktable.rules.decks import MISSIONS, OCCUPY_24, mission_deck, mission_index
from risktable.rules.events import GameWon, MissionCompleted, PlayerEliminated
from risktable.rules.goals import effective_mission, how_won, mission_met
from risktable.rules.options import RULES_VERSION
from risktable.rules.presets import preset_config
from risktable.rules.state import REINFORCE, State
from tests.rules.scenario import T, position

M = mission_index


def _missions(*names: str) -> tuple[int, ...]:
    return tuple(M(n) for n in names)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_all_12_missions_are_dealt_from_whatever_the_player_count(players: int) -> None:
    assert len(mission_deck(players, False, RULES_VERSION)) == 12
    assert [MISSIONS[m].id for m in mission_deck(players, True, RULES_VERSION)][-2:] == [
        "europe_south_america_third", "europe_australia_third"]


def test_rules_version_1_dropped_the_destroy_cards_of_absent_colours() -> None:
    ids = [MISSIONS[m].id for m in mission_deck(3, False, 1)]
    assert len(ids) == 9 and "destroy_2" in ids and "destroy_3" not in ids
    assert [len(mission_deck(n, False, 1)) for n in (4, 5, 6)] == [10, 11, 12]


def _at_mission_deal(players: int, european: str = "off", rules: int = RULES_VERSION,
                     seed: int = 3) -> State:
    config = Config(players, Options(setup="deal", goal="missions",
                                     european_missions=european), rules=rules)  # type: ignore[arg-type]
    s = new_game(config)
    s, _ = apply(s, OpeningRoll(tuple(range(1, players + 1))))
    rng = random.Random(seed)
    while s.phase_name == "deal":
        s, _ = apply(s, chance_outcomes(s).sample(rng))
    assert s.phase_name == "mission_deal"
    return s


@pytest.mark.parametrize("european, cards", [("off", 12), ("on", 14)])
@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_every_mission_deal_offers_each_undealt_card_with_equal_chance(
        players: int, european: str, cards: int) -> None:
    s = _at_mission_deal(players, european)
    rng = random.Random(players)
    dealt: list[int] = []
    while s.phase_name == "mission_deal":
        node = chance_outcomes(s)
        outcomes = list(node)
        undealt = [m for m in range(cards) if m not in dealt]
        assert [a.mission for a, _ in outcomes] == undealt  # type: ignore[attr-defined]
        assert {p for _, p in outcomes} == {Fraction(1, len(undealt))}
        action = node.sample(rng)
        dealt.append(action.mission)  # type: ignore[attr-defined]
        s, _ = apply(s, action)
    assert len(dealt) == players


def _chance_of_occupy_24(s: State) -> Fraction:
    # Player s.player is dealt first: each card of the node is equally likely.
    node = chance_outcomes(s)
    total = Fraction(0)
    for action, p in node:
        after, _ = apply(s, action)
        if effective_mission(after, s.player) == OCCUPY_24:
            total += p
    return total


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_occupy_24_is_held_with_chance_5_in_12_not_2_in_9_with_3_players(players: int) -> None:
    # The card itself, the own destroy card and those of absent colours; version 1 dealt
    # from 6 + players cards, of which only the first two read as occupy 24.
    assert _chance_of_occupy_24(_at_mission_deal(players)) == Fraction(8 - players, 12)
    assert _chance_of_occupy_24(_at_mission_deal(players, rules=1)) == Fraction(2, 6 + players)


def test_a_destroy_card_of_a_colour_not_in_play_becomes_24_territories() -> None:
    config = preset_config("mission_1993", 3)
    s = position({}, config=config, missions=_missions("destroy_4", "destroy_0", "asia_africa"))
    assert effective_mission(s, 0) == OCCUPY_24 and effective_mission(s, 1) == M("destroy_0")
    layout = {t: (0, 1) for t in config.board.territory_ids[:24]}
    s = position(layout, config=config, rest=1,
                 missions=_missions("destroy_4", "destroy_0", "asia_africa"))
    assert mission_met(s, 0) and not mission_met(s, 1)


def test_missions_are_dealt_face_down_after_the_territories() -> None:
    config = preset_config("mission_1993", 4)
    s = new_game(config)
    s, _ = apply(s, OpeningRoll((1, 2, 6, 3)))
    rng = random.Random(2)
    while s.phase_name == "deal":
        s, _ = apply(s, chance_outcomes(s).sample(rng))
    assert s.phase_name == "mission_deal" and len(chance_outcomes(s)) == 12
    for _ in range(4):
        s, _ = apply(s, chance_outcomes(s).sample(rng))
    assert s.phase_name == "setup_place" and -1 not in s.missions
    assert len(set(s.missions)) == 4


def test_destroying_your_own_colour_becomes_24_territories() -> None:
    config = preset_config("mission_1993", 3)
    s = position({}, config=config, missions=_missions("destroy_1", "destroy_1", "territories_24"))
    assert effective_mission(s, 1) == OCCUPY_24 and effective_mission(s, 0) == M("destroy_1")


def _kill_position(option: str) -> State:
    # Player 0 is about to take player 1's last territory; player 2 must destroy player 1.
    options = Options(setup="deal", goal="missions", mission_target_lost=option)
    config = Config(3, options)
    return position({"alaska": (0, 6), "kamchatka": (1, 1)}, config=config, rest=2,
                    missions=_missions("asia_africa", "territories_24", "destroy_1"))


def test_a_kill_by_another_player_completes_a_destroy_mission_by_default() -> None:
    s = _kill_position("counts")
    s, _ = apply(s, Attack(T("alaska"), T("kamchatka"), 3))
    s, events = apply(s, Roll((6, 5, 4), (2,)))
    assert PlayerEliminated(1, 0, ()) in events
    # Won at once, in player 0's turn, by player 2.
    assert MissionCompleted(2, M("destroy_1")) in events and GameWon(2) in events
    assert s.winner == 2 and s.player == 0 and how_won(s) == "mission"


def test_occupy_24_after_another_kill_is_checked_at_once() -> None:
    options = Options(setup="deal", goal="missions", mission_target_lost="occupy_24")
    config = Config(3, options)
    layout = {t: (0, 1) for t in ("alaska", "northwest_territory", "greenland", "alberta",
                                  "ontario", "quebec", "western_united_states",
                                  "eastern_united_states", "central_america", "venezuela",
                                  "peru", "brazil", "argentina", "iceland", "scandinavia",
                                  "great_britain", "northern_europe", "western_europe")}
    layout.update({"alaska": (0, 6), "kamchatka": (1, 1)})
    s = position(layout, config=config, rest=2,
                 missions=_missions("asia_africa", "territories_24", "destroy_1"))
    assert s.counts == (18, 1, 23)
    s, _ = apply(s, Attack(T("alaska"), T("kamchatka"), 3))
    s, events = apply(s, Roll((6, 5, 4), (2,)))
    assert PlayerEliminated(1, 0, ()) in events
    # Player 2 holds 23: the destroy card now asks for 24, so nobody has won yet.
    assert not s.is_terminal and effective_mission(s, 2) == OCCUPY_24


def test_the_24_territories_of_a_lost_target_win_the_moment_they_are_held() -> None:
    options = Options(setup="deal", goal="missions", mission_target_lost="occupy_24")
    config = Config(3, options)
    layout = {t: (2, 1) for t in config.board.territory_ids[18:42]}  # 24 territories
    layout["siam"] = (0, 1)
    layout["china"] = (2, 6)
    s = position(layout, config=config, rest=0, player=2, eliminated_by=(-1, 0, -1),
                 missions=_missions("asia_africa", "territories_24", "destroy_1"))
    assert s.counts == (19, 0, 23) and not mission_met(s, 2)
    s, _ = apply(s, Attack(T("china"), T("siam"), 3))
    s, events = apply(s, Roll((6, 5, 4), (2,)))
    assert MissionCompleted(2, M("destroy_1")) in events and s.winner == 2


def test_a_mission_is_met_mid_turn_by_placing_armies() -> None:
    config = preset_config("mission_1993", 3)
    own = ["alaska", "northwest_territory", "greenland", "alberta", "ontario", "quebec",
           "western_united_states", "eastern_united_states", "central_america", "venezuela",
           "peru", "brazil", "argentina", "iceland", "scandinavia", "great_britain",
           "northern_europe", "western_europe"]
    layout = {t: (0, 2) for t in own}
    layout["western_europe"] = (0, 1)
    s = position(layout, config=config, rest=1, phase=REINFORCE, pool=5,
                 missions=_missions("territories_18_two_armies", "destroy_2", "asia_africa"))
    assert not mission_met(s, 0)
    s, events = apply(s, Place(T("western_europe"), 1))
    assert MissionCompleted(0, M("territories_18_two_armies")) in events and s.winner == 0


def test_continent_missions_and_the_european_third_continent() -> None:
    options = Options(setup="deal", goal="missions", european_missions="on")
    config = Config(3, options)
    board = config.board
    europe = [board.territory_ids[t] for t in board.continents[2].territories]
    south = [board.territory_ids[t] for t in board.continents[1].territories]
    australia = [board.territory_ids[t] for t in board.continents[5].territories]
    layout = {t: (0, 1) for t in europe + south}
    s = position(layout, config=config, rest=1,
                 missions=_missions("europe_south_america_third", "destroy_2", "asia_africa"))
    assert not mission_met(s, 0)  # the third continent is missing
    layout.update({t: (0, 1) for t in australia})
    s = position(layout, config=config, rest=1,
                 missions=_missions("europe_south_america_third", "destroy_2", "asia_africa"))
    assert mission_met(s, 0)


def test_missions_need_three_players_and_the_1993_deal() -> None:
    with pytest.raises(ValueError, match="3 to 6"):
        Config(2, Options(setup="deal", goal="missions", two_player="plain_50"))
    with pytest.raises(ValueError, match="setup = deal"):
        Config(3, Options(goal="missions"))
