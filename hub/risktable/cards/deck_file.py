"""The enrolled deck files in the hub's data directory.

Each maps a card's NFC UID (upper-case hex) to the card it is stuck on and
what is printed on that card that the engine's placeholder cannot know: the
symbol of a 1993 card (``cards.json``), the stars of a 2016 card
(``cards-2016.json``). A table may own both editions, so each deck has its own
file. A file is replaced atomically after every card, so a crash in the middle
of an enrollment loses nothing already tapped.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from risktable.rules.board import SYMBOLS, Board
from risktable.rules.record import card_id, card_index

FORMAT = "risktable-deck"
DECK_FILES = {"1993": "cards.json", "2016": "cards-2016.json"}
# What a 2016 card may carry: 1 or 2 stars on a territory card, none on the ceasefire card.
STAR_COUNTS = (0, 1, 2)


class DeckFileError(ValueError):
    """The deck file is unreadable or names cards this board does not have."""


@dataclass(frozen=True)
class EnrolledCard:
    """One tagged card: its engine index and what is printed on it.

    ``printed`` is the symbol (a ``SYMBOLS`` index) on a 1993 card and the number
    of stars on a 2016 card.
    """

    card: int
    printed: int


def deck_path(data_dir: Path, deck: str = "1993") -> Path:
    """Where the enrolled ``deck`` ("1993" or "2016") is kept."""
    return data_dir / DECK_FILES[deck]


def _printed(deck: str, entry: dict[str, object]) -> int:
    if deck == "1993":
        return SYMBOLS.index(str(entry["symbol"]))
    stars = entry["stars"]
    if not isinstance(stars, int) or isinstance(stars, bool) or stars not in STAR_COUNTS:
        raise ValueError(f"stars must be 0, 1 or 2, not {stars!r}")
    return stars


def load_deck(path: Path, board: Board, deck: str = "1993") -> dict[str, EnrolledCard]:
    """The enrolled cards of ``deck`` by UID; empty when nothing was enrolled yet."""
    try:
        doc = json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise DeckFileError(f"{path}: cannot read the enrolled deck: {exc}") from exc
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise DeckFileError(f"{path}: not a risktable deck file")
    # Files written before the 2016 deck could be enrolled name no deck: they are 1993 decks.
    if doc.get("deck", "1993") != deck:
        raise DeckFileError(f"{path}: holds the {doc.get('deck')} deck, not the {deck} deck")
    cards: dict[str, EnrolledCard] = {}
    try:
        for uid, entry in doc["cards"].items():
            cards[str(uid).upper()] = EnrolledCard(card_index(board, entry["card"]),
                                                   _printed(deck, entry))
    except (KeyError, TypeError, ValueError) as exc:
        raise DeckFileError(f"{path}: bad card entry: {exc}") from exc
    return cards


def save_deck(path: Path, board: Board, cards: dict[str, EnrolledCard],
              deck: str = "1993") -> None:
    """Write the deck file atomically (temporary file, fsync, rename)."""
    key = "symbol" if deck == "1993" else "stars"
    doc = {
        "format": FORMAT,
        "deck": deck,
        "board": board.name,
        "cards": {uid: {"card": card_id(board, c.card),
                        key: SYMBOLS[c.printed] if deck == "1993" else c.printed}
                  for uid, c in sorted(cards.items(), key=lambda kv: kv[1].card)},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w") as handle:
        json.dump(doc, handle, indent=1)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
