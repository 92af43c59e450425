"""Readable text of a state: a summary for tools and a board picture for golden files."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from risktable.rules.record import card_id, header
from risktable.rules.state import State


def summary(s: State) -> dict[str, Any]:
    """The state's headline figures, JSON-ready; with capital cards laid (rules version 2)
    also which card lies before each player (the capitals are public once revealed)."""
    board = s.config.board
    extra: dict[str, Any] = {}
    if s.laid:
        extra["capital_cards"] = [card_id(board, c) if c >= 0 else None for c in s.laid]
    return {
        "phase": s.phase_name,
        "turn": s.turn,
        "player": s.player,
        "winner": s.winner if s.is_terminal else None,
        "territories": list(s.counts),
        "armies": [sum(a for a, o in zip(s.armies, s.owners, strict=True) if o == p)
                   for p in range(s.config.seats)],
        "cards": [len(h) for h in s.hands],
        "sets_traded": s.sets_traded,
        "draw_pile": len(s.draw_pile),
        "discard": len(s.discard),
        "eliminated": [p for p in range(s.config.players)
                       if s.turn > 0 and s.counts[p] == 0],
        "options": s.config.options.as_dict(),
        "rules": s.config.rules,
        "board": board.name,
        **extra,
    }


def picture(s: State) -> str:
    """A multi-line board picture: every territory's owner and armies, by continent."""
    board = s.config.board
    ids = board.territory_ids
    lines = [f"phase {s.phase_name}, turn {s.turn}, player {s.player}, pool {s.pool}, "
             f"sets traded {s.sets_traded}"]
    if s.source >= 0:
        lines.append(f"battle {ids[s.source]} -> {ids[s.target]}, dice {s.attack_dice}"
                     f"/{s.defend_dice}, occupy min {s.occupy_min}")
    for c in board.continents:
        cells = []
        for t in c.territories:
            owner = "-" if s.owners[t] < 0 else str(s.owners[t])
            cells.append(f"{ids[t]}={owner}:{s.armies[t]}")
        lines.append(f"{c.id}: " + " ".join(cells))
    for p, hand in enumerate(s.hands):
        lines.append(f"hand {p}: " + (" ".join(card_id(board, c) for c in hand) or "-"))
    lines.append(f"draw pile {len(s.draw_pile)}, discard {len(s.discard)}")
    return "\n".join(lines)


def digest(s: State) -> str:
    """A short hash of every field of ``s`` (the config by its log header), so two states
    are told apart by a line in a golden file.

    >>> from risktable.rules import Config, new_game
    >>> len(digest(new_game(Config(3))))
    16
    """
    fields = {name: value for name, value in zip(s._fields, s, strict=True)
              if name != "config"}
    text = json.dumps({"config": header(s.config), **fields}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
