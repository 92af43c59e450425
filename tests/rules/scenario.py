"""Building positions for scenario tests: a board laid out by hand, in any phase."""

from __future__ import annotations

from typing import Any

from risktable.rules import Config, Options, State, classic_board, new_game
from risktable.rules.state import ATTACK

BOARD = classic_board()
T = BOARD.index  # territory id -> index


def position(
    layout: dict[str, tuple[int, int]],
    *,
    players: int = 3,
    rest: int = 0,
    phase: int = ATTACK,
    player: int = 0,
    options: Options | None = None,
    hands: dict[int, tuple[str, ...]] | None = None,
    config: Config | None = None,
    **fields: Any,
) -> State:
    """A state where ``layout`` maps territory ids to (owner, armies) and every other
    territory belongs to ``rest`` with 1 army. Cards named in ``hands`` (card ids as
    in logs: territory ids or wild1/wild2) leave the draw pile; counts are derived.
    ``config`` (a rule set's) replaces ``players`` and ``options``; neutral seats
    follow the players."""
    from risktable.rules.record import card_index

    config = config or Config(players, options or Options())
    players = config.seats
    owners = [rest] * BOARD.size
    armies = [1] * BOARD.size
    for tid, (owner, n) in layout.items():
        owners[T(tid)] = owner
        armies[T(tid)] = n
    hand_tuples = [()] * players
    taken: set[int] = set()
    for p, cards in (hands or {}).items():
        idx = tuple(sorted(card_index(BOARD, c) for c in cards))
        hand_tuples[p] = idx
        taken.update(idx)
    s = new_game(config)
    return s._replace(
        phase=phase, player=player, owners=tuple(owners), armies=tuple(armies),
        counts=tuple(owners.count(p) for p in range(players)),
        hands=tuple(hand_tuples),
        to_place=(0,) * players, first_player=0, contenders=(),
        **{"turn": 1, "eliminated_by": (-1,) * players,
           "draw_pile": tuple(c for c in s.draw_pile if c not in taken), **fields},
    )
