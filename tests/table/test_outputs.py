"""The table's outputs over a whole game: every board message, seat view and LED
scene is valid under the contract and consistent with the rules state."""

from __future__ import annotations

import random

import pytest

from riskproto import messages
from riskproto.territories import TERRITORIES
from risktable.rules import Action, Config, apply, chance_outcomes, new_game
from risktable.rules import state as st
from risktable.rules.bots import HeuristicBot
from risktable.rules.combat import defender
from risktable.rules.state import State
from risktable.table.public import board_message, led_scene, protocol_phase
from risktable.table.session import TableSession

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
            action = bots[defender(state)].choose(state)
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


def test_led_scene_lights_owners_and_counts(steps: Steps) -> None:
    final = steps[-1][2]
    scene = led_scene(final)
    assert set(scene) == set(TERRITORIES)
    ids = final.config.board.territory_ids
    for i, tid in enumerate(ids):
        assert scene[tid].label == str(final.armies[i])
        assert scene[tid].level > 0


def test_a_cursor_on_unclaimed_land_is_visible() -> None:
    from risktable.leds.scene import board_scene

    scene = board_scene({"alaska": None, "peru": None}, {}, highlight=frozenset({"alaska"}))
    assert scene["alaska"].blink and scene["alaska"].scaled() != (0, 0, 0)
    assert scene["peru"].scaled() == (0, 0, 0)


def test_every_view_of_a_bot_played_session_is_valid_and_names_the_winner() -> None:
    seats = [1, 2, 3]
    session = TableSession(Config(players=3), seats, {},
                           bots={s: HeuristicBot(s) for s in seats}, dice=random.Random(5))
    views = {seat: session.view(seat) for seat in seats}
    while (outcome := session.step_bots()) is not None:
        for seat, fields in outcome.views.items():
            views[seat] = {**views[seat], **fields}
            msg = messages.message("view", seat=seat, colour=[1, 2, 3], **views[seat])
            assert len(messages.encode(msg)) <= messages.MAX_MESSAGE_BYTES
    final = session.state
    assert final.phase == st.GAME_OVER
    for seat in seats:
        assert views[seat]["phase"] == "over"
        text = " ".join(views[seat].get("lines", []))
        assert f"{final.winner + 1}" in text or "won" in text.lower(), text
