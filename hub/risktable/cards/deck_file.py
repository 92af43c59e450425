"""The enrolled deck file (``cards.json`` in the hub's data directory).

It maps each card's NFC UID (upper-case hex) to the card it is stuck on and
the symbol printed on that card, which the engine's placeholder symbols
cannot know. The file is replaced atomically after every card, so a crash
in the middle of an enrollment loses nothing already tapped.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from risktable.rules.board import SYMBOLS, Board
from risktable.rules.record import card_id, card_index

FILE_NAME = "cards.json"
FORMAT = "risktable-deck"


class DeckFileError(ValueError):
    """The deck file is unreadable or names cards this board does not have."""


@dataclass(frozen=True)
class EnrolledCard:
    """One tagged card: its engine index and printed symbol (``SYMBOLS`` index)."""

    card: int
    symbol: int


def deck_path(data_dir: Path) -> Path:
    return data_dir / FILE_NAME


def load_deck(path: Path, board: Board) -> dict[str, EnrolledCard]:
    """The enrolled cards by UID; empty when nothing was enrolled yet."""
    try:
        doc = json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise DeckFileError(f"{path}: cannot read the enrolled deck: {exc}") from exc
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise DeckFileError(f"{path}: not a risktable deck file")
    deck: dict[str, EnrolledCard] = {}
    try:
        for uid, entry in doc["cards"].items():
            deck[str(uid).upper()] = EnrolledCard(card_index(board, entry["card"]),
                                                  SYMBOLS.index(entry["symbol"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise DeckFileError(f"{path}: bad card entry: {exc}") from exc
    return deck


def save_deck(path: Path, board: Board, deck: dict[str, EnrolledCard]) -> None:
    """Write the deck file atomically (temporary file, fsync, rename)."""
    doc = {
        "format": FORMAT,
        "board": board.name,
        "cards": {uid: {"card": card_id(board, c.card), "symbol": SYMBOLS[c.symbol]}
                  for uid, c in sorted(deck.items(), key=lambda kv: kv[1].card)},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w") as handle:
        json.dump(doc, handle, indent=1)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
