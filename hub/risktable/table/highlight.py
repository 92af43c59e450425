"""What the LED board lights for the question asked now: a pure function of the
:class:`~risktable.table.situation.Situation`.

The cursor and the legal targets of a territory question, the half-made choice, the
battle under way, what a bot's last move touched (so someone can mirror it), and every
capital as the capitals are revealed. A secret question (a capital being chosen) lights
nothing of its cursor.
"""

from __future__ import annotations

from risktable.rules.state import GAME_OVER
from risktable.table import menus
from risktable.table.battle_odds import shown_odds
from risktable.table.public import Highlight
from risktable.table.situation import Situation

# Territory questions whose legal choices all blink with the cursor.
_TARGET_STAGES = frozenset({menus.ATTACK_TO, menus.FORTIFY_TO, menus.BONUS})


def lit_territories(situation: Situation) -> frozenset[str]:
    """The territory ids the LED board blinks now."""
    ids = situation.state.config.board.territory_ids
    return frozenset(ids[t] for t in board_highlight(situation).lit)


def board_highlight(situation: Situation, *, with_odds: bool = False) -> Highlight:
    """The LED board's highlight, each part named (the board page draws them apart);
    ``with_odds`` adds the odds of the attack being considered, for the public scene."""
    sit = situation
    s, menu, pick = sit.state, sit.menu, sit.pick
    marks, cursor, targets = _question_marks(sit)
    picked = tuple(t for t in (pick.source, pick.target) if t >= 0)
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
                and pick.source >= 0:
            considered = (pick.source, cursor)
        elif considered is None and menu.stage == menus.ATTACK_DICE and len(picked) == 2:
            considered = (picked[0], picked[1])
        odds = shown_odds(s, considered, lit)
    return Highlight(lit=lit, cursor=cursor, targets=targets, battle=battle, odds=odds)


def _question_marks(sit: Situation) -> tuple[set[int], int, frozenset[int]]:
    """What the question asked now lights: marked territories, the cursor (-1: none)
    and the legal targets."""
    menu = sit.menu
    if sit.revealing:
        return set(sit.state.capitals), -1, frozenset()
    if menu.player in sit.bots or menu.stage in (menus.CARD, menus.OVER):
        return set(sit.last.marks), -1, frozenset()
    if menu.stage in menus.SECRET_STAGES or (sit.hub_cards and menu.stage == menus.BONUS):
        # The cursor is the chooser's secret: the board shows nothing of it (with hub
        # cards, the +2 territories would name cards of a set not traded yet).
        return set(), -1, frozenset()
    if not menu.is_territory:
        return set(), -1, frozenset()
    targets = frozenset(t for t in menu.choices if t >= 0) \
        if menu.stage in _TARGET_STAGES else frozenset()
    return set(), menu.cursor if menu.cursor >= 0 else -1, targets
