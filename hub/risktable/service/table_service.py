"""The hub refereeing a live table: seat inputs in, journal, views and LEDs out.

Data flows one way (STYLE.md): an input passes the contract's gate
(:class:`~risktable.service.hub.HubService`), the table session turns it into
rules actions, the journal commits them together with the input, and only
then is the input acknowledged and the views, the board, the seats' commands
and the LED scene published. After a crash the journal rebuilds the same
session, cursor included, and everything is republished.

:class:`TableService` keeps that order and the table's state (its game, the referee's
pause, an enrollment under way, the journal's room); the rooms beside it do the rest:
:mod:`~risktable.service.session_loader` (the game as the data directory holds it),
:mod:`~risktable.service.table_outputs` (what is published),
:mod:`~risktable.service.seat_dice` (the seats' smart dice),
:mod:`~risktable.service.referee` (the referee's requests).
"""

from __future__ import annotations

import contextlib
import errno
import logging
import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

from riskproto.messages import CARD_MODES, ProtocolError
from riskproto.sequence import event_digest
from risktable import i18n
from risktable.config import HubConfig, bot_problem
from risktable.dice_registry import REGISTRY_FILE, DiceRegistry
from risktable.game_rules import (
    RulesUnknown,
    describe,
    rules_config,
    seats_for,
    too_many_seats,
)
from risktable.i18n import _
from risktable.journal import (
    ActionMeta,
    DieFace,
    Entry,
    Journal,
    JournalError,
    NothingToUndo,
    SeatInput,
    journal_path,
)
from risktable.leds.scene import Scene
from risktable.rules import Config
from risktable.rules.state import GAME_OVER
from risktable.service.enrolling import TableEnrollment
from risktable.service.hub import HubService, Unanswered
from risktable.service.referee import referee_answer
from risktable.service.seat_dice import SeatDice
from risktable.service.session_loader import (
    SEED_FILE,
    chance_rng,
    configured_otherwise,
    deck_problem,
    load_card_uids,
    rebuild_session,
    table_seed,
    unenrolled,
    with_enrolled_deck,
)
from risktable.service.storage import StorageGuard
from risktable.service.table_outputs import (
    NOT_STARTED,
    NOT_STARTED_REASON,
    OUT_OF_GAME,
    PAUSED_NOTICE,
    STORAGE_NOTICE,
    TableOutputs,
)
from risktable.service.tray_desk import TrayDesk, armed_side
from risktable.service.undo_notes import undo_notes
from risktable.table.coach import is_hint_request
from risktable.table.session import Checkpoint, Outcome, TableSession

log = logging.getLogger(__name__)
T = TypeVar("T")

# A bot-only stretch of play is bounded so a bug can never spin the hub's worker.
_MAX_BOT_STEPS = 100_000
# How often the journal's room is measured while no input comes (so that the table
# notices it filling up, and recovers, alone).
STORAGE_POLL_SECONDS = 2.0


def _out_of_space(exc: BaseException) -> bool:
    if isinstance(exc, OSError):
        return exc.errno == errno.ENOSPC
    return isinstance(exc, sqlite3.Error) and (
        getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL
        or "disk is full" in str(exc))


class TableService:
    """Referees one table until stopped.

    ``config`` is the hub configuration; ``rules`` overrides the rules
    configuration its rule set names (tests, variants without a preset name);
    ``card_uids`` overrides the enrolled cards (tests); ``show_leds`` receives
    every LED scene (the LED link's ``show``, or a test's recorder);
    ``on_victory`` runs once when the game ends; ``on_input`` hears every seat
    event the service answered, with the error it was refused with or None
    (after it was journalled and its outputs published: the demo's pilot waits
    on it). A ``paused`` service refuses
    inputs and keeps its bots still until :meth:`toggle_pause`. ``seed`` fixes
    the bots' moves and dice and the mission deal (:func:`chance_rng`; a random
    one is kept in the data directory). ``journal`` replaces the journal the
    data directory holds (tests: a slowed or failing store). ``on_storage(full)``
    hears when the journal's file system runs out of room (less than the
    configuration's ``min_free_bytes``) and when it has room again (the hub panel).
    While it is full every seat's view says so, inputs stay unanswered (the seats
    send them again) and bots wait; nothing changes until there is room.
    """

    def __init__(
        self,
        config: HubConfig,
        *,
        rules: Config | None = None,
        card_uids: Mapping[str, int] | None = None,
        show_leds: Callable[[Scene], None] | None = None,
        on_victory: Callable[[int], None] | None = None,
        on_connection: Callable[[bool], None] | None = None,
        on_input: Callable[[int, dict[str, Any], ProtocolError | None], None] | None = None,
        paused: bool = False,
        seed: int | None = None,
        journal: Journal | None = None,
        on_storage: Callable[[bool], None] | None = None,
    ) -> None:
        self.config = config
        seats = config.table.seats
        self.rules = rules if rules is not None else rules_config(
            config.table.rules, seats, config.table.house)
        config.data_dir.mkdir(parents=True, exist_ok=True)
        self.journal = journal if journal is not None else Journal(journal_path(config.data_dir))
        self._lock = threading.RLock()
        self._on_victory = on_victory
        self._on_input = on_input
        self._on_storage = on_storage
        self.storage = StorageGuard(config.data_dir, config.min_free_bytes)
        self._stopping = threading.Event()
        self._poller = threading.Thread(target=self._poll_storage, name="hub-storage",
                                        daemon=True)
        self._paused = paused
        self._enrolling: TableEnrollment | None = None
        self._seed = seed if seed is not None else table_seed(config.data_dir)
        self.game_id = self._current_game()
        self._card_uids = dict(
            card_uids if card_uids is not None else load_card_uids(config.data_dir, self.rules)
        )
        self._fixed_uids = card_uids is not None
        # Which smart die is whose: the table's, across games and restarts.
        self.dice = DiceRegistry(config.data_dir / REGISTRY_FILE)
        self.session = self._rebuild()
        # The hub serves the table's seats, and every seat of a game carried on from a
        # configuration with more; a game may seat fewer (`games new --seats`).
        served = max(seats, self.session.config.players)
        self.hub = HubService(
            config.broker.address, config.table.id, served,
            username=config.broker.username, password=config.broker.password,
            keepalive=config.broker.keepalive, on_event=self._on_event,
            record_answer=self._record_answer, on_connection=on_connection,
            on_republish=self._resend_commands, on_change=self._presence_changed,
            on_referee=lambda request: referee_answer(self, request),
            on_tray=self._on_tray if config.tray.enabled else None,
            language=config.table.language,
            ca=config.broker.ca,
        )
        self.tray = TrayDesk(self.hub) if config.tray.enabled else None
        self.outputs = TableOutputs(self.hub, show_leds)
        self.seat_dice = SeatDice(self.dice, self.hub)
        self._restore_sequences()
        self._storage_ok(publish=False)
        self._show_notice(publish=False)
        # What the seats and spectators must see is in place before the hub's birth.
        self._show_views(publish=False)
        for seat in range(1, served + 1):
            self.seat_dice.show(seat, publish=False)
        self.outputs.board(self.session, publish=False)

    # -- the game in hand -----------------------------------------------------

    def _current_game(self) -> int:
        table = self.config.table.id
        game = self.journal.current_game(table)
        if game is not None and self.journal.game(game).status == "running":
            # Restarting the hub never throws a game away: a changed configuration only
            # applies to the next game, and the log says so and how to start it.
            otherwise = configured_otherwise(self.journal, game, self.rules, self.config.table)
            if otherwise is not None:
                log.warning("%s", otherwise)
            return game
        game = self.journal.create_game(
            # The journal's header then records the printed deck for every replay.
            with_enrolled_deck(self.rules, self.config.data_dir,
                               physical=self.config.table.cards == "physical"), table,
            self.config.table.cards)
        self.journal.set_current_game(table, game)
        log.info("table %s: new game %d (%s)", table, game, self.config.table.rules)
        return game

    def _rebuild(self) -> TableSession:
        # Each seat's language: its birth's once the hub heard one, else the table's
        # (the first game is rebuilt before the hub exists).
        hub: HubService | None = getattr(self, "hub", None)
        table = self.config.table
        return rebuild_session(
            self.journal, self.game_id, table, self._seed, self._card_uids,
            lambda seat: hub.seat_language(seat) if hub is not None else table.language)

    def deck_problem(self) -> str | None:
        """Why the game in hand does not start (its physical deck is not wholly enrolled)
        and the two ways out, in one line, or None; a game whose hub deals the cards
        takes none. The game starts by itself once the enrollment is complete."""
        return deck_problem(self.session, self._card_uids)

    def _warn_unenrolled(self) -> None:
        # The first card draw of a game must not be where a table learns this.
        problem = self.deck_problem()
        if problem is not None:
            log.warning("game %d not started: %s", self.game_id, problem)

    def _started(self) -> bool:
        """False while the game waits for its physical deck (:meth:`deck_problem`)."""
        return self.deck_problem() is None

    def _send_standing_commands(self) -> None:
        # Armed rolls and the like go out only once the game has started.
        if self._started():
            self.outputs.standing_commands(self.session)
        self._tray_sync()

    def _tray_sync(self) -> None:
        # The tray hears what is armed whenever that may have changed.
        if self.tray is not None:
            self.tray.sync(self.session)

    def _on_tray(self, read: dict[str, Any]) -> None:
        # A read of the dice tray (the worker thread): to the rolling seats to accept.
        with self._lock:
            if self.tray is not None and not self._paused and self._enrolling is None:
                self.tray.take(read)

    def _restore_sequences(self) -> None:
        # Each seat's events continue from the number after the last one answered:
        # under the boot of its latest input until its birth names another boot. The
        # digests of the events applied in each boot's window come back too.
        table = self.config.table.id
        for seat in range(1, self.hub.seats + 1):
            boot, _seq = self.journal.input_seqs(self.game_id, seat)
            tracker = self.hub.gate.tracker(seat)
            events = self.journal.recent_events(table, seat, tracker.window)
            tracker.restore(boot, self.journal.answered_seqs(table, seat),
                            {key: event_digest(msg) for key, msg in events.items()})

    def _record_answer(self, seat: int, boot: int | None, seq: int) -> None:
        # A refusal or a resync's ack leaves no input row: the journal keeps its number
        # before the answer goes out (a write it refuses leaves the event unanswered).
        with self._lock:
            if not self._storage_ok():
                raise Unanswered(f"{STORAGE_NOTICE}: the refusal cannot be journalled")
            with self._journal_or_rollback(self.session.checkpoint()):
                self.journal.record_answer(self.config.table.id, seat, boot, seq)

    def _resend_commands(self, seat: int) -> None:
        # The contract: a resync or a birth re-sends any standing command (an armed
        # roll); HubService republishes the view but only the session knows these.
        with self._lock:
            if self._started():
                self.outputs.standing_commands(self.session, [seat])
                if self.tray is not None:
                    self.tray.resend(seat)

    def start(self) -> None:
        """Connect, republish everything a seat and the LED board need, let bots move."""
        self.hub.start()
        # Once connected: a hub that cannot start says only why (one line).
        self._warn_unenrolled()
        with self._lock:
            self._send_standing_commands()
            self._publish_public()
            self._run_bots()
        self._poller.start()

    def stop(self) -> None:
        """Stop measuring the storage, finish the input in hand, disconnect, close."""
        self._stopping.set()
        if self._poller.is_alive():
            self._poller.join(timeout=5)
        self.hub.stop()
        self.journal.close()
        self.dice.close()

    # -- storage --------------------------------------------------------------

    def _storage_ok(self, *, publish: bool = True) -> bool:
        # Under the lock (or before start). True when the journal may be written.
        was = self.storage.full
        ok = self.storage.check()
        if self.storage.full != was:
            self._storage_changed(publish=publish)
        return ok

    def _storage_changed(self, *, publish: bool = True) -> None:
        full = self.storage.full
        self._show_notice(publish=publish)
        if self._on_storage is not None:
            self._on_storage(full)

    def _show_notice(self, *, publish: bool = True) -> None:
        self.outputs.notice(storage_full=self.storage.full, paused=self._paused,
                            publish=publish)

    def _poll_storage(self) -> None:
        while not self._stopping.wait(STORAGE_POLL_SECONDS):
            # On the worker, in turn with the inputs: it may move bots.
            self.hub.worker.submit(self._check_storage)

    def _check_storage(self) -> None:
        with self._lock:
            was_full = self.storage.full
            if self._storage_ok() and was_full:
                self._run_bots()  # any bot move the full disk held back

    # -- referee --------------------------------------------------------------

    @property
    def paused(self) -> bool:
        return self._paused

    def toggle_pause(self) -> bool:
        """Pause or resume the game (the panel's start/pause button); returns paused."""
        with self._lock:
            return self.set_paused(not self._paused)

    def set_paused(self, paused: bool) -> bool:
        """Pause or resume the game (``risktable table pause | resume``); returns paused."""
        with self._lock:
            if paused != self._paused:
                self._paused = paused
                log.info("game %d %s by the referee", self.game_id,
                         "paused" if paused else "resumed")
                self._show_notice()
            self._run_bots()
            return self._paused

    def new_game(self, rules: str | None = None, seats: int | None = None,
                 house: Mapping[str, str] | None = None, cards: str | None = None,
                 bots: Mapping[int, str] | None = None) -> int:
        """Start a new game at this table and make it current; returns its id.

        ``rules``, ``seats``, ``house``, ``cards`` ("physical" or "hub") and ``bots``
        (seat -> bot name, the seats the hub plays; kept with the game) default to the
        configuration's (a rule set given without seats takes the table's seats when it
        allows them: :func:`~risktable.game_rules.seats_for`).
        A running game is kept in the journal as abandoned (its export stays valid;
        ``games resume`` brings it back); an open card enrollment ends (the cards
        enrolled so far are kept). Raises :class:`RulesUnknown` for a game the hub
        cannot start (rules, seats, or a physical deck not wholly enrolled), with the
        game in hand and any enrollment untouched; the text names the shortest fix."""
        table = self.config.table
        name = rules if rules is not None else table.rules
        if seats is None:
            seats = table.seats if rules is None else seats_for(name, table.seats)
        if seats > self.hub.seats:
            raise RulesUnknown(too_many_seats(name, seats, self.hub.seats))
        chosen = rules_config(name, seats, table.house if house is None else house)
        handling = table.cards if cards is None else cards
        if handling not in CARD_MODES:
            raise RulesUnknown(f"cards must be {' or '.join(CARD_MODES)}, not {handling!r}")
        for seat, bot in (bots or {}).items():
            problem = bot_problem(seat, bot, seats)
            if problem is not None:
                raise RulesUnknown(problem)
        with self._lock:
            uids = (self._card_uids if self._fixed_uids
                    else load_card_uids(self.config.data_dir, chosen))
            missing = None if handling == "hub" else unenrolled(chosen, uids)
            if missing is not None:
                raise RulesUnknown(self._no_deck(missing))
            if self.journal.game(self.game_id).status == "running":
                self.journal.abandon(self.game_id)
                log.info("game %d abandoned by the referee", self.game_id)
            if self._started():
                # The old game's rolls end with it, also at a seat the new game does not
                # arm, or arms under the same roll number (numbers restart each game).
                self.outputs.disarm(self.session)
            if self._enrolling is not None:
                log.info("table %s: the enrollment at seat %d ends for a new game (%s "
                         "kept)", table.id, self._enrolling.seat, self._enrolling.progress())
                self._enrolling = None
            self.rules = chosen
            self._card_uids = dict(uids)
            self.game_id = self.journal.create_game(
                with_enrolled_deck(chosen, self.config.data_dir,
                                   physical=handling == "physical"), table.id, handling,
                None if bots is None else dict(bots))
            self.journal.set_current_game(table.id, self.game_id)
            log.info("table %s: new game %d (%s%s)", table.id, self.game_id,
                     describe(chosen, name), ", hub-dealt cards" if handling == "hub" else "")
            self.session = self._rebuild()
            self._warn_unenrolled()
            self._paused = False
            self._show_notice()
            self._show_views()
            self._publish_public()
            self._send_standing_commands()
            self._run_bots()
            return self.game_id

    def _no_deck(self, missing: str) -> str:
        # Why a new game with physical cards cannot start, and the shortest ways out.
        enrolling = self._enrolling
        first = (f"finish the enrollment at seat {enrolling.seat}" if enrolling is not None
                 else "run risktable cards enroll")
        return (f"no new game: {missing}; {first} first, or start it with hub-dealt "
                f"cards (games new --cards hub); game {self.game_id} carries on")

    def new_game_if_over(self) -> int | None:
        """The panel's start button held: a new game as configured when none is running
        (the last one was won); None, and nothing changes, while one is."""
        with self._lock:
            if self.session.state.phase != GAME_OVER:
                return None
            return self.new_game()

    def referee_undo(self, count: int = 1) -> int:
        """Take back the last ``count`` decisions and the chance outcomes that answered
        each (the panel's long press: one); returns how many were taken back (0 when
        there was nothing to undo). The seats are told what to do by hand: put a
        withdrawn card back, roll withdrawn dice again; the LED board lights the
        territories whose pieces move back (:mod:`risktable.service.undo_notes`)."""
        with self._lock:
            before = self.session.state
            withdrawn: list[Entry] = []
            done = 0
            while done < count:
                try:
                    withdrawn += self.journal.undo_last(self.game_id,
                                                        ActionMeta("referee")).entries
                except NothingToUndo:
                    break
                done += 1
            if not done:
                return 0
            self.session = self._rebuild()
            seats = self.session.seats
            armed = frozenset(target for seat in seats
                              for target, _ in self.session.standing_commands(seat))
            notes = undo_notes(before, self.session.state, withdrawn, seats, armed,
                               hub_cards=self.session.hub_cards,
                               language=self.hub.seat_language)
            self._show_views()
            self.outputs.undone(self.session, notes)
            self.outputs.standing_commands(self.session, armed)
            self._tray_sync()
            self._publish_public(highlight=notes.moved)
            log.info("game %d: the referee undid %d decision%s", self.game_id, done,
                     "" if done == 1 else "s")
            return done

    # -- enrollment -----------------------------------------------------------

    @property
    def enrolling(self) -> TableEnrollment | None:
        """The card enrollment in progress, or None."""
        return self._enrolling

    def start_enrollment(self, seat: int, deck: str | None = None,
                         restart: bool = False) -> str:
        """Enroll the physical deck (``deck``, default the game's) at ``seat``'s reader
        (:mod:`risktable.service.enrolling`); the game waits until every card is in.
        Returns one line saying what is enrolled where."""
        if not 1 <= seat <= self.hub.seats:
            raise ValueError(f"seat {seat}: this hub serves seats 1 to {self.hub.seats}")
        with self._lock:
            chosen = deck or self.session.config.options.deck
            self._enrolling = TableEnrollment(self.config.data_dir, self.session.config.board,
                                              chosen, seat, restart,
                                              self.config.table.names.get(seat))
            said = (f"enrolling the {chosen} deck at seat {seat}: "
                    f"{self._enrolling.progress()} known; saved after each card")
            log.info("table %s: %s", self.config.table.id, said)
            if self._enrolling.done:
                self._finish_enrollment()
            else:
                self.outputs.enrolling(self._enrolling)
            return said

    def cancel_enrollment(self) -> str:
        """End the card enrollment in progress (``risktable cards cancel``); the cards
        enrolled so far stay saved, and ``risktable cards enroll`` carries on from there.
        Returns one line saying so; ``ValueError`` when none is open."""
        with self._lock:
            enrolling = self._enrolling
            if enrolling is None:
                raise ValueError("no card enrollment is open (risktable cards enroll "
                                 "starts one)")
            self._close_enrollment()
            return (f"the enrollment at seat {enrolling.seat} is cancelled with "
                    f"{enrolling.progress()} kept; risktable cards enroll resumes it")

    def _finish_enrollment(self) -> None:
        enrolling = self._enrolling
        assert enrolling is not None
        log.info("table %s: the %s deck is enrolled (%s)", self.config.table.id,
                 enrolling.deck, enrolling.progress())
        self._close_enrollment()

    def _close_enrollment(self) -> None:
        # The game in hand takes the cards enrolled so far and shows itself again; it
        # starts if its deck is now whole.
        enrolling = self._enrolling
        assert enrolling is not None
        self._enrolling = None
        if not self._fixed_uids:
            self._card_uids = load_card_uids(self.config.data_dir, self.rules)
        self.session = self._rebuild()
        if self._started():
            log.info("game %d starts: its deck is enrolled", self.game_id)
        self._show_views()
        self._publish_public()
        self._send_standing_commands()
        self._run_bots()

    def _enroll_input(self, seat: int, msg: dict[str, Any]) -> ProtocolError | None:
        # Under _on_event's lock. An accepted input leaves no journalled action, so its
        # number is journalled here (HubService records only refusals itself).
        enrolling = self._enrolling
        assert enrolling is not None
        step = enrolling.input(seat, msg)
        if not step.accepted:
            return ProtocolError("not_allowed", step.detail)
        self._record_answer(seat, self.hub.gate.tracker(seat).boot, msg["seq"])
        if enrolling.done:
            self._finish_enrollment()
        else:
            self.outputs.enrolling(enrolling)
        return None

    # -- inputs ---------------------------------------------------------------

    def inspect(self, look: Callable[[TableSession], T]) -> T:
        """``look(session)`` while no input or bot move can change the session."""
        with self._lock:
            return look(self.session)

    def _on_event(self, seat: int, msg: dict[str, Any]) -> ProtocolError | None:
        with self._lock:
            error = self._answer(seat, msg)
            if error is not None and msg["kind"] == "dice" and self._started() and \
                    self.outputs.disarm(self.session, [seat], msg.get("roll")):
                # A refused roll still armed is asked for again, as after a resync (the
                # tray's read, if any, again too).
                self._resend_commands(seat)
            if self._on_input is not None:
                self._on_input(seat, msg, error)
            return error

    def _answer(self, seat: int, msg: dict[str, Any]) -> ProtocolError | None:
        # Under _on_event's lock. Pairing is the table's hardware, not the game's: it
        # goes on whatever the game does (enrollment, pause, over).
        if msg["kind"] in ("pair", "unpair"):
            return self.seat_dice.pair(seat, msg, lambda: self._record_answer(
                seat, self.hub.gate.tracker(seat).boot, msg["seq"]))
        if self._enrolling is not None:
            return self._enroll_input(seat, msg)
        refused = self._refused(seat, msg)
        if refused is not None:
            return refused
        if is_hint_request(msg):
            return self._hint(seat, msg)
        before = self.session.checkpoint()
        if msg["kind"] == "dice" and self.tray is not None:
            msg = self.tray.as_read(seat, msg)  # its dice accepted as the tray read them
        # The seats' views and the LED highlight are worked out after the ack
        # (with_views): only the rules and the journal stand between input and ack.
        outcome = self.session.handle(seat, msg, views=False)
        if outcome.error is not None:
            if outcome.views:  # a refused input took its seat's hint down
                self._publish(outcome)
            return outcome.error
        meta = ActionMeta("seat", seat=seat)
        items = [(action, meta) for action in outcome.actions]
        with self._journal_or_rollback(before):
            self.journal.record_input(
                self.game_id,
                SeatInput(seat, self.hub.gate.tracker(seat).boot, msg["seq"], dict(msg),
                          self.session.ui_state()),
                items, retracted=outcome.retracted,
                dice=tuple(DieFace(die, face) for die, face in outcome.dice),
            )
        # Committed: the seat may hear so now; what it changed goes out after.
        self.hub.answer_now()
        outcome = self.session.with_views(outcome)
        if msg["kind"] == "dice":
            self.seat_dice.rolled(seat, msg["dice"])
        self._publish(outcome)
        # The free space was measured for this input a moment ago, before its journal
        # write (which min_free leaves room for): a second statvfs would only delay the
        # next input, which waits for this worker.
        self._run_bots(storage_checked=True)
        return None

    def _hint(self, seat: int, msg: dict[str, Any]) -> ProtocolError | None:
        # Under _on_event's lock. A hint is no input of the game: only its number is
        # journalled (as a refusal's is), and the seat hears so before the hard bot's
        # search runs (bench/bench_coach.py measures it).
        refused = self.session.hint_refused(seat)
        if refused is not None:
            return refused
        self._record_answer(seat, self.hub.gate.tracker(seat).boot, msg["seq"])
        self.hub.answer_now()
        self._publish(self.session.hint(seat))
        return None

    def _refused(self, seat: int, msg: dict[str, Any]) -> ProtocolError | None:
        # Why the game takes no input from ``seat`` now, before the session sees it (or
        # Unanswered while the journal has no room: the seat sends it again later).
        if seat not in self.session.seats:
            with i18n.using(self.hub.seat_language(seat)):
                return ProtocolError("not_allowed", _("Seat {n} does not play in this game")
                                     .format(n=seat))
        if self.session.state.phase == GAME_OVER:
            with i18n.using(self.hub.seat_language(seat)):
                return ProtocolError("not_allowed", _("The game is over"))
        if not self._started():
            return ProtocolError("not_allowed", _(NOT_STARTED_REASON))
        if self._paused:
            return ProtocolError("not_allowed", _("The referee has paused the game"))
        if not self._storage_ok():
            raise Unanswered(f"{STORAGE_NOTICE}: {self.storage.free // 1024} KiB free, "
                             f"{self.storage.min_free // 1024} KiB needed")
        if msg["kind"] == "dice":
            return self.seat_dice.refused_roll(seat, msg)
        if msg["kind"] == "button" and msg.get("button") == "roll" and \
                self.hub.types_dice(seat) and self.session.standing_commands(seat):
            # The Roll button of a seat asked for dice it has none of: how to give them.
            return ProtocolError("not_allowed", self._typed_roll_hint(seat))
        return None

    def _typed_roll_hint(self, seat: int) -> str:
        # A battle roll at a tray table is rolled into the tray; any other is entered.
        at_tray = self.tray is not None and armed_side(self.session, seat) is not None
        with i18n.using(self.hub.seat_language(seat)):
            if at_tray:
                return _("Roll your dice into the tray, or enter them: turn, press Confirm")
            return _("Enter your dice: turn to each face, press Confirm")

    @contextlib.contextmanager
    def _journal_or_rollback(self, before: Checkpoint) -> Iterator[None]:
        # The session applied the input in memory first; if the journal cannot take
        # it (disk full, I/O error), the session goes back to ``before``, which is
        # what the journal holds (no replay of the game), and the input stays
        # unanswered, so the seat sends it again later.
        try:
            yield
        except (sqlite3.Error, JournalError, OSError) as exc:
            self.session.rollback(before)
            if _out_of_space(exc):
                self.storage.refused()
                self._storage_changed()
                log.warning("game %d: the journal has no room (%s); the table stays as "
                            "journalled", self.game_id, exc)
            else:
                log.exception("game %d: the journal refused a write; the table stays as "
                              "journalled", self.game_id)
            raise Unanswered(f"the journal refused the write: {exc}") from exc

    def _run_bots(self, *, storage_checked: bool = False) -> None:
        # ``storage_checked``: the caller found room just now; the first step needs no
        # new measurement (every later one does: bot moves are journalled too).
        if self._paused or self._enrolling is not None or not self._started():
            return
        for step in range(_MAX_BOT_STEPS):
            if not (storage_checked and step == 0) and not self._storage_ok():
                return  # the bots move on once there is room (_check_storage)
            before = self.session.checkpoint()
            outcome = self.session.step_bots()
            if outcome is None:
                return
            try:
                with self._journal_or_rollback(before):
                    self.journal.append_all(
                        self.game_id, [(a, ActionMeta("bot")) for a in outcome.actions]
                    )
            except Unanswered:
                return
            self._publish(outcome)
        log.error("game %d: bots did not yield after %d steps", self.game_id, _MAX_BOT_STEPS)

    def _presence_changed(self) -> None:
        # A seat came or went: the other seats' screens say who is offline, and a seat
        # born speaking another language has its screen written again in it.
        with self._lock:
            session = self.session
            offline = set(session.seats) - self.hub.online_seats()
            started = self._started()  # until then every seat shows why the game waits
            changed = session.set_offline(offline)
            if started:
                self._publish(changed)
            relabelled = False
            for seat in session.seats:
                lang = self.hub.seat_language(seat)
                if session.language(seat) != lang:
                    relabelled = True
                    relabel = session.set_language(seat, lang)
                    if started:
                        self._publish(relabel)
            if relabelled and not started:
                self._show_views()

    # -- outputs --------------------------------------------------------------

    def _show_views(self, *, publish: bool = True) -> None:
        self.outputs.views(self.session, started=self._started(), publish=publish)

    def _publish(self, outcome: Outcome) -> None:
        self.outputs.outcome(self.session, outcome)
        if outcome.commands:
            self._tray_sync()
        if outcome.actions or outcome.retracted:
            self._note_victory()

    def _publish_public(self, highlight: frozenset[str] | None = None) -> None:
        self.outputs.public(self.session, highlight)
        self._note_victory()

    def _note_victory(self) -> None:
        # A game just won is finished in the journal once, and the panel told.
        state = self.session.state
        if state.phase == GAME_OVER:
            game = self.journal.game(self.game_id)
            if game.status == "running":
                self.journal.finish(self.game_id, state.winner)
                log.info("game %d won by seat %d", self.game_id, state.winner + 1)
                if self._on_victory is not None:
                    self._on_victory(state.winner + 1)


__all__ = [
    "NOT_STARTED", "NOT_STARTED_REASON", "OUT_OF_GAME", "PAUSED_NOTICE", "SEED_FILE",
    "STORAGE_NOTICE", "STORAGE_POLL_SECONDS", "TableService", "chance_rng", "load_card_uids",
    "rules_config", "with_enrolled_deck",
]
