"""Child process for the crash test: plays games into a journal until it is killed.

Usage: ``python crash_child.py JOURNAL SEED``. It resumes the table's current
game (restoring the seats' sequence numbers from the journal, as the hub does; seat 1
reboots at every start, so its numbering starts again under a new boot number),
and after each ``append`` returns prints ``GAME INDEX`` and flushes, so every
line the parent reads names an action the journal had committed.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from risktable.journal import ActionMeta, DieFace, Journal
from risktable.rules import CHANCE, Action, Config, OpeningRoll, Roll, current_actor
from risktable.rules.bots import BOTS
from risktable.rules.chance import sample_roll
from risktable.rules.engine import chance_outcomes
from risktable.rules.state import CHANCE_PHASES, DEFEND, GAME_OVER, ROLL

TABLE = "crash"
PLAYERS = 4
# Odd-numbered games are abandoned after this many actions, so every run crosses
# game boundaries however slowly the machine appends; even ones play to the end.
ABANDON_AT = 150


def dice(action: Action) -> tuple[DieFace, ...]:
    if type(action) is Roll:
        return tuple(DieFace(f"d{i}", f) for i, f in enumerate((*action.attack, *action.defend)))
    if type(action) is OpeningRoll:
        return tuple(DieFace(f"d{i}", f) for i, f in enumerate(action.faces))
    return ()


def main() -> None:
    journal = Journal(Path(sys.argv[1]))
    rng = random.Random(sys.argv[2])
    while True:
        # A kill may fall between any two of these steps; each start picks up from there.
        game = journal.current_game(TABLE)
        if game is not None and journal.state(game).phase == GAME_OVER \
                and journal.game(game).status == "running":
            journal.finish(game)
        if game is None or journal.game(game).status != "running":
            game = journal.create_game(Config(PLAYERS), TABLE)
            journal.set_current_game(TABLE, game)
        # Seat 1 reboots with every start of this process (a new boot number, numbering
        # from 1 again); the other seats carry on from what the journal holds.
        boot = {seat: 0 for seat in range(1, PLAYERS + 1)}
        boot[1] = rng.getrandbits(30)
        seq = {}
        for seat in boot:
            last = journal.last_seq(game, seat)
            seq[seat] = last.seq + 1 if last is not None and last.boot == boot[seat] else 1
        bots = [BOTS["heuristic"](rng.getrandbits(32)) for _ in range(PLAYERS)]
        state = journal.state(game)
        count = len(journal.actions(game))
        while state.phase != GAME_OVER:
            if game % 2 and count >= ABANDON_AT:
                journal.abandon(game)
                break
            a: Action
            if state.phase == ROLL:
                a = sample_roll(rng, state.attack_dice, state.defend_dice)
            elif state.phase in CHANCE_PHASES:
                a = chance_outcomes(state).sample(rng)
            elif state.phase == DEFEND:
                a = bots[state.owners[state.target]].choose(state)
            else:
                a = bots[state.player].choose(state)
            actor = current_actor(state)
            if actor == CHANCE:
                meta = ActionMeta("hub", dice=dice(a))
            else:
                seat = actor + 1
                meta = ActionMeta("seat", seat=seat, seq=seq[seat], boot=boot[seat])
                seq[seat] += 1
            done = journal.append(game, a, meta)
            print(game, done.index, flush=True)
            state = done.state
            count += 1


if __name__ == "__main__":
    main()
