"""The demo: broker, hub and seat firmwares on this machine, and the LED view.

Everything is real except the hardware: the seats run the actual firmware
under the MicroPython unix port on its emulated board, and talk to the hub
through an MQTT broker (embedded amqtt unless ``--broker`` names one).
"""

from __future__ import annotations

import contextlib
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from risktable import i18n
from risktable.broker_address import BrokerAddress
from risktable.config import BrokerConfig, HubConfig, LedConfig, TableConfig, TrayConfig
from risktable.defaults import DEFAULT_RULES, DEFAULT_SEATS
from risktable.demo.broker import EmbeddedBroker
from risktable.demo.game import GameSummary, Screen, end_reason
from risktable.demo.keyboard import Keyboard, Painter, cbreak, seat_panel, session_card_keys
from risktable.demo.pilot import PilotError, SeatPilot, board_line, demo_card_uids
from risktable.demo.seats import SeatProcess, ring_shows
from risktable.game_rules import RulesUnknown, rules_config
from risktable.hardware.palette import seat_colour
from risktable.i18n import N_, _, numbers
from risktable.journal.store import SLOW_COMMIT_S, Journal
from risktable.leds.scene import Scene
from risktable.rules.bots import BOTS, DEFAULT_BOT, LEVELS, level_of
from risktable.rules.state import GAME_OVER, State
from risktable.service.hub import HubService
from risktable.service.table_service import TableService
from risktable.table.public import led_scene
from risktable.table.session import TableSession
from risktable.unix_port import find_micropython
from risktable.web.server import BoardPageServer, PageConfig

if TYPE_CHECKING:
    from risktable.demo.tray import DemoTray

_PERSON_PACE = 0.05  # seconds after each bot input while a person plays: to follow the game


class DemoError(Exception):
    """The demo could not run; the message names the problem and the fix."""


@dataclass(frozen=True)
class DemoOptions:
    """What ``risktable demo`` was asked to do."""

    seats: int = DEFAULT_SEATS
    rules: str = DEFAULT_RULES
    broker: BrokerAddress | None = None
    port: int = 0
    micropython: str | None = None
    table: str = "demo"
    seed: int = 1
    # The bots of the seats no person plays, in seat order (risktable.rules.bots.KINDS):
    # one name for every such seat, or one per seat; none: the default bot.
    bots: tuple[str, ...] = ()
    colour: bool = True
    seat_timeout: float = 30.0
    turn_delay: float = 0.05
    play: int | None = None  # the seat a person plays from the keyboard (demo/keyboard.py)
    keyboard: TextIO | None = None  # the person's terminal (stdin)
    web: bool = False  # serve the live board page (embedded broker's WebSockets listener)
    web_port: int = 0  # the page's HTTP port on 127.0.0.1 (0: a free one)
    on_web: Callable[[str], None] | None = None  # told the page's address before the game
    # Seats played from the phone seat page (with web): no firmware runs for them, their
    # links are printed with a QR code, the hub keeps the hands (a phone has no NFC
    # reader) and the game starts once every such page is online.
    phones: tuple[int, ...] = ()
    phone_timeout: float = 300.0  # how long a printed link may take to be opened
    on_phone: Callable[[int, str], None] | None = None  # told each phone seat's link
    # Called after the game with the hub's data folder (its journal), while the broker
    # and the page are still up: the CLI waits for Ctrl-C there, tests look at the page.
    after_game: Callable[[Path], None] | None = None
    # The language of every seat's screen and of the demo's own lines (risktable.i18n).
    lang: str = "en"
    on_seat: Callable[[SeatProcess], None] | None = None  # told each seat before it starts
    # Each battle roll a tray photo composed from real dice, read by the real reader and
    # tray service and accepted or corrected at the seat (demo/tray.py).
    tray: bool = False


def _diagnose(seats: list[SeatProcess], hub: HubService, journal: Journal) -> str:
    online = hub.online_seats()
    for seat in seats:
        if not seat.alive():
            tail = seat.stderr_tail[-1] if seat.stderr_tail else "no output"
            return f"seat {seat.seat} firmware exited: {tail}"
    # The hub answers an input only once it is on disk: a stalled disk stalls the table.
    waited = journal.commit_waiting()
    if waited >= SLOW_COMMIT_S:
        return (f"the hub has waited {waited:.0f} s for the disk to confirm a journal write; "
                "the machine's storage is stalled")
    missing = sorted({seat.seat for seat in seats} - online)
    if not missing:
        return "every seat firmware is running and online; " + "; ".join(
            _seat_state(seat) for seat in seats)
    last = [seat.stderr_tail[-1] for seat in seats if seat.seat in missing and seat.stderr_tail]
    said = f" (it said: {last[0]})" if last else ""
    return f"seats {missing} did not come online though their firmware is running{said}"


def _seat_state(seat: SeatProcess) -> str:
    # What a stalled seat shows and was armed for, and its last log line: enough to tell
    # an entry left open from a seat waiting for the hub.
    outputs = dict(seat.outputs)
    shown = " | ".join(str(line) for line in outputs.get("oled") or [])
    said = seat.stderr_tail[-1] if seat.stderr_tail else "nothing"
    return (f"seat {seat.seat} shows {shown!r}, armed {outputs.get('armed')}, last "
            f"refused {outputs.get('refused')!r}, last said {said!r}")


def _config(options: DemoOptions, address: BrokerAddress, data_dir: Path) -> HubConfig:
    # No bots at the hub: the demo's bots sit at the seats (demo/pilot.py), and the
    # screens call each of their seats by its level.
    return HubConfig(
        broker=BrokerConfig(address),
        table=TableConfig(id=options.table, seats=options.seats, rules=options.rules,
                          cards="hub" if options.phones else "physical",
                          language=options.lang, names=bot_names(options)),
        leds=LedConfig(enabled=False),
        panel_enabled=False,
        data_dir=data_dir,
        tray=TrayConfig(enabled=options.tray),
    )


def run_demo(options: DemoOptions, out: TextIO) -> GameSummary:
    """Start everything, wait for the seats, let the bots play, and tear it all down."""
    with i18n.using(options.lang):
        return _run_demo(options, out)


def _run_demo(options: DemoOptions, out: TextIO) -> GameSummary:
    micropython = find_micropython(options.micropython)
    try:
        rules = rules_config(options.rules, options.seats)
    except RulesUnknown as exc:
        raise DemoError(str(exc)) from exc
    _check_people(options, out)
    levels = bot_levels(options)
    person = options.play
    phones = options.phones
    with contextlib.ExitStack() as stack:
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="risktable-")))
        address, page, ws_url = _broker(options, stack, out, workdir / "hub")
        # A person's view is always redrawn in place (--play needs a terminal).
        live = out.isatty() and (options.colour or person is not None)
        screen = Screen(out, colour=options.colour, live=live, delay=options.turn_delay,
                        lang=options.lang)
        config = _config(options, address, workdir / "hub")
        cards = demo_card_uids(rules.board, rules.options.deck)
        seats: dict[int, SeatProcess] = {}
        trays: list[DemoTray] = []  # the demo's tray, once the hub runs

        def stalled() -> bool:
            # The hub waits for its disk (`service` is made below, before anything waits):
            # the bots wait it out, as people at the table would (demo/patience.py).
            return service.journal.commit_waiting() >= SLOW_COMMIT_S

        pilot = SeatPilot(lambda seat, line: seats[seat].press(line, options.seat_timeout,
                                                               stalled),
                          lambda seat, roll, count, timeout: _armed(seats[seat], roll, count,
                                                                    timeout),
                          cards, seed=options.seed, timeout=options.seat_timeout,
                          people=_people(options), levels=levels,
                          pace=0.0 if person is None else _PERSON_PACE,
                          restarts=lambda seat: seats[seat].restarts if seat in seats else 0,
                          make=_maker(trays, seats, options.seat_timeout, stalled)
                          if options.tray else None,
                          stalled=stalled)
        painter: Painter | None = None
        keyboard: Keyboard | None = None  # the person's keys, once the seats run
        if person is not None:
            painter = Painter(lambda scene, state: _draw_for_person(
                screen, service, seats[person], scene, state,
                "" if keyboard is None else keyboard.note, tray=options.tray))
        service = TableService(
            config, rules=rules, card_uids=cards, seed=options.seed, paused=True,
            on_input=pilot.on_input,
            show_leds=lambda scene: (screen.show(scene, service.session.state) if painter is None
                                     else painter.update(scene, service.session.state)),
        )
        stack.callback(service.stop)
        service.start()
        print(_("hub online for table {table}").format(table=repr(options.table)), file=out)
        seats.update(_start_seats(options, micropython, address, workdir, service, stack, out))
        if options.tray:
            # Imported only now: the tray needs the camera-read extra (OpenCV, onnxruntime).
            from risktable.demo.tray import DemoTray

            tray = DemoTray(service, address, options.table, seats, seed=options.seed,
                            timeout=options.seat_timeout, stalled=stalled).start()
            stack.callback(tray.stop)
            trays.append(tray)
            print(_("the dice tray reads the battles' dice from photos of real dice"),
                  file=out)
        if phones:
            assert page is not None and ws_url is not None
            _phone_seats(options, service, page.url, ws_url, out)
        if person is not None and painter is not None and options.keyboard is not None:
            stack.enter_context(cbreak(options.keyboard))
            stack.callback(painter.stop)
            painter.start()
            _watch_outputs(seats[person], painter, pilot)
            card_keys = session_card_keys(service.inspect, person, cards, seed=options.seed,
                                          lang=options.lang)
            # At the tray the person's r rolls their battle dice into it, as the bots'.
            roll = (lambda: trays[0].roll(person)) if trays else None
            keyboard = Keyboard(options.keyboard, person, seats[person].send, card_keys,
                                pilot.stop, noted=painter.poke, roll=roll).start()
        service.toggle_pause()
        # The bots play the whole game now, at the seats, through the firmware.
        started = time.monotonic()
        try:
            inputs = pilot.play(service)
        except PilotError as exc:
            why = _diagnose(list(seats.values()), service.hub, service.journal)
            raise DemoError(f"{exc} ({why})") from exc
        elapsed = time.monotonic() - started
        if painter is not None:
            painter.stop()
        summary = _game_summary(service, screen, pilot.stopped, out)
        if summary.winner_seat is not None:
            print(_("the bots made {n} seat inputs through the firmware in {seconds} s "
                    "({ms} ms each)").format(
                n=inputs, seconds=numbers.decimal(elapsed),
                ms=numbers.decimal(elapsed / max(inputs, 1) * 1000)), file=out)
            if options.after_game is not None:
                options.after_game(config.data_dir)
        return summary


def _maker(trays: list[DemoTray], seats: dict[int, SeatProcess], patience: float,
           stalled: Callable[[], bool]) -> Callable[[int, dict[str, Any]], None]:
    # The pilot's inputs with the tray: dice through it, the rest typed as board lines.
    def make(seat: int, event: dict[str, Any]) -> None:
        if trays and event["kind"] == "dice":
            trays[0].enter(seat, event)
        else:
            seats[seat].press(board_line(event), patience, stalled)
    return make


def _people(options: DemoOptions) -> frozenset[int]:
    # The seats people play (--play, --phone); the demo's bots play the others.
    return frozenset(options.phones) | (frozenset() if options.play is None
                                        else frozenset({options.play}))


def bot_levels(options: DemoOptions) -> dict[int, str]:
    """The bot of each seat no person plays, from ``options.bots`` (one name for them all,
    or one per such seat in seat order); empty when none is named (the default bot).

    >>> bot_levels(DemoOptions(seats=4, bots=("hard", "easy", "easy"), play=2))
    {1: 'hard', 3: 'easy', 4: 'easy'}
    """
    people = _people(options)
    bot_seats = [s for s in range(1, options.seats + 1) if s not in people]
    names = options.bots
    unknown = [n for n in names if n not in BOTS]
    if unknown:
        raise DemoError(f"--bots: no bot is called {unknown[0]!r}; the levels are "
                        + ", ".join(LEVELS))
    if len(names) == 1:
        names = names * len(bot_seats)
    if names and len(names) != len(bot_seats):
        raise DemoError(f"--bots names {len(names)} bots for the {len(bot_seats)} seats "
                        "no person plays: name one for them all or one for each")
    return dict(zip(bot_seats, names, strict=True)) if names else {}


# How the screens call a seat the demo's bots play: its level and its number (a bot
# of no level, random, is just a bot).
_BOT_NAMES = {"easy": N_("Easy bot {n}"), "normal": N_("Normal bot {n}"),
              "hard": N_("Hard bot {n}"), "": N_("Bot {n}")}


def bot_names(options: DemoOptions) -> dict[int, str]:
    """How the screens call each seat no person plays, in the context's language: its
    bot's level and the seat ("Hard bot 3"), as a table's bot seats name theirs.

    >>> bot_names(DemoOptions(seats=3, bots=("hard", "random"), play=2))
    {1: 'Hard bot 1', 3: 'Bot 3'}
    """
    levels = bot_levels(options)
    people = _people(options)
    return {seat: _(_BOT_NAMES[level_of(levels.get(seat, DEFAULT_BOT)) or ""]).format(n=seat)
            for seat in range(1, options.seats + 1) if seat not in people}


def _check_people(options: DemoOptions, out: TextIO) -> None:
    # The seats played by people (--play, --phone) before anything starts.
    person = options.play
    if person is not None:
        if not 1 <= person <= options.seats:
            raise DemoError(f"--play {person}: the seats are 1 to {options.seats}")
        if options.keyboard is None or not options.keyboard.isatty() or not out.isatty():
            raise DemoError("--play needs an interactive terminal (stdin and stdout a tty)")
    phones = options.phones
    if not phones:
        return
    if not options.web:
        raise DemoError("--phone needs --web: the phone seat page is served beside the "
                        "board page")
    if len(set(phones)) != len(phones):
        raise DemoError("--phone: a seat is named twice")
    wrong = [n for n in phones if not 1 <= n <= options.seats]
    if wrong:
        raise DemoError(f"--phone {wrong[0]}: the seats are 1 to {options.seats}")
    if person in phones:
        raise DemoError(f"seat {person} cannot be played from the keyboard and a phone")


def _broker(options: DemoOptions, stack: contextlib.ExitStack, out: TextIO,
            data_dir: Path) -> tuple[BrokerAddress, BoardPageServer | None, str | None]:
    # The broker the demo uses (--broker, or an embedded one), and with --web the live
    # board page beside the embedded broker's WebSockets listener.
    if options.broker is not None:
        if options.web:
            raise DemoError("--web needs the embedded broker (its WebSockets listener): "
                            "leave out --broker")
        return options.broker, None, None
    broker = stack.enter_context(EmbeddedBroker(
        port=options.port, ws_port=0 if options.web else None))
    print(_("embedded MQTT broker on {address}").format(address=broker.address), file=out)
    if not options.web:
        return broker.address, None, None
    ws_url = f"ws://{broker.host}:{broker.ws_port}/"
    page = stack.enter_context(BoardPageServer(
        PageConfig(ws_url, options.table, players=options.seats,
                   tray=data_dir if options.tray else None), port=options.web_port))
    print(_("live board page on {url} (MQTT over WebSockets on {address})").format(
        url=page.url + _lang_query(options.lang), address=f"{broker.host}:{broker.ws_port}"),
        file=out)
    if options.on_web is not None:
        options.on_web(page.url)
    return broker.address, page, ws_url


def _start_seats(options: DemoOptions, micropython: str, address: BrokerAddress,
                 workdir: Path, service: TableService, stack: contextlib.ExitStack,
                 out: TextIO) -> dict[int, SeatProcess]:
    # A seat firmware for every seat no phone plays, each online and showing its colour.
    started = time.monotonic()
    seats: dict[int, SeatProcess] = {}
    for number in range(1, options.seats + 1):
        if number in options.phones:
            continue
        extra: dict[str, Any] = {"lang": options.lang}
        if options.tray:
            extra["dice"] = "manual"  # the tray's read is accepted at the typed-dice entry
        seat = SeatProcess(micropython, number, options.table, address, workdir,
                           extra_config=extra)
        stack.callback(seat.stop)
        if options.on_seat is not None:
            options.on_seat(seat)
        # Supervised as a chip: a seat its watchdog resets starts again (demo/seats.py).
        seats[number] = seat.start(say=lambda line: print(line, file=out, flush=True))
        # One at a time: amqtt has a race between simultaneous connects.
        if not service.hub.wait_for_seats([number], options.seat_timeout):
            raise DemoError(_diagnose(list(seats.values()), service.hub, service.journal))
    print(_("{n} seat firmwares online under MicroPython in {seconds} s").format(
        n=len(seats), seconds=numbers.decimal(time.monotonic() - started, 2)), file=out)
    for seat in seats.values():
        if options.tray:
            break  # the typed-dice entry of the armed opening roll holds the ring
        colour = seat_colour(seat.seat)
        if not _shows_colour(seat, colour.rgb, options.seat_timeout):
            raise DemoError(f"seat {seat.seat} never showed its colour on its LED ring")
        print(_("  seat {seat}: ring shows {colour}").format(
            seat=seat.seat, colour=i18n.colour(colour.name)), file=out)
    return seats


def _game_summary(service: TableService, screen: Screen, stopped: bool,
                  out: TextIO) -> GameSummary:
    # How the game ended: won, or left by the person playing (no winner then).
    state = service.session.state
    actions = len(service.session.log)
    if stopped and state.phase != GAME_OVER:
        print("\n" + _("You left the game at turn {n}.").format(n=state.turn), file=out)
        return GameSummary(None, state.turn, actions)
    if state.phase != GAME_OVER:
        raise DemoError(f"the bots stopped in phase {state.phase_name}, turn {state.turn}")
    screen.frame(led_scene(state), state, _("Game over after {n} turns").format(
        n=state.turn))
    winner = state.winner + 1
    print(_("{colour} (seat {seat}) wins after {turns} turns and {actions} actions: "
            "{why}").format(colour=i18n.colour(seat_colour(winner).name), seat=winner,
                            turns=state.turn, actions=actions, why=end_reason(state)),
          file=out)
    return GameSummary(winner, state.turn, actions)


def _lang_query(lang: str) -> str:
    # The demo's language for its pages too; English pages follow the browser's.
    return "" if lang == i18n.DEFAULT else f"?lang={lang}"


def _phone_seats(options: DemoOptions, service: TableService, page: str, ws_url: str,
                 out: TextIO) -> None:
    # Each phone seat's link and QR code, then the wait for its page's birth. The embedded
    # broker is anonymous, so the links carry no account.
    import segno

    from risktable.provision.phone_seat import seat_page_url

    for number in options.phones:
        url = seat_page_url(page, options.table, number, "", "", ws_url,
                            lang=None if options.lang == i18n.DEFAULT else options.lang)
        print(_("seat {seat} is played from the phone seat page: open this link in a "
                "browser on this machine (the demo's broker listens on loopback only)").format(
            seat=number), file=out)
        segno.make(url, error="m").terminal(out=out, compact=True)
        print(f"  {url}", file=out, flush=True)
        if options.on_phone is not None:
            options.on_phone(number, url)
    for number in options.phones:
        print(_("waiting up to {seconds} s for seat {seat}'s page").format(
            seconds=f"{options.phone_timeout:g}", seat=number), file=out, flush=True)
        if not service.hub.wait_for_seats([number], options.phone_timeout):
            raise DemoError(f"seat {number}'s phone page did not come online within "
                            f"{options.phone_timeout:g} s (open the link printed above)")
        print(_("  seat {seat}: phone page online").format(seat=number), file=out, flush=True)


def _draw_for_person(screen: Screen, service: TableService, seat: SeatProcess, scene: Scene,
                     state: State, note: str, *, tray: bool = False) -> None:
    # The LED board, the standings and what the person's seat shows (and why their last
    # key did nothing), redrawn in place.
    def panel_of(session: TableSession) -> str:
        with i18n.using(screen.lang):  # inspect runs on the service's thread
            return seat_panel(session, seat.seat, dict(seat.outputs), note,
                              typed=seat.dice == "manual", tray=tray)

    panel = service.inspect(panel_of)
    with i18n.using(screen.lang):
        screen.frame(scene, state, _("Turn {n}").format(n=state.turn), panel)


def _watch_outputs(seat: SeatProcess, painter: Painter, pilot: SeatPilot) -> None:
    # The person's seat shows a new view a moment after the hub's scene: redraw then too.
    def watch() -> None:
        # Compared with the outputs last drawn for, not a fresh copy: a change between
        # two waits is then never missed.
        seen = dict(seat.outputs)
        while not pilot.stopped and seat.alive():
            if _outputs_differ(seat, seen, 0.5):
                seen = dict(seat.outputs)
                painter.poke()

    threading.Thread(target=watch, name="seat-watch", daemon=True).start()


def _outputs_differ(seat: SeatProcess, seen: dict[str, Any], timeout: float) -> bool:
    return seat.wait_until(lambda outputs: outputs != seen, timeout)


def _armed(seat: SeatProcess, roll: int, count: int, timeout: float) -> bool:
    return seat.wait_until(lambda outputs: outputs.get("armed") == [roll, count], timeout)


def _shows_colour(seat: SeatProcess, rgb: tuple[int, int, int], timeout: float) -> bool:
    return seat.wait_until(lambda outputs: ring_shows(outputs, rgb), timeout)
