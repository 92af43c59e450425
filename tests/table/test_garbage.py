"""Random input sequences never crash the session, and a refused input changes nothing
(but for taking down its seat's hint)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from risktable.rules import Config, State, apply
from risktable.rules import state as st
from risktable.rules.bots import HeuristicBot
from risktable.table.autopilot import Autopilot, PlanError
from risktable.table.session import TableSession
from tests.rules.scenario import position
from tests.table.inputs import CARDS, UIDS

_FIELD_NOISE = hs.one_of(hs.none(), hs.integers(-100, 100), hs.text(max_size=4), hs.booleans())
_UID = hs.one_of(hs.sampled_from(sorted(UIDS.values())), hs.sampled_from(["DEADBEEF", "04"]),
                 hs.text(max_size=6))
_DIE = hs.fixed_dictionaries({
    "id": hs.just("d"),
    "face": hs.one_of(hs.integers(0, 7), _FIELD_NOISE),
    "state": hs.sampled_from(["settled", "settled", "rolling", "crooked", "odd"]),
})
_EVENT = hs.one_of(
    hs.fixed_dictionaries({"kind": hs.just("encoder"),
                           "steps": hs.one_of(hs.integers(-64, 64), _FIELD_NOISE)}),
    hs.fixed_dictionaries({"kind": hs.just("button"),
                           "button": hs.sampled_from(["confirm", "confirm", "back", "encoder",
                                                      "roll", "other"]),
                           "press": hs.sampled_from(["short", "long"])}),
    hs.fixed_dictionaries({"kind": hs.just("dice"),
                           "roll": hs.one_of(hs.integers(0, 30), _FIELD_NOISE),
                           "dice": hs.one_of(hs.lists(_DIE, max_size=4), _FIELD_NOISE)}),
    hs.fixed_dictionaries({"kind": hs.just("card"), "uid": _UID}),
    hs.fixed_dictionaries({"kind": hs.sampled_from(["resync", "unknown"])}),
    hs.dictionaries(hs.text(max_size=5), _FIELD_NOISE, max_size=3),
)
# Mostly real seats; now and then a seat that is not at the table.
_SEAT = hs.sampled_from([1, 1, 2, 2, 3, 3, 0, 7])
_INPUTS = hs.lists(hs.tuples(_SEAT, _EVENT), min_size=5, max_size=40)
# None: the next input of a person playing well (the autopilot); else garbage.
_MIXED = hs.lists(hs.one_of(hs.none(), hs.none(), hs.none(), hs.tuples(_SEAT, _EVENT)),
                  min_size=200, max_size=600)

_LAYOUT = {"ukraine": (0, 5), "middle_east": (1, 2), "afghanistan": (1, 4),
           "eastern_australia": (2, 1)}
STARTS: dict[str, State | None] = {
    "new": None,
    "reinforce": position(_LAYOUT, phase=st.REINFORCE, pool=4,
                          hands={0: ("alaska", "ukraine", "wild1", "middle_east")}),
    "attack": position({**_LAYOUT, "middle_east": (1, 1)}, phase=st.ATTACK, conquered=True),
}


Input = tuple[int, dict[str, Any]]


def _check(start: State | None, inputs: list[Input | None], seed: int = 0) -> None:
    config = Config(3) if start is None else start.config
    table = TableSession(config, [1, 2, 3], CARDS, start=start)
    pilot = Autopilot(table, {s: HeuristicBot(seed + s) for s in (1, 2, 3)}, UIDS,
                      random.Random(seed))
    first = table.state
    for given_input in inputs:
        if given_input is None:
            try:
                given_input = pilot.next_event()
            except PlanError:  # garbage left a half-made choice the plan did not expect
                given_input = (table.seats[max(0, table.menu.player)], {"kind": "button",
                               "button": "back", "press": "short"})
            if given_input is None:
                continue
        seat, event = given_input
        state, log, pick = table.state, table.log, table.pick
        views = {s: table.view(s) for s in table.seats}
        out = table.handle(seat, event)
        if out.error is not None:
            assert (table.state, table.log, table.pick) == (state, log, pick)
            assert {s: table.view(s) for s in table.seats} == views
            assert not out.actions and not out.commands
            # A refused input takes its seat's hint down: that seat's own view, as it was.
            assert all(s == seat and view == views[s] for s, view in out.views.items())
    # Whatever was accepted is a legal record from the starting position.
    s = first
    for a in table.log:
        s, _ = apply(s, a)
    assert s == table.state


_SETTINGS = settings(max_examples=60, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(_INPUTS)
def test_garbage_from_a_new_game(inputs: list[Input | None]) -> None:
    _check(None, inputs)


@pytest.mark.slow
@_SETTINGS
@given(_MIXED, hs.integers(0, 1000))
def test_garbage_mixed_into_real_play(inputs: list[Input | None], seed: int) -> None:
    _check(None, inputs, seed)


@_SETTINGS
@given(_INPUTS)
def test_garbage_while_reinforcing(inputs: list[Input | None]) -> None:
    _check(STARTS["reinforce"], inputs)


@_SETTINGS
@given(_INPUTS)
def test_garbage_while_attacking(inputs: list[Input | None]) -> None:
    _check(STARTS["attack"], inputs)
