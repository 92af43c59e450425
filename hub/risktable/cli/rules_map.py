"""``risktable rules map``: the classic map's territories, continents, bonuses and borders."""

from __future__ import annotations

import argparse
import json
from typing import Any

from risktable.rules.board import SYMBOLS, classic_board


def register(sub: Any) -> None:
    """Add the ``map`` sub-command of ``rules``."""
    parser: argparse.ArgumentParser = sub.add_parser(
        "map", help="territories, continents, bonuses and borders of the classic map")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print the map."""
    board = classic_board()
    ids = board.territory_ids
    if args.json:
        doc = {
            "board": board.name,
            "continents": [
                {"id": c.id, "name": c.name, "bonus": c.bonus,
                 "territories": [ids[t] for t in c.territories]}
                for c in board.continents
            ],
            "territories": [
                {"id": ids[t], "name": board.territory_names[t],
                 "continent": board.continents[board.territory_continent[t]].id,
                 "card_symbol": SYMBOLS[board.card_symbols[t]],
                 "borders": [ids[n] for n in board.adjacency[t]]}
                for t in range(board.size)
            ],
            "borders": [[ids[a], ids[b]] for a, b in board.borders],
            "wild_cards": board.deck_size - board.size,
        }
        print(json.dumps(doc, indent=2))
        return 0
    print(f"{board.name} map: {board.size} territories, {len(board.continents)} continents, "
          f"{len(board.borders)} borders, {board.deck_size} cards")
    for c in board.continents:
        print(f"\n{c.name} (bonus {c.bonus}, {len(c.territories)} territories)")
        for t in c.territories:
            borders = ", ".join(ids[n] for n in board.adjacency[t])
            print(f"  {ids[t]:<22} {board.territory_names[t]:<22} "
                  f"[{SYMBOLS[board.card_symbols[t]]}] borders: {borders}")
    return 0
