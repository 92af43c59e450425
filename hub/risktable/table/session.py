"""The table session: seat inputs in, rules actions and what to show out.

:class:`TableSession` is pure: no I/O, no clock, no randomness of its own (a
bot seat's dice and the secret missions it deals come from the ``random.Random``
the caller passes). The hub feeds it every validated seat event with
:meth:`TableSession.handle` and gets an :class:`Outcome`: the rules actions to
journal (in order) before acknowledging, or a ``not_allowed`` error with nothing
changed; the views that changed; the commands to send; the territories the LED
board blinks.

Everything that matters lives in the rules state and the action record: the
session's own UI state (a cursor, a half-made choice, dice already read for a
roll still waiting for the other side) is disposable, so constructing a
session from the journalled actions after a crash brings every seat back to a
sensible screen, with the same roll numbers armed.

Bot seats are played by :meth:`TableSession.step_bots`, one move per call, so
each move is shown before the next; the caller calls it until it returns
``None`` after starting and after every handled input.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial
from typing import Any

from riskproto import messages
from riskproto.messages import E_NOT_ALLOWED, ProtocolError
from risktable import i18n
from risktable.i18n import _
from risktable.rules import turn
from risktable.rules.actions import (
    END_ATTACK,
    END_TURN,
    AcceptRoll,
    Action,
    Attack,
    ChooseCapital,
    Claim,
    Commander,
    DealCard,
    Defend,
    DrawCard,
    Fortify,
    Occupy,
    Place,
    Reroll,
    Roll,
    Trade,
    TradeStars,
)
from risktable.rules.bots import Bot
from risktable.rules.cards import is_set
from risktable.rules.decks import STAR_VALUES, deck_cards
from risktable.rules.engine import apply, chance_outcomes, current_actor, new_game
from risktable.rules.errors import RulesError
from risktable.rules.events import CapitalCardPassed, DiceRolled, Event, TurnStarted
from risktable.rules.odds import battle
from risktable.rules.options import Config
from risktable.rules.state import (
    ASIDE,
    CAPITAL,
    CHANCE_PHASES,
    DEAL,
    DRAW,
    GAME_OVER,
    MISSION_DEAL,
    MODIFY,
    NEUTRAL,
    REINFORCE,
    REROLL,
    ROLL,
    State,
)
from risktable.table import menus, prompts
from risktable.table.dice import Side, chance_action, sides
from risktable.table.menus import DONE, NONE, Menu, Pick, menu_for, still_valid
from risktable.table.public import Fact, Highlight, protocol_phase, public_facts

Command = tuple[int, dict[str, Any]]

_DECISION_STAGES = (menus.TERRITORY_STAGES | menus.NUMBER_STAGES | menus.CHOICE_STAGES
                    | {menus.MUST_TRADE})
# The battle's phases after the dice are in: the roll may still be held and changed.
_ROLLED = frozenset({ROLL, MODIFY, REROLL})
_TURN_BEEP_MS = 120
# Chance phases whose card is a DealCard (a dealt territory, a 2016 neutral's card set aside).
_DEALT = frozenset({DEAL, ASIDE})
_CARD_PHASES = frozenset({DEAL, DRAW, ASIDE})
_MAX_DETAIL = 120
# The attacker's questions that follow a roll: they begin with the battle's result.
_AFTER_ROLL = frozenset({menus.ATTACK_FROM, menus.ATTACK_TO, menus.ATTACK_DICE,
                         menus.OCCUPY_ARMIES})
# Their line naming the source, dropped for the result's line (the LED board shows it).
_SOURCE_LINE = {menus.ATTACK_DICE: 1, menus.OCCUPY_ARMIES: 2}
# The public scene's odds are worked out up to this many armies a side (a battle of
# 200 against 200 takes milliseconds; 999 against 999 a fifth of a second).
ODDS_ARMY_LIMIT = 200
# The public facts a session keeps for the scene's last events.
_FACTS_KEPT = 6


@dataclass(frozen=True)
class Outcome:
    """What one input (or one bot move) did.

    ``actions`` are the accepted rules actions in order, chance outcomes
    included; the caller journals them before acknowledging the input.
    ``retracted`` counts actions taken back from the end of the record first
    (Back undoing a placement): the journal drops them too. ``error`` is set
    when the input was refused, and then nothing else changed. ``views`` maps
    each seat whose view changed to its view fields (``active``, ``phase``,
    ``lines``, ``ring``); ``commands`` are ``(seat, cmd message)`` pairs to
    send in order; ``highlight`` is the whole set of territory ids the LED
    board blinks now; ``events`` are the rules events of ``actions``;
    ``dice`` are the accepted readings as ``(die id, face)`` for per-die statistics.
    """

    actions: tuple[Action, ...] = ()
    retracted: int = 0
    error: ProtocolError | None = None
    views: Mapping[int, dict[str, Any]] = field(default_factory=dict)
    commands: tuple[Command, ...] = ()
    highlight: frozenset[str] = frozenset()
    events: tuple[Event, ...] = ()
    dice: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class Checkpoint:
    """What a session was before an input or bot move (:meth:`TableSession.checkpoint`)."""

    state: State
    log_length: int
    undo: tuple[State, ...]
    pick: Pick
    faces: tuple[tuple[int, tuple[int, ...]], ...]
    battle_at: int
    last: Told
    last_by: int
    result: Callable[[], str]
    marks: frozenset[int]
    handed: tuple[tuple[int, int, int], ...]
    views: tuple[tuple[int, dict[str, Any]], ...]
    highlight: frozenset[str]
    dice: Any  # random.Random.getstate()
    drawn: tuple[int, int] | None = None
    facts: tuple[Fact, ...] = ()


class _Refused(Exception):
    def __init__(self, detail: str, code: str = E_NOT_ALLOWED) -> None:
        super().__init__(detail)
        self.detail = detail
        self.code = code


@lru_cache(maxsize=4096)
def _win(attackers: int, defenders: int, defend_limit: int) -> float:
    # defend_limit: the rule set's defence dice (house rule `defence_dice = 3`).
    return float(battle(attackers, defenders, defend_limit=defend_limit).attacker_wins)


class TableSession:
    """One game at one table, driven by seat inputs.

    ``seats`` lists the seat numbers (1..6) in player order: engine player
    ``p`` sits at ``seats[p]``. ``card_uids`` maps enrolled NFC card UIDs
    (upper-case hex) to the engine's card indices. ``bots`` maps seat numbers
    to bots the session plays for, with their dice drawn from ``dice``, as are
    the secret missions the session deals (``goal = missions``).
    ``actions`` is a journal to replay (a restart); ``start`` a position to
    begin from instead of a new game (scenario tests). ``names`` maps seat
    numbers to players' names for the screens ("Ana to play"); a seat without
    one is "Seat n". With ``hub_cards`` the table has no physical cards: the
    session deals and draws every card itself, as it does a bot's (from ``dice``),
    shows each seat its own hand, and trades are chosen from a menu.

    >>> from risktable.rules import Config
    >>> table = TableSession(Config(players=3), [1, 2, 3], {})
    >>> sorted(table.standing_commands(2)[0][1].items())
    [('cmd', 'arm_dice'), ('count', 1), ('roll', 2), ('t', 'cmd'), ('v', 1)]
    """

    def __init__(
        self,
        config: Config,
        seats: Sequence[int],
        card_uids: Mapping[str, int],
        *,
        bots: Mapping[int, Bot] | None = None,
        dice: random.Random | None = None,
        actions: Iterable[Action] = (),
        start: State | None = None,
        names: Mapping[int, str] | None = None,
        hub_cards: bool = False,
        languages: Mapping[int, str] | None = None,
    ) -> None:
        self.config = config
        self.hub_cards = hub_cards
        self.seats = tuple(seats)
        # How the screens call each seat's player: its name, or "Seat n".
        self._given = {seat: name for seat, name in (names or {}).items() if name}
        # Each seat's language (risktable.i18n): its screens are written in it.
        self._languages = {seat: i18n.check_language(lang)
                           for seat, lang in (languages or {}).items()}
        self._offline: frozenset[int] = frozenset()
        if len(self.seats) != config.players or len(set(self.seats)) != len(self.seats) \
                or not all(1 <= s <= 6 for s in self.seats):
            raise ValueError(f"{config.players} distinct seats 1..6 are needed, not {seats!r}")
        self._player_of = {seat: p for p, seat in enumerate(self.seats)}
        deck = deck_cards(config.board, config.options.deck)
        self._cards: dict[str, int] = {}
        for uid, card in card_uids.items():
            if card not in deck or card in self._cards.values():
                raise ValueError(f"card {card} of uid {uid} is not a distinct card of the "
                                 f"{config.options.deck} deck")
            self._cards[uid.upper()] = card
        self._bots = {self._player_of[seat]: bot for seat, bot in (bots or {}).items()}
        if self._bots and dice is None:
            raise ValueError("bot seats need a dice source")
        self._dice = dice or random.Random(0)
        self._state = start if start is not None else new_game(config)
        self._log: list[Action] = []
        self._undo: list[State] = []
        self._battle_at = -1
        self._pick = Pick()
        self._faces: dict[int, tuple[int, ...]] = {}
        # What happened last, written when a seat's screen is (in that seat's language).
        self._last: Told = _nothing
        # Who did what _last describes (a player; -1: no one, e.g. dice), and the line the
        # attacker reads about the roll just decided (until their next decision).
        self._last_by = -1
        self._result: Callable[[], str] = _no_result
        # Capital cards the last action handed to a captor: (captor, owner, card).
        self._handed: tuple[tuple[int, int, int], ...] = ()
        self._marks: frozenset[int] = frozenset()
        self._readings: tuple[tuple[str, int], ...] = ()
        # The hub-drawn card its receiver is told of (player, card), just after the draw.
        self._drawn: tuple[int, int] | None = None
        # The last public facts (conquests, losses, trades...) for the public scene.
        self._facts: tuple[Fact, ...] = ()
        # The menu of (state, pick), computed once: every view asks for it.
        self._menu: tuple[State, Pick, Menu] | None = None
        for i, a in enumerate(actions):
            try:
                self._apply(a, [], [])
            except _Refused as exc:
                raise ValueError(f"journal action {i + 1} ({a!r}): {exc.detail}") from None
        self._pick = Pick()
        self._views = {seat: self._view(seat) for seat in self.seats}
        self._highlight = self._compute_highlight()
        # After handle(views=False): the views and highlight wait for with_views().
        # _unsent: seats whose view changed since an outcome last reported it.
        self._views_due = False
        self._unsent: set[int] = set()

    # --- what the hub reads -------------------------------------------------

    @property
    def state(self) -> State:
        """The current rules state."""
        return self._state

    @property
    def log(self) -> list[Action]:
        """Every accepted action so far, in order (a copy)."""
        return list(self._log)

    @property
    def highlight(self) -> frozenset[str]:
        """Territory ids the LED board blinks now."""
        self._catch_up()
        return self._highlight

    def scene(self) -> tuple[Highlight, tuple[Fact, ...]]:
        """What the public scene shows now: the LED board's highlight taken apart
        (cursor, targets, battle, with the odds of the attack being considered) and
        the last public facts, oldest first."""
        self._catch_up()
        return self._highlight_parts(with_odds=True), self._facts

    @property
    def menu(self) -> Menu:
        """The question the game is waiting on (who answers it and the choices)."""
        # States and picks are immutable: the same two objects have the same menu.
        cached = self._menu
        if cached is not None and cached[0] is self._state and cached[1] is self._pick:
            return cached[2]
        menu = menu_for(self._state, self._pick, self.hub_cards)
        self._menu = (self._state, self._pick, menu)
        return menu

    @property
    def pick(self) -> Pick:
        """The acting seat's half-made choice."""
        return self._pick

    def view(self, seat: int) -> dict[str, Any]:
        """The current view fields of ``seat``."""
        self._catch_up()
        return dict(self._views[seat])

    def standing_commands(self, seat: int) -> list[Command]:
        """Commands still in force for ``seat`` (its armed roll), to re-send after a resync."""
        return [(s, self._arm(side)) for s, side in self._armed() if s == seat]

    def name(self, seat: int) -> str:
        """How the screens call the player at ``seat`` (in the context's language): its
        name, or "Seat n"."""
        given = self._given.get(seat)
        return given if given else _("Seat {n}").format(n=seat)

    def language(self, seat: int) -> str:
        """The language ``seat``'s screens are written in."""
        return self._languages.get(seat, i18n.DEFAULT)

    def set_language(self, seat: int, lang: str) -> Outcome:
        """Write ``seat``'s screens in ``lang`` from now on (its birth says which); returns
        the view that changed."""
        self._catch_up()
        if self._languages.get(seat, i18n.DEFAULT) == i18n.check_language(lang):
            return Outcome(highlight=self._highlight)
        self._languages[seat] = lang
        return self._finish([], [], [], 0)

    def set_offline(self, seats: Iterable[int]) -> Outcome:
        """Tell the session which of its seats are offline now (bots never are): the
        other seats' screens say so. Returns the views that changed, nothing else."""
        self._catch_up()
        offline = frozenset(s for s in seats if s in self._player_of and not self.is_bot(s))
        if offline == self._offline:
            return Outcome(highlight=self._highlight)
        self._offline = offline
        return self._finish([], [], [], 0)

    def is_bot(self, seat: int) -> bool:
        """True when the session plays ``seat`` itself."""
        return self._player_of.get(seat, -1) in self._bots

    def ui_state(self) -> dict[str, Any]:
        """The choice state that is not part of the rules state, JSON-ready: the
        cursor, the half-made choice and dice read while the other side's are due.
        The hub journals it with every input and restores it after a restart."""
        p = self._pick
        return {
            "at": p.at, "source": p.source, "target": p.target, "number": p.number,
            "cards": list(p.cards), "trade": list(p.trade) if p.trade else None,
            "kept": p.kept,
            "faces": {str(player): list(f) for player, f in self._faces.items()},
        }

    def restore_ui(self, ui: Mapping[str, Any]) -> None:
        """Bring back a :meth:`ui_state` taken at the current rules state."""
        trade = ui.get("trade")
        self._pick = Pick(
            at=int(ui["at"]), source=int(ui["source"]), target=int(ui["target"]),
            number=int(ui["number"]), cards=tuple(int(c) for c in ui["cards"]),
            trade=(int(trade[0]), int(trade[1]), int(trade[2])) if trade else None,
            kept=bool(ui.get("kept", False)),
        )
        self._faces = {int(k): tuple(int(f) for f in v) for k, v in ui["faces"].items()}
        self._views = {seat: self._view(seat) for seat in self.seats}
        self._highlight = self._compute_highlight()
        self._views_due = False

    def checkpoint(self) -> Checkpoint:
        """The session as it is now, for :meth:`rollback`: cheap (no copy of the
        game's log), so it can be taken before every input."""
        self._catch_up()
        return Checkpoint(self._state, len(self._log), tuple(self._undo), self._pick,
                          tuple(self._faces.items()), self._battle_at, self._last,
                          self._last_by, self._result, self._marks, self._handed,
                          tuple(self._views.items()), self._highlight,
                          self._dice.getstate(), self._drawn, self._facts)

    def rollback(self, checkpoint: Checkpoint) -> None:
        """Go back to ``checkpoint``, taken on this session since its last rollback
        to an older one: what a refused input or an unjournalled move changed
        (rules state, log, choice, views, the RNG of its draws) is undone."""
        c = checkpoint
        self._state, self._pick, self._battle_at = c.state, c.pick, c.battle_at
        self._marks, self._handed = c.marks, c.handed
        del self._log[c.log_length:]
        self._undo = list(c.undo)
        self._faces = dict(c.faces)
        self._last = c.last
        self._last_by, self._result = c.last_by, c.result
        self._views = dict(c.views)
        self._highlight = c.highlight
        # The checkpoint's views are those of its state; seats still in _unsent are
        # reported again by the next outcome, which costs a repeat at most.
        self._views_due = False
        self._dice.setstate(c.dice)
        self._drawn = c.drawn
        self._facts = c.facts
        self._readings = ()

    # --- inputs -------------------------------------------------------------

    def handle(self, seat: int, event: Mapping[str, Any], *, views: bool = True) -> Outcome:
        """Apply one seat event (an ``event`` message, already validated by the gate).

        Never raises for bad input: a refused event returns an :class:`Outcome`
        whose ``error`` says why, and nothing changed.

        With ``views=False`` the seats' views and the LED highlight are not worked
        out yet: the outcome has no ``views`` and the previous ``highlight``, and
        :meth:`with_views` completes it. The hub journals and acknowledges the input
        in between, so the ack does not wait for six seats' screens; what reads the
        session in the meantime (:meth:`checkpoint`, :meth:`view`, another input)
        catches the views up first, and no view change goes unreported.
        """
        saved = self.checkpoint()
        armed = self._armed()
        actions: list[Action] = []
        events: list[Event] = []
        retracted = 0
        self._readings = ()
        try:
            with i18n.using(self.language(seat)):  # a refusal is told to this seat
                retracted = self._dispatch(seat, event, actions, events)
            self._hub_chance(actions, events)
        except _Refused as refusal:
            self.rollback(saved)
            return Outcome(error=ProtocolError(refusal.code, refusal.detail[:_MAX_DETAIL]),
                           highlight=self._highlight)
        resync = event.get("kind") == "resync"
        outcome = self._finish(armed, actions, events, retracted, views=views or resync)
        if resync:
            shown = dict(outcome.views)
            shown[seat] = self.view(seat)
            outcome = replace(outcome, views=shown,
                              commands=outcome.commands + tuple(self.standing_commands(seat)))
        return outcome

    def with_views(self, outcome: Outcome) -> Outcome:
        """``outcome`` of :meth:`handle` with ``views=False``, completed with the views
        that changed and the highlight now (also those changed since, if any)."""
        self._catch_up()
        return replace(outcome, views=self._take_unsent(), highlight=self._highlight)

    def step_bots(self) -> Outcome | None:
        """Play one bot move (or roll a bot's dice, draw its card, or deal the missions of a
        session begun at the deal); ``None`` if none is due."""
        self._catch_up()
        s = self._state
        if s.phase == GAME_OVER:
            return None
        armed = self._armed()
        actions: list[Action] = []
        events: list[Event] = []
        menu = self.menu
        if s.phase == MISSION_DEAL or (self.hub_cards and s.phase in _CARD_PHASES):
            # Only a session begun at the deal or a draw (a journal or a position ending
            # there) waits here: otherwise the input or move that reached it dealt them.
            self._hub_chance(actions, events)
        elif menu.stage in _DECISION_STAGES and menu.player in self._bots:
            choice = self._bots[menu.player].choose(s)
            try:
                self._apply(choice, actions, events)
            except _Refused as exc:
                seat = self.seats[menu.player]
                raise ValueError(f"the bot of seat {seat} chose {choice!r}: {exc.detail}") from None
        elif menu.stage == menus.CARD and menu.player in self._bots:
            self._draw_card(actions, events)
        else:
            due = [side for side in self._sides() if side.player in self._bots]
            if not due:
                return None
            for side in due:
                self._faces[side.player] = tuple(self._dice.randint(1, 6)
                                                 for _ in range(side.count))
            self._resolve(actions, events)
        self._hub_chance(actions, events)
        return self._finish(armed, actions, events, 0)

    # --- dispatch -----------------------------------------------------------

    def _dispatch(self, seat: int, event: Mapping[str, Any], actions: list[Action],
                  events: list[Event]) -> int:
        if seat not in self._player_of:
            raise _Refused(_("Seat {n} does not play in this game").format(n=seat),
                           messages.E_UNKNOWN_SEAT)
        kind = event.get("kind")
        if kind == "resync":
            return 0
        player = self._player_of[seat]
        if player in self._bots:
            raise _Refused(_("A bot plays this seat: it takes no input"))
        if kind == "dice":
            self._dice_event(player, event, actions, events)
            return 0
        if kind == "card":
            if self.hub_cards:
                raise _Refused(_("This game deals no physical cards"))
            uid = event.get("uid")
            if not isinstance(uid, str):
                raise _Refused(_("The card was not read: tap it again"), messages.E_SCHEMA)
            self._card_event(player, uid.upper(), actions, events)
            return 0
        menu = self.menu
        if menu.player != player or menu.stage not in _DECISION_STAGES:
            raise _Refused(self._not_now(seat))
        if kind == "encoder":
            steps = event.get("steps")
            if type(steps) is not int:
                raise _Refused(_("The knob was misread: turn it again"), messages.E_SCHEMA)
            self._turn(menu, steps)
            return 0
        if kind == "button":
            button = event.get("button")
            if button in ("confirm", "encoder"):
                self._confirm(menu, actions, events)
                return 0
            if button == "back":
                return self._back(menu)
            if button == "roll":
                raise _Refused(_("No dice to roll now: the Roll button waits for a battle"))
            raise _Refused(_("This seat sent an unknown button"), messages.E_SCHEMA)
        raise _Refused(_("This seat sent an unknown input"), messages.E_SCHEMA)

    def _not_now(self, seat: int) -> str:
        menu = self.menu
        if menu.stage == menus.OVER:
            return _("The game is over")
        if menu.stage == menus.DICE:
            return _("Waiting for the dice: nothing to choose now")
        if menu.stage == menus.MISSIONS_STAGE:
            return _("The hub is dealing the missions: wait")
        acting = self.name(self.seats[menu.player])
        if menu.stage == menus.CARD:
            return _("{who} must tap a card first").format(who=acting)
        return _("{who} is playing: wait for your turn").format(who=acting)

    def _turn(self, menu: Menu, steps: int) -> None:
        if menu.is_territory:
            i = menu.choices.index(menu.cursor)
            at = menu.choices[(i + steps) % len(menu.choices)]
            self._pick = replace(self._pick, at=at)
        elif menu.is_number:
            value = max(menu.low, min(menu.high, menu.value + steps))
            self._pick = replace(self._pick, number=value)
        elif menu.is_choice:
            self._pick = replace(self._pick, number=(menu.value + steps) % (menu.high + 1))
        elif self._state.config.stars is not None:
            raise _Refused(_("Nothing to turn: tap cards worth 2 to 10 stars to trade"))
        else:
            raise _Refused(_("Nothing to turn: tap 3 cards to trade"))

    def _confirm(self, menu: Menu, actions: list[Action], events: list[Event]) -> None:
        stage = menu.stage
        at = menu.cursor
        pick = self._pick
        action: Action
        if menu.options and stage in (menus.TRADE_STAGE, menus.MUST_TRADE):
            if menu.keeps:
                self._pick = replace(pick, kept=True, number=0)
                return
            chosen = menu.options[menu.value]
            if isinstance(chosen, Trade):
                self._trade_set(chosen.cards, (), actions, events)
                return
            action = chosen
        elif self._state.config.stars is not None and stage in (menus.PLACE, menus.MUST_TRADE) \
                and (pick.cards or stage == menus.MUST_TRADE):
            # With star cards Confirm trades the tapped cards: any number of them may add
            # up to a trade, so no tap can tell that the choice is complete.
            action = self._star_trade(pick.cards)
        elif stage == menus.CLAIM_STAGE:
            action = Claim(at)
        elif stage == menus.CAPITAL_STAGE:
            action = ChooseCapital(at)
        elif stage in (menus.SETUP_PLACE_STAGE, menus.PLACE, menus.NEUTRAL_STAGE):
            action = Place(at)
        elif stage == menus.BONUS and pick.trade is not None:
            action = Trade(pick.trade, at)
        elif stage == menus.ATTACK_FROM or stage == menus.FORTIFY_FROM:
            if at == DONE:
                action = END_ATTACK if stage == menus.ATTACK_FROM else END_TURN
            else:
                self._pick = replace(pick, source=at, target=NONE, number=0)
                return
        elif stage == menus.ATTACK_TO or stage == menus.FORTIFY_TO:
            self._pick = replace(pick, target=at, number=0)
            return
        elif stage == menus.ATTACK_DICE:
            action = Attack(pick.source, pick.target, menu.value)
        elif stage == menus.DEFEND_DICE:
            action = Defend(menu.value)
        elif stage == menus.OCCUPY_ARMIES:
            action = Occupy(menu.value)
        elif stage == menus.FORTIFY_ARMIES:
            action = Fortify(pick.source, pick.target, menu.value)
        elif stage == menus.MODIFY_STAGE:
            action = menu.options[menu.value]
        else:
            raise _Refused(_("Tap 3 cards that form a set first"))
        self._apply(action, actions, events)

    def _back(self, menu: Menu) -> int:
        stage = menu.stage
        pick = self._pick
        if stage in (menus.ATTACK_TO, menus.FORTIFY_TO):
            self._pick = replace(pick, at=pick.source, source=NONE)
        elif stage in (menus.ATTACK_DICE, menus.FORTIFY_ARMIES):
            self._pick = replace(pick, at=pick.target, target=NONE, number=0)
        elif stage == menus.BONUS:
            self._pick = replace(pick, trade=None, cards=())
        elif stage in (menus.PLACE, menus.MUST_TRADE) and pick.cards:
            self._pick = replace(pick, cards=pick.cards[:-1])
        elif stage in (menus.PLACE, menus.ATTACK_FROM) and self._undo:
            # Undo = the rules state before the last placement: no inverse actions needed.
            self._state = self._undo.pop()
            self._log.pop()
            self._last = _army_taken_back
            self._last_by = menu.player
            return 1
        elif stage == menus.PLACE and pick.kept:
            self._pick = replace(pick, kept=False, number=0)  # back to the trade menu
        elif stage == menus.MODIFY_STAGE:
            # The dice are read and the attack declared: only the choices change the roll.
            raise _Refused(_("The roll stands: accept it or change it"))
        else:
            raise _Refused(_("Nothing to take back now"))
        return 0

    def _card_event(self, player: int, uid: str, actions: list[Action],
                    events: list[Event]) -> None:
        card = self._cards.get(uid)
        if card is None:
            raise _Refused(_("This card is not enrolled at this table"))
        s = self._state
        menu = self.menu
        if menu.stage == menus.CARD:
            if menu.player != player:
                raise _Refused(_("{who} taps a card now, not you").format(
                    who=self.name(self.seats[menu.player])))
            if card in s.laid:
                owner = self.name(self.seats[s.laid.index(card)])
                raise _Refused(_("That is {owner}'s capital card: draw from the pile").format(
                    owner=owner))
            if card not in s.draw_pile:
                raise _Refused(_("That card is not in the pile: draw from the pile"))
            self._apply(DealCard(card) if s.phase in _DEALT else DrawCard(card), actions, events)
            return
        if s.phase != REINFORCE or menu.player != player or menu.stage == menus.BONUS:
            raise _Refused(_("No card is wanted now"))
        if not turn.trade_allowed(s):
            raise _Refused(_("After a conquest, trade only to get down to 4 cards"))
        if card in s.laid:
            raise _Refused(_("A capital card lying by its owner is in no hand: keep it there"))
        if card not in s.hands[player]:
            raise _Refused(_("You do not hold that card"))
        pick = self._pick
        if card in pick.cards:
            self._pick = replace(pick, cards=tuple(c for c in pick.cards if c != card))
            return
        chosen = (*pick.cards, card)
        if s.config.stars is not None:
            if card >= s.config.board.size:
                raise _Refused(_("Only territory cards are traded for stars"))
            self._pick = replace(pick, cards=chosen)
            return
        if len(chosen) < 3:
            self._pick = replace(pick, cards=chosen)
            return
        symbols = s.config.board.card_symbols
        if not is_set((symbols[chosen[0]], symbols[chosen[1]], symbols[chosen[2]])):
            raise _Refused(_("These 3 cards are not a set: tap another card"))
        a, b, c = sorted(chosen)
        trio = (a, b, c)
        if not turn.keeps_second_set(s, trio):
            # Said at the third tap, before any +2 territory is asked for.
            raise _Refused(_("Trade a set that leaves your other set whole"))
        self._trade_set(trio, chosen, actions, events)

    def _trade_set(self, trio: tuple[int, int, int], tapped: tuple[int, ...],
                   actions: list[Action], events: list[Event]) -> None:
        """Trade the set ``trio`` (tapped or chosen from the menu), or first ask for its +2
        territory when the rules let the player choose one."""
        choices = turn.bonus_choices(self._state, trio)
        if len(choices) > 1:
            self._pick = replace(self._pick, cards=tapped, trade=trio, at=choices[0])
            return
        self._apply(Trade(trio, choices[0] if choices else None), actions, events)

    def _star_trade(self, cards: tuple[int, ...]) -> TradeStars:
        if not cards:
            raise _Refused(_("Tap cards worth 2 to 10 stars, then press to trade"))
        total = turn.stars_of(self._state, cards)
        if total not in STAR_VALUES:
            raise _Refused(_("{worth}: tap cards worth 2 to 10 stars").format(
                worth=prompts.star_worth(self._state, cards)))
        return TradeStars(tuple(sorted(cards)))

    def _dice_event(self, player: int, event: Mapping[str, Any], actions: list[Action],
                    events: list[Event]) -> None:
        side = next((x for x in self._sides() if x.player == player), None)
        if side is None:
            raise _Refused(_("No dice are wanted from you now"))
        roll = event.get("roll")
        if roll != side.roll or type(roll) is not int:
            raise _Refused(_("Those dice were for another roll: roll again"))
        dice = event.get("dice")
        if not isinstance(dice, list) or not all(
                isinstance(d, Mapping) and type(d.get("face")) is int and 1 <= d["face"] <= 6
                for d in dice):
            raise _Refused(_("A die was misread: roll again"), messages.E_SCHEMA)
        if len(dice) != side.count:
            raise _Refused(i18n.ngettext("Roll {n} die, not {read}", "Roll {n} dice, not {read}",
                                         side.count).format(n=side.count, read=len(dice)))
        states = [d.get("state") for d in dice]
        if "crooked" in states:
            raise _Refused(_("A die landed crooked: roll again"))
        if any(x != "settled" for x in states):
            return  # a progress reading: acknowledged, never applied
        self._faces[player] = tuple(int(d["face"]) for d in dice)
        self._readings = tuple((str(d.get("id")), int(d["face"])) for d in dice)
        self._resolve(actions, events)

    # --- applying -----------------------------------------------------------

    def _sides(self) -> list[Side]:
        """Sides of the pending roll whose dice are not in yet."""
        return [x for x in sides(self._state, len(self._log), self._battle_at)
                if x.player not in self._faces]

    def _armed(self) -> list[tuple[int, Side]]:
        return [(self.seats[x.player], x) for x in self._sides() if x.player not in self._bots]

    @staticmethod
    def _arm(side: Side) -> dict[str, Any]:
        return messages.message("cmd", cmd="arm_dice", roll=side.roll, count=side.count)

    def _resolve(self, actions: list[Action], events: list[Event]) -> None:
        a = chance_action(self._state, self._faces)
        if a is not None:
            self._apply(a, actions, events)

    def _hub_chance(self, actions: list[Action], events: list[Event]) -> None:
        """Deal every mission as soon as the game reaches the mission deal, and with
        hub-dealt cards every card as soon as one is due.

        Missions are secret, so the hub deals them instead of a seat tapping cards:
        each is drawn uniformly from the engine's outcomes with the injected RNG, and
        the deals go into ``actions`` to be journalled like any chance outcome (a
        restart replays them and deals nothing again). Hub-dealt cards are drawn as a
        bot's are, so a game replays the same whoever sits at the seats.
        """
        while True:
            if self._state.phase == MISSION_DEAL:
                self._apply(chance_outcomes(self._state).sample(self._dice), actions, events)
            elif self.hub_cards and self._state.phase in _CARD_PHASES:
                self._draw_card(actions, events)
            else:
                return

    def _draw_card(self, actions: list[Action], events: list[Event]) -> None:
        """Draw (or deal, or set aside) the card due now, uniformly from the pile."""
        s = self._state
        pile = s.draw_pile
        card = pile[int(self._dice.random() * len(pile))]
        self._apply(DealCard(card) if s.phase in _DEALT else DrawCard(card), actions, events)

    def _apply(self, action: Action, actions: list[Action], events: list[Event]) -> None:
        before = self._state
        try:
            after, new_events = apply(before, action)
        except RulesError as exc:
            raise _Refused(str(exc)) from None
        position = len(self._log)
        self._state = after
        self._log.append(action)
        actions.append(action)
        events.extend(new_events)
        facts = public_facts(before, new_events)
        if facts:
            self._facts = (*self._facts, *facts)[-_FACTS_KEPT:]
        self._handed = tuple((e.player, e.owner, e.card) for e in new_events
                             if isinstance(e, CapitalCardPassed))
        # Told until the next action, as "Drew a card" is; the hand line keeps it after.
        self._drawn = (before.player, action.card) \
            if isinstance(action, DrawCard) and self.hub_cards else None
        if isinstance(action, Place) and before.phase == REINFORCE:
            self._undo.append(before)
        else:
            self._undo.clear()
        if isinstance(action, Attack):
            self._battle_at = position
        if before.phase in CHANCE_PHASES:
            self._faces = {}
            told = partial(prompts.outcome_lines, before, action)
            if told():
                # A card names its receiver; dice name their territories.
                self._last = told
                self._last_by = before.player if isinstance(action, DrawCard | DealCard) else -1
            if isinstance(action, Roll):
                self._result = partial(prompts.battle_result, action)
        else:
            self._last = partial(prompts.describe, before, action)
            # A held roll's choices are the attacker's alone and their lines are full.
            self._last_by = -1 if before.phase == MODIFY else current_actor(before)
            self._marks = _marks(before, action)
            self._result = _no_result
        if after.phase == MODIFY:
            # A held roll costs nothing yet: show the dice, not the losses they would mean.
            done = self._last if before.phase != ROLL else _nothing
            self._last = partial(_held_told, done, after)
        elif before.phase in (MODIFY, REROLL):
            rolled = next((e for e in new_events if isinstance(e, DiceRolled)), None)
            if rolled is not None:
                roll = Roll(rolled.attack, rolled.defend)
                self._last = partial(_rolled_told, self._last,
                                     partial(prompts.outcome_lines, before, roll))
                self._result = partial(prompts.battle_result, roll)
        # The cursor stays where it was for the next choice, except after a capital:
        # the secret must not linger in the UI state (journalled, restored) or the next menu.
        # Keeping hub-dealt cards holds for the rest of the reinforcement.
        keep = self._pick.kept and isinstance(action, Place) and after.phase == REINFORCE
        pick = Pick() if isinstance(action, ChooseCapital) else Pick(at=self._pick.at, kept=keep)
        if before.phase in _ROLLED:
            kept = replace(pick, source=before.source, target=before.target)
            pick = kept if still_valid(after, kept) else pick
        self._pick = pick

    # --- outputs ------------------------------------------------------------

    def _finish(self, armed_before: list[tuple[int, Side]], actions: list[Action],
                events: list[Event], retracted: int, *, views: bool = True) -> Outcome:
        armed = self._armed()
        commands: list[Command] = [
            (seat, messages.message("cmd", cmd="disarm", roll=side.roll))
            for seat, side in armed_before if (seat, side) not in armed]
        commands.extend((seat, self._arm(side)) for seat, side in armed
                        if (seat, side) not in armed_before)
        for e in events:
            if isinstance(e, TurnStarted) and e.player not in self._bots:
                commands.append((self.seats[e.player],
                                 messages.message("cmd", cmd="beep", ms=_TURN_BEEP_MS)))
        readings, self._readings = self._readings, ()
        self._views_due = True
        changed: dict[int, dict[str, Any]] = {}
        if views:
            self._catch_up()
            changed = self._take_unsent()
        return Outcome(actions=tuple(actions), retracted=retracted, views=changed,
                       commands=tuple(commands), highlight=self._highlight, events=tuple(events),
                       dice=readings)

    def _catch_up(self) -> None:
        """Work out the views and highlight left for later by ``handle(views=False)``."""
        if not self._views_due:
            return
        self._views_due = False
        for seat in self.seats:
            view = self._view(seat)
            if view != self._views[seat]:
                self._views[seat] = view
                self._unsent.add(seat)
        self._highlight = self._compute_highlight()

    def _take_unsent(self) -> dict[int, dict[str, Any]]:
        """The views of the seats whose view changed since an outcome last carried it."""
        changed = {seat: self._views[seat] for seat in self.seats if seat in self._unsent}
        self._unsent.clear()
        return changed

    def _compute_highlight(self) -> frozenset[str]:
        ids = self._state.config.board.territory_ids
        return frozenset(ids[t] for t in self._highlight_parts().lit)

    def _highlight_parts(self, *, with_odds: bool = False) -> Highlight:
        """The LED board's highlight, each part named: the page draws them apart."""
        s = self._state
        menu = self.menu
        marks: set[int] = set()
        cursor = -1
        targets: frozenset[int] = frozenset()
        if self._revealing():
            marks.update(s.capitals)
        elif menu.player in self._bots or menu.stage in (menus.CARD, menus.OVER):
            marks.update(self._marks)
        elif menu.stage in menus.SECRET_STAGES or (self.hub_cards and menu.stage == menus.BONUS):
            # The cursor is the chooser's secret: the board shows nothing of it (with hub
            # cards, the +2 territories would name cards of a set not traded yet).
            pass
        elif menu.is_territory:
            if menu.cursor >= 0:
                cursor = menu.cursor
            if menu.stage in (menus.ATTACK_TO, menus.FORTIFY_TO, menus.BONUS):
                targets = frozenset(t for t in menu.choices if t >= 0)
        picked = tuple(t for t in (self._pick.source, self._pick.target) if t >= 0)
        marks.update(picked)
        battle = None
        if s.source >= 0 and s.phase != GAME_OVER:
            battle = (s.source, s.target)
            marks.update(battle)
        lit = frozenset(t for t in marks | targets | {cursor} if t >= 0)
        odds = None
        if with_odds:
            considered = battle
            if considered is None and menu.stage == menus.ATTACK_TO and cursor >= 0 \
                    and self._pick.source >= 0:
                considered = (self._pick.source, cursor)
            elif considered is None and menu.stage == menus.ATTACK_DICE and len(picked) == 2:
                considered = (picked[0], picked[1])
            odds = self._odds(considered, lit)
        return Highlight(lit=lit, cursor=cursor, targets=targets, battle=battle, odds=odds)

    def _odds(self, attack: tuple[int, int] | None,
              lit: frozenset[int]) -> tuple[int, int, float] | None:
        """The attacker's chance of taking the target of ``attack``, if the board shows
        it (both lit), it is still a battle (two owners, armies on both) and it is
        small enough to work out at once."""
        if attack is None or not set(attack) <= lit:
            return None
        s = self._state
        source, target = attack
        attackers, defenders = s.armies[source], s.armies[target]
        if s.owners[source] == s.owners[target] or attackers < 2 or defenders < 1 \
                or max(attackers, defenders) > ODDS_ARMY_LIMIT:
            return None
        return source, target, _win(attackers, defenders, int(s.config.options.defence_dice))

    def _capital_card_lines(self, player: int, acting: bool) -> list[str]:
        """What ``player`` must do with a capital card now: lay their own as the capitals
        are revealed, or take the card of the capital they just captured."""
        if self.hub_cards:
            return []  # the hub lays and passes the cards itself: its hands show them
        for captor, owner, card in self._handed:
            if captor == player:
                return prompts.take_capital_card(self._state, self._who(owner), card)
        if self._revealing():
            return prompts.lay_capital_card(self._state, player, acting)
        return []

    def _revealing(self) -> bool:
        """True from the last capital choice (which reveals them all) until the next
        action: the LED board shows every capital then instead of a cursor."""
        log = self._log
        return bool(log) and isinstance(log[-1], ChooseCapital) and self._state.phase != CAPITAL

    def _who(self, player: int, viewer: int = -1) -> str:
        """How ``viewer``'s screen calls ``player``: "You", their name, or the neutral's."""
        if player == viewer:
            return _("You")
        if player >= len(self.seats):
            return _capitalised(prompts.neutral_name(self._state, player))
        return self.name(self.seats[player])

    def _told(self, player: int) -> list[str]:
        """What happened last as ``player``'s screen tells it, its first line naming who
        did it."""
        last = self._last()
        if not last or self._last_by < 0:
            return last
        return [prompts.fit(_("{who}: {what}").format(who=self._who(self._last_by, player),
                                                      what=last[0])), *last[1:]]

    def _secret_told(self, player: int) -> list[str]:
        """What happened last for ``player``, with the hub-drawn card they were dealt
        named first (on their own screen only)."""
        told = self._told(player)
        if self._drawn is None or self._drawn[0] != player:
            return told
        # In place of "You: Drew a card", the one line the draw told everyone.
        drawn = prompts.fit(_("You drew {card}").format(
            card=prompts.card_label(self._state, self._drawn[1])))
        return [drawn, *told[1:]]

    def _waiting_head(self, player: int) -> str:
        """The first line of a seat that is not asked anything: whose turn it is."""
        s = self._state
        mover = current_actor(s)
        if s.phase == MODIFY:
            return prompts.held_head(s, self._who(mover))
        if mover < 0:
            return prompts.chance_head(s, self._who(menus.card_tapper(s), player))
        seat = self.seats[mover]
        if seat in self._offline:
            head = _("{who} to play (offline)").format(who=self.name(seat))
            return head if len(head) <= prompts.LINE \
                else prompts.fit(_("{who} is offline").format(who=self.name(seat)))
        return prompts.fit(_("{who} to play").format(who=self.name(seat)))

    def _mover_seat(self) -> int:
        mover = current_actor(self._state)
        return self.seats[mover] if 0 <= mover < len(self.seats) else 0

    def _view(self, seat: int) -> dict[str, Any]:
        with i18n.using(self.language(seat)):
            return self._view_written(seat)

    def _view_written(self, seat: int) -> dict[str, Any]:
        s = self._state
        player = self._player_of[seat]
        menu = self.menu
        fields: dict[str, Any] = {"phase": protocol_phase(s)}
        if s.phase == GAME_OVER:
            won = s.winner == player
            # The winner's mission is revealed to everyone, as the engine's views do.
            fields.update(active=False, lines=[_("You won!") if won else prompts.fit(
                _("{who} won").format(who=self._who(s.winner))),
                *prompts.own_mission(s, s.winner, self.seats)],
                          ring={"mode": "pulse" if won else "off"})
            return fields
        rolling = {x.player: x for x in self._sides()}
        acting = player in rolling or (menu.stage not in (menus.DICE,) and menu.player == player)
        fields["active"] = acting
        share = round(99 * s.counts[player] / len(s.owners))
        ring: dict[str, Any] = {"mode": "progress", "value": share, "max": 99}
        if player in rolling and player not in self._bots:
            side = rolling[player]
            lines = (prompts.reroll_lines(s) if s.phase == REROLL
                     else prompts.roll_lines(s, player, side.count))
            ring = {"mode": "spin"}
        elif acting and player not in self._bots:
            win = None
            if menu.stage == menus.ATTACK_DICE:
                win = _win(s.armies[self._pick.source], s.armies[self._pick.target],
                           int(s.config.options.defence_dice))
                ring = {"mode": "progress", "value": round(99 * win), "max": 99}
            elif menu.is_number:
                ring = {"mode": "count", "value": min(99, menu.value)}
            lines = prompts.ask(s, menu, self._pick, win)
            result = self._result()
            if result and menu.stage in _AFTER_ROLL:
                # The attacker learns the battle's result on their next question.
                drop = _SOURCE_LINE.get(menu.stage, 4)
                keep = lines[:drop] + lines[drop + 1:]
                lines = [result, *keep][:4]
            told = self._capital_card_lines(player, acting=True)
            if told:
                lines = [*told, *lines[:2]]
        else:
            head = self._waiting_head(player)
            told = self._capital_card_lines(player, acting=False)
            if player in self._bots:
                # Everyone reads a bot's display: its capital and mission stay off it
                # (the capital card only once the capitals are public).
                head = _("Bot: mirror this move")
                lines = [head, *(told or self._last())][:4]
            elif told:
                lines = [head, *told][:4]
            else:
                lines = [head, *prompts.own_capital(s, player),
                         *prompts.own_mission(s, player, self.seats), *self._secret_told(player)]
                if self.hub_cards and s.hands[player] and len(lines) < 4:
                    lines.append(prompts.hand_line(s, player))
                lines = lines[:4]
            away = [self.name(x) for x in sorted(self._offline)
                    if x != seat and x != self._mover_seat()]
            if away and player not in self._bots:
                lines = [*lines[:3], prompts.fit(_("Offline: {seats}").format(
                    seats=", ".join(away)))]
        if menu.stage in (menus.CLAIM_STAGE, menus.SETUP_PLACE_STAGE) and not menu.is_number:
            ring = {"mode": "count", "value": min(99, s.to_place[player])}
        elif s.phase == REINFORCE and s.player == player and menu.stage != menus.BONUS:
            ring = {"mode": "count", "value": min(99, s.pool)}
        elif s.phase == NEUTRAL and s.player == player:
            ring = {"mode": "count", "value": s.neutral_pool}
        fields["lines"] = lines
        fields["ring"] = ring
        return fields


Told = Callable[[], list[str]]
"""Lines of what happened, written when called (in the language of the screen asking)."""


def _nothing() -> list[str]:
    return []


def _no_result() -> str:
    return ""


def _army_taken_back() -> list[str]:
    return [_("Army taken back")]


def _held_told(done: Told, after: State) -> list[str]:
    # A held roll costs nothing yet: the dice, not the losses they would mean.
    return [*done()[:1], prompts.held_dice(after), _("The roll may change")]


def _rolled_told(before: Told, outcome: Told) -> list[str]:
    return [*before()[:1], *outcome()][-3:]


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def _marks(before: State, action: Action) -> frozenset[int]:
    """Territories a decision touched, lit so someone can mirror a bot's move."""
    if isinstance(action, Claim | Place):
        return frozenset({action.territory})
    if isinstance(action, Attack | Fortify):
        return frozenset({action.source, action.target})
    if isinstance(action, Trade) and action.bonus is not None:
        return frozenset({action.bonus})
    if isinstance(action, Defend | Occupy | Reroll | Commander | AcceptRoll):
        return frozenset({before.source, before.target})
    return frozenset()


__all__ = ["Outcome", "TableSession"]
