"""Several actions settled by one input are journalled together or not at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from risktable.journal import ActionMeta, Journal
from risktable.rules import Claim, Config, IllegalActionError, OpeningRoll, new_game


def test_all_or_nothing(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite3")
    game = journal.create_game(Config(players=3), "t")
    journal.append(game, OpeningRoll((6, 2, 1)))
    board = new_game(Config(players=3)).config.board
    alaska = board.territory_ids.index("alaska")
    peru = board.territory_ids.index("peru")
    # The second claim of Alaska is illegal: neither claim may be kept.
    with pytest.raises(IllegalActionError):
        journal.append_all(game, [(Claim(alaska), ActionMeta("seat", seat=1, seq=1)),
                                  (Claim(alaska), ActionMeta("seat", seat=2, seq=1))])
    assert len(journal.actions(game)) == 1
    done = journal.append_all(game, [(Claim(alaska), ActionMeta("seat", seat=1, seq=1)),
                                     (Claim(peru), ActionMeta("seat", seat=2, seq=1))])
    assert [a.index for a in done] == [1, 2]
    # A retry of the same input is recognised action by action.
    again = journal.append_all(game, [(Claim(alaska), ActionMeta("seat", seat=1, seq=1)),
                                      (Claim(peru), ActionMeta("seat", seat=2, seq=1))])
    assert all(a.duplicate for a in again)
    journal.close()
    reopened = Journal(tmp_path / "j.sqlite3", create=False)
    assert len(reopened.actions(game)) == 3
    reopened.close()
