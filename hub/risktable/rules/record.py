"""The action log: a game as JSON Lines (see ``docs/action-log.md``).

Line 1 is a header naming the format, board, player count and options; every
further line is one action, territories and cards by their ids. Decoding a
line that is not an action of this game raises
:class:`~risktable.rules.errors.MalformedActionError`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

from risktable.rules.actions import (
    AcceptRoll,
    Action,
    Attack,
    ChooseCapital,
    Claim,
    Commander,
    DealCard,
    DealMission,
    Defend,
    DrawCard,
    EndAttack,
    EndTurn,
    Fortify,
    Occupy,
    OpeningRoll,
    Place,
    Reroll,
    RerollDie,
    Roll,
    Trade,
    TradeStars,
)
from risktable.rules.board import SYMBOLS, Board, classic_board
from risktable.rules.decks import MISSIONS, ceasefire_card, mission_index, with_symbols
from risktable.rules.errors import MalformedActionError
from risktable.rules.options import RULES_VERSION, RULES_VERSIONS, Config, Options

FORMAT = "risktable-action-log"
VERSION = 1
# A header without "rules" was written before rules versions existed: version 1.
UNVERSIONED_RULES = 1


def card_id(board: Board, card: int) -> str:
    """A card's id in logs: its territory id, ``wild1``, ``wild2``... or ``ceasefire``."""
    if card < board.size:
        return board.territory_ids[card]
    if card == ceasefire_card(board):
        return "ceasefire"
    return f"wild{card - board.size + 1}"


def card_index(board: Board, name: object) -> int:
    """Inverse of :func:`card_id`; malformed if unknown."""
    if isinstance(name, str):
        if name == "ceasefire":
            return ceasefire_card(board)
        if name.startswith("wild") and name[4:].isdigit():
            c = board.size + int(name[4:]) - 1
            if board.size <= c < board.deck_size:
                return c
        elif name in board.territory_ids:
            return board.index(name)
    raise MalformedActionError(f"unknown card {name!r}")


def _territory(board: Board, name: object) -> int:
    if isinstance(name, str) and name in board.territory_ids:
        return board.index(name)
    raise MalformedActionError(f"unknown territory {name!r}")


def _int(d: dict[str, Any], key: str) -> int:
    v = d.get(key)
    if type(v) is not int:
        raise MalformedActionError(f"field {key!r} must be an integer, not {v!r}")
    return v


def _ints(d: dict[str, Any], key: str) -> tuple[int, ...]:
    v = d.get(key)
    if not isinstance(v, list) or not all(type(x) is int for x in v):
        raise MalformedActionError(f"field {key!r} must be a list of integers, not {v!r}")
    return tuple(v)


def _set_of_three(board: Board, d: dict[str, Any], key: str) -> tuple[int, int, int]:
    cards = d.get(key)
    if not isinstance(cards, list) or len(cards) != 3:
        raise MalformedActionError(f"a trade names three cards, not {cards!r}")
    c0, c1, c2 = sorted(card_index(board, c) for c in cards)
    return c0, c1, c2


def _star_cards(board: Board, d: dict[str, Any], key: str) -> tuple[int, ...]:
    cards = d.get(key)
    if not isinstance(cards, list):
        raise MalformedActionError(f"a star trade names its cards, not {cards!r}")
    return tuple(sorted(card_index(board, c) for c in cards))


def _mission(d: dict[str, Any], key: str) -> int:
    name = d.get(key)
    try:
        return mission_index(str(name))
    except KeyError:
        raise MalformedActionError(f"unknown mission {name!r}") from None


class _Field(NamedTuple):
    """One field of an action in a log: its key, how its value is written (``write(board,
    value)``) and how it is read back (``read(board, line, key)``, raising
    ``MalformedActionError``)."""

    key: str
    write: Callable[[Board, Any], Any]
    read: Callable[[Board, dict[str, Any], str], Any]


def _number(key: str) -> _Field:
    return _Field(key, lambda board, n: n, lambda board, d, k: _int(d, k))


def _numbers(key: str) -> _Field:
    return _Field(key, lambda board, ns: list(ns), lambda board, d, k: _ints(d, k))


def _territory_field(key: str) -> _Field:
    return _Field(key, lambda board, t: board.territory_ids[t],
                  lambda board, d, k: _territory(board, d.get(k)))


def _card(key: str) -> _Field:
    return _Field(key, card_id, lambda board, d, k: card_index(board, d.get(k)))


def _cards(key: str, read: Callable[[Board, dict[str, Any], str], Any]) -> _Field:
    return _Field(key, lambda board, cards: [card_id(board, c) for c in cards], read)


_BONUS = _Field("bonus", lambda board, t: None if t is None else board.territory_ids[t],
                lambda board, d, k: None if d.get(k) is None else _territory(board, d.get(k)))

# Every action as a log writes it: its kind, then its fields in the action's order. The
# one table serves writing and reading, so each key and its form are stated once.
_FORMS: dict[type, tuple[str, tuple[_Field, ...]]] = {
    OpeningRoll: ("opening_roll", (_numbers("faces"),)),
    Claim: ("claim", (_territory_field("territory"),)),
    DealCard: ("deal", (_card("card"),)),
    Place: ("place", (_territory_field("territory"), _number("armies"))),
    Trade: ("trade", (_cards("cards", _set_of_three), _BONUS)),
    Attack: ("attack", (_territory_field("from"), _territory_field("to"), _number("dice"))),
    Defend: ("defend", (_number("dice"),)),
    Roll: ("roll", (_numbers("attack"), _numbers("defend"))),
    Occupy: ("occupy", (_number("armies"),)),
    EndAttack: ("end_attack", ()),
    Fortify: ("fortify", (_territory_field("from"), _territory_field("to"),
                          _number("armies"))),
    EndTurn: ("end_turn", ()),
    DrawCard: ("draw", (_card("card"),)),
    TradeStars: ("trade_stars", (_cards("cards", _star_cards),)),
    ChooseCapital: ("capital", (_territory_field("territory"),)),
    DealMission: ("mission", (_Field("mission", lambda board, m: MISSIONS[m].id,
                                     lambda board, d, k: _mission(d, k)),)),
    Reroll: ("reroll", (_number("die"),)),
    RerollDie: ("reroll_die", (_number("face"),)),
    Commander: ("commander", (_number("die"),)),
    AcceptRoll: ("accept_roll", ()),
}
_TYPES: dict[str, type] = {kind: cls for cls, (kind, _) in _FORMS.items()}


def encode_action(board: Board, a: Action) -> dict[str, Any]:
    """An action as a JSON-ready dict."""
    form = _FORMS.get(type(a))
    if form is None:
        raise MalformedActionError(f"not an action of this game: {a!r}")
    kind, fields = form
    line: dict[str, Any] = {"a": kind}
    for f, value in zip(fields, a, strict=True):
        line[f.key] = f.write(board, value)
    return line


def decode_action(board: Board, d: object) -> Action:
    """Inverse of :func:`encode_action`; raises ``MalformedActionError`` on anything else."""
    if not isinstance(d, dict):
        raise MalformedActionError(f"an action must be a JSON object, not {d!r}")
    kind = d.get("a")
    cls = _TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise MalformedActionError(f"unknown action kind {kind!r}")
    action: Action = cls(*(f.read(board, d, f.key) for f in _FORMS[cls][1]))
    return action


def header(config: Config) -> dict[str, Any]:
    """The first line of a log."""
    head: dict[str, Any] = {"format": FORMAT, "version": VERSION, "rules": config.rules,
                            "board": config.board.name, "players": config.players,
                            "options": config.options.as_dict()}
    board = config.board
    if board.card_symbols != classic_board().card_symbols:
        # An enrolled 1993 deck: its symbols are part of the game (trades depend on them).
        head["card_symbols"] = {board.territory_ids[t]: SYMBOLS[board.card_symbols[t]]
                                for t in range(board.size)}
    if config.stars is not None:
        # The 2016 deck's stars are data of the deck in play (enrolled, or the placeholder).
        head["two_star_cards"] = [config.board.territory_ids[t]
                                  for t, n in enumerate(config.stars) if n == 2]
    return head


def dumps(config: Config, actions: Iterable[Action]) -> str:
    """A whole log as JSON Lines text."""
    board = config.board
    lines = [json.dumps(header(config))]
    lines.extend(json.dumps(encode_action(board, a)) for a in actions)
    return "\n".join(lines) + "\n"


class LogFormatError(ValueError):
    """The log's header or a line is not valid JSON of the documented shape."""


@dataclass(frozen=True)
class ParsedLog:
    """A log read back: its config and its actions as raw JSON objects (decoded lazily)."""

    config: Config
    lines: list[object]

    def actions(self) -> Iterator[Action]:
        board = self.config.board
        for d in self.lines:
            yield decode_action(board, d)


def loads(text: str) -> ParsedLog:
    """Parse a log's text; raises :class:`LogFormatError` for a bad header or bad JSON."""
    raw = [line for line in text.splitlines() if line.strip()]
    if not raw:
        raise LogFormatError("the log is empty")
    try:
        head = json.loads(raw[0])
    except json.JSONDecodeError as exc:
        raise LogFormatError(f"line 1 is not JSON: {exc.msg}") from None
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        raise LogFormatError(f"line 1 is not a {FORMAT} header")
    if head.get("version") != VERSION:
        raise LogFormatError(f"log version {head.get('version')!r} is not supported "
                             f"(this engine reads version {VERSION})")
    if head.get("board") != "classic":
        raise LogFormatError(f"unknown board {head.get('board')!r}")
    rules = head.get("rules", UNVERSIONED_RULES)
    if type(rules) is not int or rules not in RULES_VERSIONS:
        newer = ": a newer risktable wrote it" if type(rules) is int and rules > RULES_VERSION \
            else ""
        raise LogFormatError(f"rules version {rules!r} is not one this engine plays "
                             f"(1 to {RULES_VERSION}){newer}")
    board = classic_board()
    try:
        if "card_symbols" in head:
            board = with_symbols(board, dict(head["card_symbols"]))
        options = Options(**head.get("options", {}))
        stars = None
        if "two_star_cards" in head:
            two = {board.index(t) for t in head["two_star_cards"]}
            stars = tuple(2 if t in two else 1 for t in range(board.size))
        config = Config(int(head["players"]), options, board, stars, rules)
    except (TypeError, ValueError, KeyError) as exc:
        raise LogFormatError(f"bad header: {exc}") from None
    lines: list[object] = []
    for n, line in enumerate(raw[1:], start=2):
        try:
            lines.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise LogFormatError(f"line {n} is not JSON: {exc.msg}") from None
    return ParsedLog(config, lines)
