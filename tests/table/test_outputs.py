"""The table's outputs over a whole game: every board message, seat view, prompt and
LED scene is valid under the contract and consistent with the rules state."""

from __future__ import annotations

import random

import pytest

from riskproto import messages
from riskproto.territories import TERRITORIES
from risktable.rules import Action, Config, apply, chance_outcomes, new_game
from risktable.rules import state as st
from risktable.rules.bots import HeuristicBot
from risktable.rules.state import State
from risktable.table.prompts import LINE, describe
from risktable.table.public import board_message, led_scene, protocol_phase
from risktable.table.views import actor_seat, seat_view

Steps = list[tuple[State, Action, State]]


def game_states(players: int, seed: int) -> Steps:
    rng = random.Random(seed)
    bots = [HeuristicBot(seed * 10 + p) for p in range(players)]
    state = new_game(Config(players=players))
    steps = []
    while state.phase != st.GAME_OVER:
        if state.phase in st.CHANCE_PHASES:
            action: Action = chance_outcomes(state).sample(rng)
        elif state.phase == st.DEFEND:
            action = bots[state.owners[state.target]].choose(state)
        else:
            action = bots[state.player].choose(state)
        after, _ = apply(state, action)
        steps.append((state, action, after))
        state = after
    return steps


@pytest.fixture(scope="module")
def steps() -> Steps:
    return game_states(4, seed=3)


def test_every_board_message_is_valid_and_matches_the_state(steps: Steps) -> None:
    for _, _, after in [*steps[::7], steps[-1]]:
        msg = board_message(after)
        messages.decode(messages.encode(msg))
        ids = after.config.board.territory_ids
        for name, owner, armies in zip(TERRITORIES, msg["owners"], msg["armies"], strict=True):
            i = ids.index(name)
            assert armies == after.armies[i]
            assert owner == (after.owners[i] + 1 if after.owners[i] >= 0 else 0)
        assert msg["turn"]["phase"] == protocol_phase(after)


def test_every_seat_view_is_valid(steps: Steps) -> None:
    for before, action, after in [*steps[::5], steps[-1]]:
        acted = actor_seat(before)
        lines = describe(before, action)
        assert all(len(line) <= LINE for line in lines)
        for seat in range(1, 5):
            fields = seat_view(after, seat, lines if seat == acted else None)
            msg = messages.message("view", seat=seat, colour=[1, 2, 3], **fields)
            messages.decode(messages.encode(msg))


def test_only_the_acting_seat_is_active(steps: Steps) -> None:
    for _, _, after in steps:
        active = [seat for seat in range(1, 5) if seat_view(after, seat)["active"]]
        expected = actor_seat(after)
        assert active == ([] if expected is None else [expected])
        if after.phase == st.DEFEND:
            assert expected == after.owners[after.target] + 1


def test_game_over_views_name_the_winner(steps: Steps) -> None:
    final = steps[-1][2]
    winner = final.winner + 1
    for seat in range(1, 5):
        view = seat_view(final, seat)
        assert view["phase"] == "over"
        assert view["lines"] == (["You won!"] if seat == winner else [f"Seat {winner} won"])


def test_led_scene_lights_owners_and_counts(steps: Steps) -> None:
    final = steps[-1][2]
    scene = led_scene(final)
    assert set(scene) == set(TERRITORIES)
    ids = final.config.board.territory_ids
    for i, tid in enumerate(ids):
        assert scene[tid].label == str(final.armies[i])
        assert scene[tid].level > 0


def test_views_carry_no_hand_contents(steps: Steps) -> None:
    # Hands are secret: a view may say how many armies to place, never which cards.
    for _, _, after in steps[::11]:
        for seat in range(1, 5):
            text = repr(seat_view(after, seat)).lower()
            assert "card" not in text and "hand" not in text


def test_a_cursor_on_unclaimed_land_is_visible() -> None:
    from risktable.leds.scene import board_scene

    scene = board_scene({"alaska": None, "peru": None}, {}, highlight=frozenset({"alaska"}))
    assert scene["alaska"].blink and scene["alaska"].scaled() != (0, 0, 0)
    assert scene["peru"].scaled() == (0, 0, 0)
