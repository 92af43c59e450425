# A seat's Outbox and the hub's SeqTracker over a simulated lossy, duplicating link
# (a lost message reorders what follows it),
# driven by a seeded generator so the same run happens under CPython and MicroPython.
#   python link_sim.py PROTOCOL_DIR SEED...   prints one summary line per seed
import sys

if __name__ == "__main__":
    sys.path.insert(0, sys.argv[1])

from riskproto import OUTBOX_CAPACITY
from riskproto.messages import decode, message
from riskproto.sequence import HELD, NEW, REPEAT, Outbox, SeqTracker


class Lcg:
    # Numerical Recipes' generator: tiny, and identical on both interpreters.
    def __init__(self, seed: int) -> None:
        self.state = seed & 0xFFFFFFFF

    def below(self, n: int) -> int:
        self.state = (self.state * 1664525 + 1013904223) & 0xFFFFFFFF
        return (self.state >> 8) % n


def run(seed: int, events: int = 60, loss_pct: int = 30) -> "tuple[list[int], int, int]":
    # Returns (steps applied by the hub in order, sends, answers sent).
    rng = Lcg(seed)
    outbox = Outbox(seat=3, capacity=OUTBOX_CAPACITY, retry_ms=100, max_retry_ms=800)
    tracker = SeqTracker()
    tracker.birth(1)
    applied = []
    made = 0
    sends = 0
    answers = 0
    now = 0

    def answer(seq: int) -> int:
        # The hub answers; the answer may be lost on its way back.
        if rng.below(100) >= loss_pct:
            outbox.answered(seq)
            return 1
        return 0

    while made < events or len(outbox):
        # A full outbox takes no input: the player waits.
        if made < events and len(outbox) < OUTBOX_CAPACITY and rng.below(3) == 0:
            made += 1
            outbox.add(message("event", kind="encoder", steps=made))
        if rng.below(50) == 0:
            outbox.reconnected()
        payload = outbox.due(now)
        while payload is not None:
            sends += 1
            copies = 0 if rng.below(100) < loss_pct else 1 + rng.below(2)
            for _ in range(copies):
                msg = decode(payload)
                seq = msg["seq"]
                verdict = tracker.check(seq)
                if verdict == HELD:
                    tracker.hold(seq, msg)  # answered in its turn
                elif verdict == NEW:
                    while msg is not None:
                        applied.append(msg["steps"])
                        tracker.record(msg["seq"])
                        answers += answer(msg["seq"])
                        msg = tracker.release()
                elif verdict != REPEAT:
                    answers += answer(seq)  # duplicate, stale or ahead: an error naming it
            payload = outbox.due(now)
        now += 10 + rng.below(40)
    return (applied, sends, answers)


if __name__ == "__main__":
    for arg in sys.argv[2:]:
        applied, sends, answers = run(int(arg))
        print(arg, ",".join([str(s) for s in applied]), sends, answers)
