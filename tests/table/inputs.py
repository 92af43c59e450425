"""Seat events as a person makes them, and sessions started from hand-made positions."""

from __future__ import annotations

import random
from typing import Any

from riskproto import messages
from risktable.rules import Config, Defend, Options, State
from risktable.rules.bots import Bot, HeuristicBot
from risktable.rules.decks import deck_cards
from risktable.rules.state import DEFEND
from risktable.table.autopilot import Autopilot
from risktable.table.session import Outcome, TableSession
from tests.rules.scenario import BOARD, T


def uids_of(deck: str) -> dict[int, str]:
    """One enrolled NFC UID per card of ``deck`` (7-byte UIDs, upper-case hex); a card
    has the same UID in both decks."""
    return {c: f"04A1B2{c:08X}" for c in deck_cards(BOARD, deck)}


def cards_of(deck: str) -> dict[str, int]:
    """The enrolled cards of ``deck`` as a table session takes them: UID -> card."""
    return {uid: c for c, uid in uids_of(deck).items()}


# The 1993 deck's, which most tests play with.
UIDS: dict[int, str] = uids_of("1993")
CARDS: dict[str, int] = cards_of("1993")

_seq = [0]


def _event(seat: int, kind: str, **fields: Any) -> dict[str, Any]:
    _seq[0] += 1
    msg = messages.message("event", seat=seat, seq=_seq[0], kind=kind, **fields)
    return messages.validate(msg)


def turn(seat: int, steps: int) -> dict[str, Any]:
    return _event(seat, "encoder", steps=steps)


def confirm(seat: int) -> dict[str, Any]:
    return _event(seat, "button", button="confirm", press="short")


def back(seat: int) -> dict[str, Any]:
    return _event(seat, "button", button="back", press="short")


def tap(seat: int, card: str) -> dict[str, Any]:
    """Tap the card picturing territory ``card`` (or ``wild1``/``wild2``)."""
    index = BOARD.index(card) if card in BOARD.territory_ids else BOARD.size + int(card[4:]) - 1
    return _event(seat, "card", uid=UIDS[index])


def dice(seat: int, roll: int, *faces: int, state: str = "settled") -> dict[str, Any]:
    return _event(seat, "dice", roll=roll, dice=[
        {"id": f"d{i}", "face": f, "state": state} for i, f in enumerate(faces)])


def session_at(state: State, **kw: Any) -> TableSession:
    """A session of ``state``'s player count (seats 1..n) starting at ``state``."""
    players = state.config.players
    return TableSession(state.config, list(range(1, players + 1)),
                        cards_of(state.config.options.deck), start=state, **kw)


def new_session(players: int = 3, **options: Any) -> TableSession:
    config = Config(players, Options(**options))
    return TableSession(config, list(range(1, players + 1)), cards_of(config.options.deck))


def ok(table: TableSession, seat: int, event: dict[str, Any]) -> Outcome:
    """Handle ``event`` and require that it was accepted."""
    out = table.handle(seat, event)
    assert out.error is None, out.error
    return out


def refused(table: TableSession, seat: int, event: dict[str, Any], says: str = "") -> Outcome:
    """Handle ``event``, require a ``not_allowed`` refusal that changed nothing."""
    state, log, views, pick = table.state, table.log, {s: table.view(s) for s in table.seats}, \
        table.pick
    commands = {s: table.standing_commands(s) for s in table.seats}
    out = table.handle(seat, event)
    assert out.error is not None and out.error.code == "not_allowed", out
    assert says in str(out.error), str(out.error)
    assert not out.actions and not out.views and not out.commands and not out.retracted
    assert table.state == state and table.log == log and table.pick == pick
    assert {s: table.view(s) for s in table.seats} == views
    assert {s: table.standing_commands(s) for s in table.seats} == commands
    return out


def go_to(table: TableSession, seat: int, territory: str) -> None:
    """Turn the encoder until the cursor is on ``territory``."""
    menu = table.menu
    target = menu.choices.index(T(territory))
    ok(table, seat, turn(seat, target - menu.choices.index(menu.cursor)))
    assert table.menu.cursor == T(territory)


def armed(table: TableSession, seat: int) -> tuple[int, int]:
    """(roll, count) armed on ``seat``."""
    [(_, cmd)] = table.standing_commands(seat)
    return cmd["roll"], cmd["count"]


def autopiloted_table(config: Config, seed: int, bots: dict[int, Bot] | None = None,
                      dice: random.Random | None = None) -> tuple[TableSession, Autopilot]:
    """A table of ``config``'s players at seats 1..n; the autopilot plays every seat the
    session does not play itself (``bots``, whose dice come from ``dice``)."""
    players = config.players
    table = TableSession(config, list(range(1, players + 1)), CARDS, bots=bots, dice=dice)
    pilots: dict[int, Bot] = {seat: HeuristicBot(seed * 10 + seat) for seat in table.seats
                              if not table.is_bot(seat)}
    return table, Autopilot(table, pilots, UIDS, random.Random(seed))


def neutral_defence_by_seat_2(table: TableSession, attack: tuple[int, ...],
                              defence: tuple[int, ...]) -> Outcome:
    """Seat 1 attacks a neutral's Scandinavia from Ukraine with 3 dice; seat 2, the other
    player, chooses the neutral's 2 defence dice and rolls them on its own seat. Checks
    each step; returns the outcome of the roll."""
    go_to(table, 1, "ukraine")
    ok(table, 1, confirm(1))
    go_to(table, 1, "scandinavia")
    ok(table, 1, confirm(1))
    ok(table, 1, confirm(1))  # 3 dice
    assert table.state.phase == DEFEND and table.menu.player == 1  # player 1, at seat 2
    refused(table, 1, confirm(1), "wait for your turn")
    assert table.view(2)["lines"][0] == "Defend Scandinavia"
    out = ok(table, 2, confirm(2))
    assert out.actions == (Defend(2),)
    ok(table, 1, dice(1, armed(table, 1)[0], *attack))
    roll, count = armed(table, 2)
    assert count == 2
    return ok(table, 2, dice(2, roll, *defence))
