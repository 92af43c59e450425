"""Per-observer views of a state: each seat sees its own secrets only, the public none.

The state holds every secret (hands, the draw pile's make-up, missions,
capitals before the reveal, the cards set aside for neutrals) because the
rules need them. Anything shown to a person goes through :func:`view`, which
keeps to what that observer may know: the board, counts, the traded cards
(they were shown), and their own hand, capital card, mission and capital.

>>> from risktable.rules import Config, new_game
>>> s = new_game(Config(3))._replace(hands=((0, 1), (5,), ()))
>>> view(s, 0)["hand"], view(s, 0)["cards_held"], "hand" in view(s, None)
(['alaska', 'northwest_territory'], [2, 1, 0], False)
"""

from __future__ import annotations

from typing import Any

from risktable.rules.decks import MISSIONS
from risktable.rules.goals import effective_mission
from risktable.rules.record import card_id
from risktable.rules.state import GAME_OVER, State

PUBLIC = None


def view(s: State, observer: int | None) -> dict[str, Any]:
    """What seat ``observer`` (or the public, ``None``) may see of ``s``, JSON-ready."""
    board = s.config.board
    ids = board.territory_ids
    players = s.config.players
    revealed = bool(s.capitals) and -1 not in s.capitals
    out: dict[str, Any] = {
        "phase": s.phase_name,
        "turn": s.turn,
        "player": s.player,
        "winner": s.winner if s.phase == GAME_OVER else None,
        "owners": {ids[t]: o for t, o in enumerate(s.owners)},
        "armies": {ids[t]: a for t, a in enumerate(s.armies)},
        "territories": list(s.counts),
        "cards_held": [len(h) for h in s.hands],
        "draw_pile": len(s.draw_pile) + len(s.reserve),
        "discard": [card_id(board, c) for c in s.discard],
        "sets_traded": s.sets_traded,
        "pool": s.pool,
        "neutral_pool": s.neutral_pool,
        "to_place": list(s.to_place),
        "battle": None if s.source < 0 else {
            "from": ids[s.source], "to": ids[s.target], "attack_dice": s.attack_dice,
            "defend_dice": s.defend_dice, "roll": [list(s.pending[0]), list(s.pending[1])]},
        "eliminated_by": list(s.eliminated_by),
        "capitals": [ids[t] if t >= 0 and (revealed or q == observer) else None
                     for q, t in enumerate(s.capitals)],
        "capitals_revealed": revealed,
        # Which players have a capital card lying face down before them (which card is
        # its holder's to know, like a card in hand).
        "capital_cards_laid": [c >= 0 for c in s.laid],
        "commander_used": s.commander_used,
        "observer": observer,
    }
    if observer is not None and 0 <= observer < players:
        out["hand"] = [card_id(board, c) for c in s.hands[observer]]
        if s.laid:
            laid = s.laid[observer]
            out["capital_card"] = card_id(board, laid) if laid >= 0 else None
        if s.missions and s.missions[observer] >= 0:
            out["mission"] = MISSIONS[s.missions[observer]].id
            out["mission_now"] = MISSIONS[effective_mission(s, observer)].id
    if s.missions and s.phase == GAME_OVER and s.winner >= 0:
        out["winner_mission"] = MISSIONS[s.missions[s.winner]].id  # revealed to win
    return out
