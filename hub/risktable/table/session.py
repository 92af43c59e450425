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

The session keeps the game and carries inputs out; what they mean and what is shown
are pure functions in the modules beside it: :mod:`~risktable.table.seat_inputs`
(what a knob turn, a button, a card tap or a dice reading comes to),
:mod:`~risktable.table.screens` (each seat's display and ring),
:mod:`~risktable.table.highlight` (the LED board), :mod:`~risktable.table.last_move`
(what happened last, as the screens tell it), all drawn from a
:class:`~risktable.table.situation.Situation`.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from riskproto import messages
from riskproto.messages import ProtocolError
from risktable import i18n
from risktable.i18n import _
from risktable.rules.actions import Action, Attack, ChooseCapital, DealCard, DrawCard, Place
from risktable.rules.bots import KINDS, Bot, level_of
from risktable.rules.decks import deck_cards
from risktable.rules.engine import apply, chance_outcomes, current_actor, new_game
from risktable.rules.errors import RulesError
from risktable.rules.events import Event, TurnStarted
from risktable.rules.options import Config
from risktable.rules.state import (
    ASIDE,
    CAPITAL,
    CHANCE_PHASES,
    DEAL,
    DRAW,
    GAME_OVER,
    MISSION_DEAL,
    REINFORCE,
    State,
)
from risktable.table import menus, seat_inputs
from risktable.table.battle_odds import ODDS_ARMY_LIMIT
from risktable.table.coach import Advice, is_hint_request
from risktable.table.dice import Side, chance_action, sides
from risktable.table.highlight import board_highlight, lit_territories
from risktable.table.last_move import NOTHING_YET, LastMove, after_action, taken_back
from risktable.table.menus import Menu, Pick, menu_for, pick_after
from risktable.table.public import Fact, Highlight, public_facts
from risktable.table.screens import seat_view
from risktable.table.seat_inputs import Refused
from risktable.table.situation import Situation, seat_name

Command = tuple[int, dict[str, Any]]

_DECISION_STAGES = (menus.TERRITORY_STAGES | menus.NUMBER_STAGES | menus.CHOICE_STAGES
                    | {menus.MUST_TRADE})
_TURN_BEEP_MS = 120
_CARD_PHASES = frozenset({DEAL, DRAW, ASIDE})
_MAX_DETAIL = 120
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
    last: LastMove
    views: tuple[tuple[int, dict[str, Any]], ...]
    highlight: frozenset[str]
    dice: Any  # random.Random.getstate()
    facts: tuple[Fact, ...] = ()


class TableSession:
    """One game at one table, driven by seat inputs.

    ``seats`` lists the seat numbers (1..6) in player order: engine player
    ``p`` sits at ``seats[p]``. ``card_uids`` maps enrolled NFC card UIDs
    (upper-case hex) to the engine's card indices. ``bots`` maps seat numbers
    to bots the session plays for, with their dice drawn from ``dice``, as are
    the secret missions the session deals (``goal = missions``); ``bot_names`` names
    them (``risktable.rules.bots.KINDS``), so the screens can say a bot's level.
    ``actions`` is a journal to replay (a restart); ``start`` a position to
    begin from instead of a new game (scenario tests). ``names`` maps seat
    numbers to players' names for the screens ("Ana to play"); a seat without
    one is "Seat n". With ``hub_cards`` the table has no physical cards: the
    session deals and draws every card itself, as it does a bot's (from ``dice``),
    shows each seat its own hand, and trades are chosen from a menu. ``coached``
    seats have their hints (:meth:`hint`) shown on the live board page too
    (:meth:`public_hint`); every other seat's stay on its own display.

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
        bot_names: Mapping[int, str] | None = None,
        dice: random.Random | None = None,
        actions: Iterable[Action] = (),
        start: State | None = None,
        names: Mapping[int, str] | None = None,
        hub_cards: bool = False,
        languages: Mapping[int, str] | None = None,
        coached: Iterable[int] = (),
    ) -> None:
        self.config = config
        self.coached = frozenset(coached)
        # The hint each seat shows now (the coach's advice), until its next input or the
        # next move: never part of the game, its log or a checkpoint.
        self._hints: dict[int, Advice] = {}
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
        self._cards = _enrolled(config, card_uids)
        self._bots = {self._player_of[seat]: bot for seat, bot in (bots or {}).items()}
        # The level each bot plays at, as the screens and the scene name it ("": none).
        self._levels = {self._player_of[seat]: _level((bot_names or {}).get(seat))
                        for seat in (bots or {})}
        if self._bots and dice is None:
            raise ValueError("bot seats need a dice source")
        self._dice = dice or random.Random(0)
        self._state = start if start is not None else new_game(config)
        self._log: list[Action] = []
        # The states before each placement of this reinforcement: Back goes to the last.
        self._undo: list[State] = []
        self._battle_at = -1
        self._pick = Pick()
        # Dice read for the roll waiting on the other side, by player.
        self._faces: dict[int, tuple[int, ...]] = {}
        # What happened last, told when a seat's screen is written (in its language).
        self._last: LastMove = NOTHING_YET
        self._readings: tuple[tuple[str, int], ...] = ()
        # The last public facts (conquests, losses, trades...) for the public scene.
        self._facts: tuple[Fact, ...] = ()
        # The menu of (state, pick), computed once: every view asks for it.
        self._menu: tuple[State, Pick, Menu] | None = None
        for i, a in enumerate(actions):
            try:
                self._apply(a, [], [])
            except Refused as exc:
                raise ValueError(f"journal action {i + 1} ({a!r}): {exc.detail}") from None
        self._pick = Pick()
        self._views = self._all_views()
        self._highlight = lit_territories(self.situation())
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
        return board_highlight(self.situation(), with_odds=True), self._facts

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

    def situation(self) -> Situation:
        """What the screens and the LED board are drawn from now
        (:func:`risktable.table.screens.seat_view`, :mod:`risktable.table.highlight`)."""
        log = self._log
        # From the last capital choice (which reveals them all) until the next action.
        revealing = bool(log) and isinstance(log[-1], ChooseCapital) \
            and self._state.phase != CAPITAL
        return Situation(
            state=self._state, menu=self.menu, pick=self._pick, seats=self.seats,
            names=self._given, bots=self._levels, offline=self._offline,
            last=self._last, rolling={x.player: x for x in self._sides()},
            revealing=revealing, hub_cards=self.hub_cards)

    def view(self, seat: int) -> dict[str, Any]:
        """The current view fields of ``seat``."""
        self._catch_up()
        return dict(self._views[seat])

    def standing_commands(self, seat: int) -> list[Command]:
        """Commands still in force for ``seat`` (its armed roll), to re-send after a resync."""
        return [(s, _arm(side)) for s, side in self._armed() if s == seat]

    def name(self, seat: int) -> str:
        """How the screens call the player at ``seat`` (in the context's language): its
        name, or "Seat n"."""
        return seat_name(self._given, seat)

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

    @property
    def bot_levels(self) -> dict[int, str]:
        """The level of each seat the session plays itself, by seat (``""``: a bot of no
        level)."""
        return {self.seats[p]: level for p, level in self._levels.items()}

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
        self._views = self._all_views()
        self._highlight = lit_territories(self.situation())
        self._views_due = False

    def checkpoint(self) -> Checkpoint:
        """The session as it is now, for :meth:`rollback`: cheap (no copy of the
        game's log), so it can be taken before every input."""
        self._catch_up()
        return Checkpoint(self._state, len(self._log), tuple(self._undo), self._pick,
                          tuple(self._faces.items()), self._battle_at, self._last,
                          tuple(self._views.items()), self._highlight,
                          self._dice.getstate(), self._facts)

    def rollback(self, checkpoint: Checkpoint) -> None:
        """Go back to ``checkpoint``, taken on this session since its last rollback
        to an older one: what a refused input or an unjournalled move changed
        (rules state, log, choice, views, the RNG of its draws) is undone."""
        c = checkpoint
        self._state, self._pick, self._battle_at = c.state, c.pick, c.battle_at
        del self._log[c.log_length:]
        self._undo = list(c.undo)
        self._faces = dict(c.faces)
        self._last = c.last
        self._views = dict(c.views)
        self._highlight = c.highlight
        # The checkpoint's views are those of its state; seats still in _unsent are
        # reported again by the next outcome, which costs a repeat at most.
        self._views_due = False
        self._dice.setstate(c.dice)
        self._facts = c.facts
        self._readings = ()

    # --- the coach ------------------------------------------------------------

    def hint_refused(self, seat: int) -> ProtocolError | None:
        """Why ``seat`` may not have a hint now (written in its language), or None: a
        hint is for the person the game waits on to decide, never for a bot's seat."""
        player = self._player_of.get(seat)
        with i18n.using(self.language(seat)):
            if player is None:
                why = _("Seat {n} does not play in this game").format(n=seat)
            elif player in self._bots:
                why = _("A bot plays this seat: it takes no input")
            elif self.menu.player != player or self.menu.stage not in _DECISION_STAGES \
                    or current_actor(self._state) != player:
                why = seat_inputs.not_now(self.menu, self._name_of, player)
            else:
                return None
        return ProtocolError(messages.E_NOT_ALLOWED, why[:_MAX_DETAIL])

    def hint(self, seat: int) -> Outcome:
        """Show ``seat`` what the hard bot would do now in its place (:mod:`~risktable.
        table.coach`), on its own display only, until its next input or the next move.

        The game does not change: no action, no state, no choice, no dice drawn. A seat
        :meth:`hint_refused` refuses gets the error, and nothing else."""
        refused = self.hint_refused(seat)
        if refused is not None:
            return Outcome(error=refused, highlight=self.highlight)
        advice = Advice(self._state, self._player_of[seat])
        self._hints[seat] = advice
        with i18n.using(self.language(seat)):
            lines = advice.lines()
        return Outcome(views={seat: {**self.view(seat), "lines": lines}},
                       highlight=self._highlight)

    def public_hint(self) -> dict[str, Any] | None:
        """The hint a ``coached`` seat shows now, for the live board page (``scene.hint``),
        or None."""
        shown = sorted(seat for seat in self._hints if seat in self.coached)
        return self._hints[shown[0]].public(shown[0]) if shown else None

    def _end_hints(self, seats: Iterable[int]) -> bool:
        """Take the hints of ``seats`` down: their own views go out with the next outcome.
        True when one was shown."""
        ended = [seat for seat in seats if self._hints.pop(seat, None) is not None]
        self._unsent.update(ended)
        return bool(ended)

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
        if is_hint_request(event):
            return self.hint(seat)  # Confirm held down: advice, never a move
        saved = self.checkpoint()
        armed = self._armed()
        actions: list[Action] = []
        events: list[Event] = []
        retracted = 0
        self._readings = ()
        # Any input of the seat takes its hint down, a refused one too.
        hinted = self._end_hints([seat])
        try:
            with i18n.using(self.language(seat)):  # a refusal is told to this seat
                retracted = self._dispatch(seat, event, actions, events)
            self._hub_chance(actions, events)
        except Refused as refusal:
            self.rollback(saved)
            return Outcome(error=ProtocolError(refusal.code, refusal.detail[:_MAX_DETAIL]),
                           views=self._take_unsent() if hinted else {},
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
            except Refused as exc:
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
        """Carry out one seat event; returns how many actions Back took back."""
        if seat not in self._player_of:
            raise Refused(_("Seat {n} does not play in this game").format(n=seat),
                          messages.E_UNKNOWN_SEAT)
        kind = event.get("kind")
        if kind == "resync":
            return 0
        player = self._player_of[seat]
        if player in self._bots:
            raise Refused(_("A bot plays this seat: it takes no input"))
        if kind == "dice":
            self._dice_event(player, event, actions, events)
            return 0
        if kind == "card":
            self._card_event(player, event, actions, events)
            return 0
        menu = self.menu
        if menu.player != player or menu.stage not in _DECISION_STAGES:
            raise Refused(seat_inputs.not_now(menu, self._name_of, player))
        if kind == "encoder":
            steps = event.get("steps")
            if type(steps) is not int:
                raise Refused(_("The knob was misread: turn it again"), messages.E_SCHEMA)
            self._pick = seat_inputs.turned(self._state, menu, self._pick, steps)
            return 0
        if kind == "button":
            return self._button(menu, event.get("button"), actions, events)
        raise Refused(_("This seat sent an unknown input"), messages.E_SCHEMA)

    def _button(self, menu: Menu, button: object, actions: list[Action],
                events: list[Event]) -> int:
        if button in ("confirm", "encoder"):
            self._answer(seat_inputs.confirmed(self._state, menu, self._pick), actions, events)
            return 0
        if button == "back":
            pick = seat_inputs.backed(menu, self._pick, bool(self._undo))
            if pick is not None:
                self._pick = pick
                return 0
            # Undo = the rules state before the last placement: no inverse actions needed.
            self._state = self._undo.pop()
            self._log.pop()
            self._last = taken_back(self._last, menu.player)
            return 1
        if button == "roll":
            raise Refused(_("No dice to roll now: the Roll button waits for a battle"))
        raise Refused(_("This seat sent an unknown button"), messages.E_SCHEMA)

    def _card_event(self, player: int, event: Mapping[str, Any], actions: list[Action],
                    events: list[Event]) -> None:
        if self.hub_cards:
            raise Refused(_("This game deals no physical cards"))
        uid = event.get("uid")
        if not isinstance(uid, str):
            raise Refused(_("The card was not read: tap it again"), messages.E_SCHEMA)
        answer = seat_inputs.tapped(self._state, self.menu, self._pick, player,
                                    self._cards.get(uid.upper()), self._name_of)
        self._answer(answer, actions, events)

    def _dice_event(self, player: int, event: Mapping[str, Any], actions: list[Action],
                    events: list[Event]) -> None:
        side = next((x for x in self._sides() if x.player == player), None)
        read = seat_inputs.dice_read(side, event)
        if read is None:
            return  # a progress reading: acknowledged, never applied
        self._faces[player], self._readings = read
        self._resolve(actions, events)

    def _answer(self, answer: seat_inputs.Answer, actions: list[Action],
                events: list[Event]) -> None:
        # An input's answer: the next half-made choice, or a rules action to apply.
        if isinstance(answer, Pick):
            self._pick = answer
        else:
            self._apply(answer, actions, events)

    def _name_of(self, player: int) -> str:
        return self.name(self.seats[player])

    # --- applying -----------------------------------------------------------

    def _sides(self) -> list[Side]:
        """Sides of the pending roll whose dice are not in yet."""
        return [x for x in sides(self._state, len(self._log), self._battle_at)
                if x.player not in self._faces]

    def _armed(self) -> list[tuple[int, Side]]:
        return [(self.seats[x.player], x) for x in self._sides() if x.player not in self._bots]

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
        self._apply(DealCard(card) if s.phase in seat_inputs.DEALT else DrawCard(card),
                    actions, events)

    def _apply(self, action: Action, actions: list[Action], events: list[Event]) -> None:
        before = self._state
        try:
            after, new_events = apply(before, action)
        except RulesError as exc:
            raise Refused(str(exc)) from None
        position = len(self._log)
        self._state = after
        self._log.append(action)
        actions.append(action)
        events.extend(new_events)
        facts = public_facts(before, new_events)
        if facts:
            self._facts = (*self._facts, *facts)[-_FACTS_KEPT:]
        self._last = after_action(self._last, before, after, action, new_events,
                                  hub_cards=self.hub_cards)
        if isinstance(action, Place) and before.phase == REINFORCE:
            self._undo.append(before)
        else:
            self._undo.clear()
        if isinstance(action, Attack):
            self._battle_at = position
        if before.phase in CHANCE_PHASES:
            self._faces = {}
        self._pick = pick_after(self._pick, before, after, action)

    # --- outputs ------------------------------------------------------------

    def _finish(self, armed_before: list[tuple[int, Side]], actions: list[Action],
                events: list[Event], retracted: int, *, views: bool = True) -> Outcome:
        armed = self._armed()
        commands: list[Command] = [
            (seat, messages.message("cmd", cmd="disarm", roll=side.roll))
            for seat, side in armed_before if (seat, side) not in armed]
        commands.extend((seat, _arm(side)) for seat, side in armed
                        if (seat, side) not in armed_before)
        for e in events:
            if isinstance(e, TurnStarted) and e.player not in self._bots:
                commands.append((self.seats[e.player],
                                 messages.message("cmd", cmd="beep", ms=_TURN_BEEP_MS)))
        readings, self._readings = self._readings, ()
        if actions or retracted:
            self._end_hints(list(self._hints))  # the next move takes every hint down
        self._views_due = True
        changed: dict[int, dict[str, Any]] = {}
        if views:
            self._catch_up()
            changed = self._take_unsent()
        return Outcome(actions=tuple(actions), retracted=retracted, views=changed,
                       commands=tuple(commands), highlight=self._highlight, events=tuple(events),
                       dice=readings)

    def _all_views(self) -> dict[int, dict[str, Any]]:
        situation = self.situation()
        return {seat: self._view(situation, seat) for seat in self.seats}

    def _view(self, situation: Situation, seat: int) -> dict[str, Any]:
        with i18n.using(self.language(seat)):
            return seat_view(situation, seat)

    def _catch_up(self) -> None:
        """Work out the views and highlight left for later by ``handle(views=False)``."""
        if not self._views_due:
            return
        self._views_due = False
        situation = self.situation()
        for seat in self.seats:
            view = self._view(situation, seat)
            if view != self._views[seat]:
                self._views[seat] = view
                self._unsent.add(seat)
        self._highlight = lit_territories(situation)

    def _take_unsent(self) -> dict[int, dict[str, Any]]:
        """The views of the seats whose view changed since an outcome last carried it."""
        changed = {seat: self._views[seat] for seat in self.seats if seat in self._unsent}
        self._unsent.clear()
        return changed


def _level(name: str | None) -> str:
    # A bot of no level, or one given without its name, is just "a bot" on the screens.
    return (level_of(name) or "") if name is not None and name in KINDS else ""


def _enrolled(config: Config, card_uids: Mapping[str, int]) -> dict[str, int]:
    """The enrolled cards by upper-case UID, each a distinct card of the deck in play."""
    deck = deck_cards(config.board, config.options.deck)
    cards: dict[str, int] = {}
    for uid, card in card_uids.items():
        if card not in deck or card in cards.values():
            raise ValueError(f"card {card} of uid {uid} is not a distinct card of the "
                             f"{config.options.deck} deck")
        cards[uid.upper()] = card
    return cards


def _arm(side: Side) -> dict[str, Any]:
    return messages.message("cmd", cmd="arm_dice", roll=side.roll, count=side.count)


__all__ = ["ODDS_ARMY_LIMIT", "Checkpoint", "Command", "Outcome", "TableSession"]
