"""The coach at the seat: what the hard bot would do now, for the seat that asks.

A person at a seat holds Confirm down (a long press) and their display shows, until
their next input or the next move, what :class:`~risktable.rules.bots.hard.HardBot`
would do in their place: where to place, what to attack and at what odds (the table's
own exact odds, :func:`~risktable.table.battle_odds.win_chance`), where to fortify,
which cards to trade. A hint is advice, never a move: it changes no state and is
never journalled.

The bot decides from :func:`~risktable.rules.bots.seat_view.seat_view` (what the seat
may see; the cards and missions it cannot see are sampled, never read), and so does
every step here: the follow-on decisions (an attack after the placement) are worked
out on that view. Its search is the hard bot's fixed budget of playouts, seeded by
:data:`COACH_SEED` and the position, so the same position gives the same hint on any
machine.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from riskproto.territories import TERRITORIES
from risktable.i18n import _, numbers
from risktable.rules.actions import (
    Action,
    Attack,
    ChooseCapital,
    Claim,
    Defend,
    EndAttack,
    EndTurn,
    Fortify,
    Occupy,
    Place,
    Trade,
    TradeStars,
)
from risktable.rules.bots.hard import HardBot
from risktable.rules.bots.seat_view import seat_view
from risktable.rules.engine import apply, current_actor
from risktable.rules.state import CHANCE_PHASES, GAME_OVER, State
from risktable.table import prompts
from risktable.table.battle_odds import win_chance

# The hard bot's seed for hints: any fixed number gives a hint that replays the same.
COACH_SEED = 32
# A hint looks this many decisions ahead at most (a trade, the placement, an attack).
_MOST = 3
# A seat's display holds this many lines of a view.
_LINES = 4


def is_hint_request(event: Mapping[str, Any]) -> bool:
    """True for the seat input that asks for a hint: Confirm held down (a long press).
    The knob's long press stays Confirm's (a seat with smart dice pairs dice with it),
    and Back's long press stays Back's."""
    return (event.get("kind") == "button" and event.get("button") == "confirm"
            and event.get("press") == "long")


class Advice:
    """The hard bot's decisions for ``player`` from ``state``, each with the state (as the
    seat sees it) it is made in: the next decision, and after a trade or a placement the
    ones that follow, up to the first that is neither (at most three). The list stops
    early at a chance outcome (dice, a card) or where another player must act."""

    def __init__(self, state: State, player: int) -> None:
        self.player = player
        bot = HardBot(COACH_SEED)
        view = seat_view(state, player)
        steps: list[tuple[State, Action]] = []
        while len(steps) < _MOST and view.phase not in CHANCE_PHASES \
                and view.phase != GAME_OVER and current_actor(view) == player:
            action = bot.choose(view)
            steps.append((view, action))
            if not isinstance(action, Trade | TradeStars | Place):
                break
            view = apply(view, action)[0]
        self.steps = tuple(steps)

    def lines(self) -> list[str]:
        """The hint as the seat's display shows it, in the context's language: the next
        decision, then what follows it as far as the display has room."""
        lines: list[str] = []
        for i, (before, action) in enumerate(self.steps):
            told = _told(before, action, first=not i)
            head = (_("Hint: {move}") if not i else _("Next: {move}")).format(move=told[0])
            told = [head, *told[1:]]
            if lines and len(lines) + len(told) > _LINES:
                # What follows a placement: its first lines, if any fit.
                told = told[:_LINES - len(lines)]
            lines += [prompts.fit(line) for line in told]
            if len(lines) >= _LINES:
                break
        return lines[:_LINES]

    def public(self, seat: int) -> dict[str, Any] | None:
        """The hint for the live board page (``scene.hint``, protocol/README.md): the next
        decision as territories and numbers, or None when it is a secret. What the seat
        keeps secret stays out: which cards it trades (only how many) and where it puts
        its capital. One decision only: a scene at its bounds has room for no more."""
        if not self.steps:
            return None
        move = _public_move(*self.steps[0])
        return None if move is None else {"seat": seat, **move}


def _told(before: State, action: Action, *, first: bool) -> list[str]:
    """Lines telling ``action`` as advice (the first line gets "Hint:" or "Next:")."""
    if isinstance(action, Attack):
        percent = numbers.percent(win_chance(before, action.source, action.target))
        lines = prompts.describe(before, action)
        if first:
            return [*lines, _("Battle odds {percent}").format(percent=percent)]
        # What follows a placement has two lines: the target, its source with the odds.
        # TRANSLATORS: "from Ukraine (78%)": where an attack starts, and its odds.
        return [lines[0], _("{source} ({percent})").format(source=lines[1], percent=percent)]
    if isinstance(action, Trade | TradeStars):
        cards = [prompts.card_label(before, c) for c in action.cards]
        return [*prompts.describe(before, action)[:1], *prompts.two_lines(cards)]
    if isinstance(action, ChooseCapital):
        # Secret: told on the seat's own display only.
        return [_("Capital: {territory}").format(
            territory=prompts.territory_name(before, action.territory))]
    if isinstance(action, EndAttack):
        return [_("End attacks?")]
    if isinstance(action, EndTurn):
        return [_("End the turn")]
    return prompts.describe(before, action)


def _public_move(before: State, action: Action) -> dict[str, Any] | None:
    ids = before.config.board.territory_ids

    def wire(t: int) -> int:
        return TERRITORIES.index(ids[t])

    if isinstance(action, Attack):
        return {"k": "attack", "from": wire(action.source), "to": wire(action.target)}
    if isinstance(action, Fortify):
        return {"k": "fortify", "from": wire(action.source), "to": wire(action.target),
                "n": min(999, action.armies)}
    if isinstance(action, Place):
        return {"k": "place", "to": wire(action.territory), "n": min(999, action.armies)}
    if isinstance(action, Claim):
        return {"k": "claim", "to": wire(action.territory)}
    if isinstance(action, Occupy):
        return {"k": "occupy", "from": wire(before.source), "to": wire(before.target),
                "n": min(999, action.armies)}
    if isinstance(action, Trade | TradeStars):
        return {"k": "trade", "n": len(action.cards)}
    if isinstance(action, Defend):
        return {"k": "defend", "n": action.dice}
    if isinstance(action, EndAttack):
        return {"k": "end_attack"}
    if isinstance(action, EndTurn):
        return {"k": "end_turn"}
    return None  # a capital (secret) or a held roll's choice: for the seat alone
