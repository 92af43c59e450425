"""What each seat's display and LED ring show: a pure function of the :class:`Situation`.

A seat is asked (its question, from :mod:`risktable.table.prompts`), rolling (which
dice to roll), or waiting (whose turn it is, what happened last, its own secrets); a
bot's seat tells someone at the table which move to mirror on the board. The ring
counts what is left to place, spins while dice are due, shows the battle's odds or the
player's share of the board. Lines are written in the context's language
(:func:`risktable.i18n.using`): the session writes each seat's in that seat's.
"""

from __future__ import annotations

from typing import Any

from risktable.i18n import N_, _
from risktable.rules.engine import current_actor
from risktable.rules.state import GAME_OVER, MODIFY, NEUTRAL, REINFORCE, REROLL
from risktable.table import menus, prompts
from risktable.table.battle_odds import win_chance
from risktable.table.public import protocol_phase
from risktable.table.situation import Situation

# The attacker's questions that follow a roll: they begin with the battle's result.
_AFTER_ROLL = frozenset({menus.ATTACK_FROM, menus.ATTACK_TO, menus.ATTACK_DICE,
                         menus.OCCUPY_ARMIES})
# Their line naming the source, dropped for the result's line (the LED board shows it).
_SOURCE_LINE = {menus.ATTACK_DICE: 1, menus.OCCUPY_ARMIES: 2}
# A seat's display holds this many lines of a view.
_LINES = 4

Ring = dict[str, Any]

# The head of a bot seat's screen, which names the bot's level (docs/bots.md); a bot of
# no level (random) is just a bot.
_MIRROR = {"": N_("Bot: mirror this move"), "easy": N_("Easy bot: mirror moves"),
           "normal": N_("Normal bot: mirror moves"), "hard": N_("Hard bot: mirror moves")}


def seat_view(situation: Situation, seat: int) -> dict[str, Any]:
    """The view fields (``phase``, ``active``, ``lines``, ``ring``) of ``seat``."""
    sit = situation
    s = sit.state
    player = sit.seats.index(seat)
    if s.phase == GAME_OVER:
        return _game_over(sit, player)
    menu = sit.menu
    acting = player in sit.rolling or (menu.stage != menus.DICE and menu.player == player)
    person = player not in sit.bots
    if person and player in sit.rolling:
        lines, ring = _rolling(sit, player)
    elif person and acting:
        lines, ring = _asked(sit, player)
    else:
        lines, ring = _waiting(sit, seat, player), _share(sit, player)
    return {"phase": protocol_phase(s), "active": acting, "lines": lines,
            "ring": _counting(sit, player) or ring}


def _game_over(sit: Situation, player: int) -> dict[str, Any]:
    s = sit.state
    won = s.winner == player
    # The winner's mission is revealed to everyone, as the engine's views do.
    head = _("You won!") if won else prompts.fit(_("{who} won").format(who=sit.who(s.winner)))
    return {"phase": protocol_phase(s), "active": False,
            "lines": [head, *prompts.own_mission(s, s.winner, sit.seats)],
            "ring": {"mode": "pulse" if won else "off"}}


def _share(sit: Situation, player: int) -> Ring:
    """The ring of a seat with nothing to count: the player's share of the territories."""
    s = sit.state
    return {"mode": "progress", "value": round(99 * s.counts[player] / len(s.owners)),
            "max": 99}


def _counting(sit: Situation, player: int) -> Ring | None:
    """The ring counting what ``player`` has left to place now, or None."""
    s, menu = sit.state, sit.menu
    if menu.stage in (menus.CLAIM_STAGE, menus.SETUP_PLACE_STAGE) and not menu.is_number:
        return {"mode": "count", "value": min(99, s.to_place[player])}
    if s.phase == REINFORCE and s.player == player and menu.stage != menus.BONUS:
        return {"mode": "count", "value": min(99, s.pool)}
    if s.phase == NEUTRAL and s.player == player:
        return {"mode": "count", "value": s.neutral_pool}
    return None


def _rolling(sit: Situation, player: int) -> tuple[list[str], Ring]:
    s = sit.state
    lines = (prompts.reroll_lines(s) if s.phase == REROLL
             else prompts.roll_lines(s, player, sit.rolling[player].count))
    return lines, {"mode": "spin"}


def _asked(sit: Situation, player: int) -> tuple[list[str], Ring]:
    s, menu, pick = sit.state, sit.menu, sit.pick
    ring = _share(sit, player)
    win = None
    if menu.stage == menus.ATTACK_DICE:
        win = win_chance(s, pick.source, pick.target)
        ring = {"mode": "progress", "value": round(99 * win), "max": 99}
    elif menu.is_number:
        ring = {"mode": "count", "value": min(99, menu.value)}
    lines = prompts.ask(s, menu, pick, win)
    result = sit.last.result()
    if result and menu.stage in _AFTER_ROLL:
        # The attacker learns the battle's result on their next question.
        drop = _SOURCE_LINE.get(menu.stage, _LINES)
        keep = lines[:drop] + lines[drop + 1:]
        lines = [result, *keep][:_LINES]
    told = _capital_card_lines(sit, player, acting=True)
    if told:
        lines = [*told, *lines[:2]]
    return lines, ring


def _waiting(sit: Situation, seat: int, player: int) -> list[str]:
    told = _capital_card_lines(sit, player, acting=False)
    if player in sit.bots:
        # Everyone reads a bot's display: its capital and mission stay off it (the
        # capital card only once the capitals are public).
        return [_(_MIRROR[sit.bots[player]]), *(told or sit.last.told())][:_LINES]
    head = _waiting_head(sit, player)
    if told:
        lines = [head, *told][:_LINES]
    else:
        s = sit.state
        lines = [head, *prompts.own_capital(s, player),
                 *prompts.own_mission(s, player, sit.seats), *_secret_told(sit, player)]
        if sit.hub_cards and s.hands[player] and len(lines) < _LINES:
            lines.append(prompts.hand_line(s, player))
        lines = lines[:_LINES]
    mover = sit.mover_seat()
    away = [sit.name(x) for x in sorted(sit.offline) if x != seat and x != mover]
    if away:
        lines = [*lines[:_LINES - 1],
                 prompts.fit(_("Offline: {seats}").format(seats=", ".join(away)))]
    return lines


def _waiting_head(sit: Situation, player: int) -> str:
    """The first line of a seat that is not asked anything: whose turn it is."""
    s = sit.state
    mover = current_actor(s)
    if s.phase == MODIFY:
        return prompts.held_head(s, sit.who(mover))
    if mover < 0:
        return prompts.chance_head(s, sit.who(menus.card_tapper(s), player))
    seat = sit.seats[mover]
    if seat in sit.offline:
        head = _("{who} to play (offline)").format(who=sit.name(seat))
        return head if len(head) <= prompts.LINE \
            else prompts.fit(_("{who} is offline").format(who=sit.name(seat)))
    return prompts.fit(_("{who} to play").format(who=sit.name(seat)))


def _told(sit: Situation, player: int) -> list[str]:
    """What happened last as ``player``'s screen tells it, its first line naming who
    did it."""
    last = sit.last.told()
    if not last or sit.last.by < 0:
        return last
    return [prompts.fit(_("{who}: {what}").format(who=sit.who(sit.last.by, player),
                                                  what=last[0])), *last[1:]]


def _secret_told(sit: Situation, player: int) -> list[str]:
    """What happened last for ``player``, with the hub-drawn card they were dealt named
    first (on their own screen only)."""
    told = _told(sit, player)
    drawn = sit.last.drawn
    if drawn is None or drawn[0] != player:
        return told
    # In place of "You: Drew a card", the one line the draw told everyone.
    line = prompts.fit(_("You drew {card}").format(
        card=prompts.card_label(sit.state, drawn[1])))
    return [line, *told[1:]]


def _capital_card_lines(sit: Situation, player: int, acting: bool) -> list[str]:
    """What ``player`` must do with a capital card now: lay their own as the capitals
    are revealed, or take the card of the capital they just captured."""
    if sit.hub_cards:
        return []  # the hub lays and passes the cards itself: its hands show them
    for captor, owner, card in sit.last.handed:
        if captor == player:
            return prompts.take_capital_card(sit.state, sit.who(owner), card)
    if sit.revealing:
        return prompts.lay_capital_card(sit.state, player, acting)
    return []
