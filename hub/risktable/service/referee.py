"""The referee's requests to a running hub (``risktable table ...``, ``games new``).

A request arrives on ``risk/<table>/referee/request`` (protocol/README.md,
"Referee requests"), written only by the referee account through the guest
broker; :func:`referee_answer` carries it out on the hub's worker thread, in
turn with the seats' inputs, and returns the fields of the ``referee_reply``
that goes back on ``risk/<table>/referee/reply``. Every answer says in one
line what happened or why nothing did.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from riskproto.messages import MAX_REPLY_DETAIL
from risktable.config import parse_bot_pair
from risktable.game_rules import describe, parse_house_pair
from risktable.journal import JournalError
from risktable.rules.state import GAME_OVER

if TYPE_CHECKING:
    from risktable.service.table_service import TableService


def status_line(service: TableService) -> str:
    """Where the table's game stands, in one line."""
    def look(_: object) -> str:
        enrolling = service.enrolling
        if enrolling is not None:
            return (f"game {service.game_id} waits: seat {enrolling.seat} enrolls the "
                    f"{enrolling.deck} deck, {enrolling.progress()} so far")
        session = service.session
        state = session.state
        head = f"game {service.game_id} ({describe(state.config)})"
        if service.deck_problem() is not None:
            return f"{head}: not started, its deck is not enrolled"
        # The players' names, as the seats' screens give them ("Ana to play").
        if state.phase == GAME_OVER:
            where = f"won by {session.name(session.seats[state.winner])}"
        else:
            mover = state.player
            turn = (f", {session.name(session.seats[mover])} to play"
                    if 0 <= mover < len(session.seats) else "")
            where = f"{state.phase_name}{turn}"
        return f"{head}: {where}{', paused' if service.paused else ''}"
    return service.inspect(look) + firmware_note(service)


def firmware_note(service: TableService) -> str:
    """"; seat 2 runs firmware X, not the hub's Y" for every seat out of date, or ""."""
    hub = service.hub
    odd = hub.firmware_mismatches()
    if not odd:
        return ""
    seats = ", ".join(f"seat {seat} runs firmware {fw}" for seat, fw in odd.items())
    return f"; {seats}, not the hub's {hub.firmware}"


def _undo(service: TableService, count: int) -> str:
    done = service.referee_undo(count)
    if done == 0:
        return f"nothing to undo in game {service.game_id}"
    said = f"undid {done} action{'s' if done != 1 else ''}"
    return said if done == count else f"{said}; nothing more to undo"


def _new_game(service: TableService, request: dict[str, Any]) -> str:
    before = service.game_id
    enrolling = service.enrolling
    house = dict(parse_house_pair(pair) for pair in request.get("house", []))
    bots = dict(parse_bot_pair(pair) for pair in request.get("bots", []))
    game = service.new_game(request.get("rules"), request.get("seats"),
                            house if "house" in request else None, request.get("cards"),
                            bots if "bots" in request else None)
    dealt = ", hub-dealt cards" if service.session.hub_cards else ""
    if "bots" in request:
        dealt += ", bots " + (" ".join(f"{s}={n}" for s, n in sorted(bots.items())) or "none")
    what = f"({describe(service.rules, request.get('rules'))}{dealt})"
    ended = ("" if enrolling is None else f"; the enrollment at seat {enrolling.seat} "
             f"ended ({enrolling.progress()} kept)")
    return f"game {game} started {what}; game {before} kept as abandoned{ended}"


def referee_answer(service: TableService, request: dict[str, Any]) -> dict[str, Any]:
    """Carry out one validated ``referee`` request; the reply's fields (without
    ``v`` and ``t``)."""
    op = request["op"]
    accepted = True
    try:
        if op == "pause":
            detail = "paused" if service.set_paused(True) else "running"
        elif op == "resume":
            detail = "paused" if service.set_paused(False) else "resumed"
        elif op == "undo":
            detail = _undo(service, request.get("count", 1))
            accepted = not detail.startswith("nothing")
        elif op == "new_game":
            detail = _new_game(service, request)
        elif op == "enroll":
            detail = service.start_enrollment(request.get("seat", 1), request.get("deck"),
                                              request.get("restart", False))
        elif op == "enroll_cancel":
            detail = service.cancel_enrollment()
        else:
            detail = ""
        line = status_line(service)
        detail = f"{detail}; {line}" if detail and line else detail or line
    except (ValueError, JournalError) as exc:  # RulesUnknown, DeckFileError, a bad seat,
        # no enrollment to cancel
        accepted, detail = False, str(exc)
    if len(detail) > MAX_REPLY_DETAIL:
        detail = detail[: MAX_REPLY_DETAIL - 3] + "..."
    return {"id": request["id"], "accepted": accepted, "detail": detail,
            "game": service.game_id, "paused": service.paused,
            "actions": service.inspect(lambda session: len(session.log))}
