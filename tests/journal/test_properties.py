"""Random interleavings of appends, undos, retries, refusals and reopenings.

Whatever the order, the journal's state is the replay of the actions a plain
list model says are live, and its export is that list as an action log.
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from risktable.journal import Journal, NothingToUndo
from risktable.rules import (
    CHANCE,
    Action,
    Config,
    RulesError,
    apply,
    chance_outcomes,
    current_actor,
    replay,
)
from risktable.rules.actions import END_TURN
from risktable.rules.bots import UniformBot
from risktable.rules.record import dumps

OPS = st.one_of(
    st.tuples(st.just("play"), st.integers(1, 40)),
    st.tuples(st.just("undo"), st.just(0)),
    st.tuples(st.just("retry"), st.just(0)),
    st.tuples(st.just("refused"), st.just(0)),
    st.tuples(st.just("reopen"), st.just(0)),
)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**16), players=st.integers(3, 6),
       ops=st.lists(OPS, min_size=1, max_size=12))
def test_journal_matches_a_list_model(seed: int, players: int,
                                      ops: list[tuple[str, int]]) -> None:
    config = Config(players)
    rng = random.Random(seed)
    bot = UniformBot(seed)
    model: list[tuple[Action, int]] = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "journal.sqlite3"
        journal = Journal(path)
        game = journal.create_game(config, "t1")
        try:
            for op, n in ops:
                state = replay(config, (a for a, _ in model))
                if op == "play":
                    for _ in range(n):
                        if state.is_terminal:
                            break
                        actor = current_actor(state)
                        a = (chance_outcomes(state).sample(rng) if actor == CHANCE
                             else bot.choose(state))
                        state = journal.append(game, a).state
                        model.append((a, actor))
                elif op == "undo":
                    cut = len(model)
                    while cut and model[cut - 1][1] == CHANCE:
                        cut -= 1
                    if cut == 0:
                        with pytest.raises(NothingToUndo):
                            journal.undo_last(game)
                    else:
                        undone = journal.undo_last(game)
                        assert [e.action for e in undone.entries] == [
                            a for a, _ in model[cut - 1:]]
                        del model[cut - 1:]
                elif op == "retry" and model:
                    again = journal.append(game, model[-1][0], index=len(model) - 1)
                    assert again.duplicate and again.index == len(model) - 1
                elif op == "refused":
                    try:
                        apply(state, END_TURN)
                    except RulesError:
                        with pytest.raises(RulesError):
                            journal.append(game, END_TURN)
                elif op == "reopen":
                    journal.close()
                    journal = Journal(path)
                assert journal.state(game) == replay(config, (a for a, _ in model))
            assert journal.export(game) == dumps(config, [a for a, _ in model])
            assert len(journal.actions(game)) == len(model)
        finally:
            journal.close()
