"""A table's game as its data directory holds it: the enrolled deck, the table's seed, and
the session rebuilt from the journal (at start-up, after a referee's undo, for a new game).

Everything that replays must replay the same: bots and hub-drawn chance draw from the
table's seed (kept beside the journal), and the session is the fold of the journalled
actions, with the choice a seat was making restored from its last input.
"""

from __future__ import annotations

import dataclasses
import logging
import random
import secrets
from collections.abc import Callable, Mapping
from pathlib import Path

from risktable.cards.deck_file import DeckFileError, deck_path, load_deck
from risktable.config import TableConfig
from risktable.game_rules import describe
from risktable.journal import Journal
from risktable.rules import Config
from risktable.rules.board import SYMBOLS
from risktable.rules.bots import BOTS, Bot
from risktable.rules.decks import deck_cards, with_symbols
from risktable.table.session import TableSession

# The table service's own log: an operator follows one logger for everything it does.
log = logging.getLogger("risktable.service.table_service")

SEED_FILE = "bot-seed"


def load_card_uids(data_dir: Path, config: Config) -> dict[str, int]:
    """Enrolled NFC card UIDs of the deck in play to card indices (``risktable cards
    enroll``), or none yet."""
    deck = config.options.deck
    try:
        cards = load_deck(deck_path(data_dir, deck), config.board, deck)
    except DeckFileError as exc:
        raise ValueError(str(exc)) from exc
    return {uid: card.card for uid, card in cards.items()}


def with_enrolled_deck(config: Config, data_dir: Path, *, physical: bool = True) -> Config:
    """``config`` with what the enrolled deck in ``data_dir`` says is printed on its
    cards: a 1993 deck's symbols, a 2016 deck's stars. Until every territory card is
    enrolled the engine's placeholder stays, and for a 2016 deck played with
    ``physical`` cards that is said in the log (the printed stars decide trade values),
    never assumed quietly; with the hub keeping the hands the placeholder is the deck."""
    board = config.board
    deck = config.options.deck
    try:
        cards = load_deck(deck_path(data_dir, deck), board, deck)
    except DeckFileError:
        cards = {}
    printed = {c.card: c.printed for c in cards.values() if c.card < board.size}
    if len(printed) != board.size:
        if deck == "2016" and physical:
            log.warning("the 2016 deck is not enrolled (%d of %d territory cards): its stars "
                        "per card are the engine's placeholder, not your printed deck's; "
                        "run risktable cards enroll --deck 2016", len(printed), board.size)
        return config
    if deck == "2016":
        return dataclasses.replace(config, stars=tuple(printed[t] for t in range(board.size)))
    symbols = {board.territory_ids[t]: SYMBOLS[s] for t, s in printed.items()}
    return dataclasses.replace(config, board=with_symbols(board, symbols))


def chance_rng(seed: int, game: int, position: int) -> random.Random:
    """The RNG of the outcomes the hub draws itself (bots' dice and card draws, the
    secret mission deal) for ``game`` of a table seeded ``seed``, from a session built
    at record ``position``: a restart draws on deterministically, and anyone knowing
    the seed (a test's mirror session) draws the same."""
    return random.Random(f"{seed}:{game}:dice:{position}")


def table_seed(data_dir: Path) -> int:
    """The table's seed, drawn once and kept in ``data_dir``: bot moves and bot dice must
    replay the same after a restart, yet nobody at the table may predict them."""
    path = data_dir / SEED_FILE
    try:
        return int(path.read_text())
    except FileNotFoundError:
        seed = secrets.randbits(64)
        path.write_text(f"{seed}\n")
        return seed
    except ValueError as exc:
        raise ValueError(f"{path} is corrupt: {exc}") from exc


def configured_otherwise(journal: Journal, game: int, rules: Config,
                         table: TableConfig) -> str | None:
    """What to log when ``game``, carried on, is not what the configuration asks for
    (``rules``): restarting the hub never throws a game away, and a changed configuration
    applies only to the next game. None when they agree."""
    running = journal.config(game)
    if (running.players, running.options) == (rules.players, rules.options):
        return None
    return (f"table {table.id} carries on game {game} ({describe(running)}); the "
            f"configuration asks for {describe(rules, table.rules)}: `risktable games new` "
            "starts a game as configured")


def rebuild_session(journal: Journal, game: int, table: TableConfig, seed: int,
                    card_uids: Mapping[str, int], language: Callable[[int], str]
                    ) -> TableSession:
    """The session of ``game`` as its journal holds it: every action replayed, the bots the
    game was started with (else the table configuration's) seeded from ``seed``, each
    seat's screens in
    ``language(seat)``, and the choice in hand restored from the last input."""
    config, actions = journal.load(game)
    info = journal.game(game)
    # A game started with its own bots (games new --bot) keeps them; others follow the
    # configuration.
    chosen = table.bots if info.bots is None else info.bots
    # A game of fewer players seats no bot beyond them.
    names = {seat: name for seat, name in chosen.items() if seat <= config.players}
    bots: dict[int, Bot] = {
        seat: BOTS[name](random.Random(f"{seed}:{game}:bot{seat}").getrandbits(64))
        for seat, name in names.items()
    }
    # Bot dice and the mission deal: seeded by the position, so a restart rolls on
    # deterministically (what was dealt before is in the journal, never dealt again).
    dice = chance_rng(seed, game, len(actions))
    players = range(1, config.players + 1)
    session = TableSession(config, list(players), card_uids, bots=bots,
                           bot_names=names, dice=dice,
                           actions=actions, names=table.names,
                           hub_cards=info.cards == "hub",
                           languages={seat: language(seat) for seat in players},
                           coached=table.coach)
    last = journal.last_input(game)
    if last is not None and last[0] == len(actions):
        session.restore_ui(last[1])
    log.info("game %d: %d actions replayed", game, len(actions))
    return session


def deck_problem(session: TableSession, card_uids: Mapping[str, int]) -> str | None:
    """Why ``session``'s game does not start (its physical deck is not wholly enrolled in
    ``card_uids``) and the two ways out, in one line, or None; a game whose hub deals
    the cards takes none."""
    if session.hub_cards:
        return None
    missing = unenrolled(session.config, card_uids)
    if missing is None:
        return None
    return (f"{missing}: run risktable cards enroll, or play with cards = \"hub\" (games new "
            "--cards hub)")


def unenrolled(config: Config, card_uids: Mapping[str, int]) -> str | None:
    """``the 1993 deck is not enrolled (12 of 44 cards)`` when a game of ``config`` with
    physical cards cannot start with ``card_uids``, or None when it can."""
    deck = config.options.deck
    wanted = set(deck_cards(config.board, deck))
    known = wanted & set(card_uids.values())
    if known == wanted:
        return None
    return f"the {deck} deck is not enrolled ({len(known)} of {len(wanted)} cards)"
