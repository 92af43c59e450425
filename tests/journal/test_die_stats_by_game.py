"""``Journal.die_stats(game_id)``: the faces of one game only (the game report's dice)."""

from __future__ import annotations

from pathlib import Path

import pytest

from risktable.journal import ActionMeta, DieFace, Journal, SeatInput, UnknownGame, journal_path
from risktable.rules import Config, OpeningRoll


def test_die_stats_of_one_game_count_only_its_faces(tmp_path: Path) -> None:
    with Journal(journal_path(tmp_path)) as j:
        config = Config(3)
        games = [j.create_game(config, "t1"), j.create_game(config, "t1")]
        for n, game in enumerate(games):
            # A seat's reading (named by seat) and a roll naming its dice (named).
            j.record_input(game, SeatInput(1, None, 1, {"kind": "dice"}, {}), [],
                           dice=(DieFace("e1", 2 + n),))
            j.append(game, OpeningRoll((6, 2, 1)), ActionMeta(
                "hub", dice=(DieFace("px-1", 6), DieFace("px-1", 2), DieFace("px-2", 1))))
        first = {d.die: d.counts for d in j.die_stats(games[0])}
        assert first == {"px-1": (0, 1, 0, 0, 0, 1), "px-2": (1, 0, 0, 0, 0, 0),
                         "seat 1 e1": (0, 1, 0, 0, 0, 0)}
        second = {d.die: d.counts for d in j.die_stats(games[1])}
        assert second["seat 1 e1"] == (0, 0, 1, 0, 0, 0)
        every = {d.die: d.counts for d in j.die_stats()}
        assert every["px-1"] == (0, 2, 0, 0, 0, 2)
        assert every["seat 1 e1"] == (0, 1, 1, 0, 0, 0)
        with pytest.raises(UnknownGame):
            j.die_stats(99)
