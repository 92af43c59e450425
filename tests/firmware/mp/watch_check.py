# Run under micropython with a scenario name: the seat's supervisor (Seat._watch) over a
# board whose watchdog and reset are recorded, not real. Prints one JSON line once the
# supervisor has looked LOOKS times (it feeds or logs a stalled loop at each look): the
# watchdog's feeds and the resets asked for.
#   healthy  every task runs: fed at each look (the first may find a loop not yet run)
#   stuck    the seat's loop waits for ever in an await: never fed
#   ended    the board's task ends: reset "error"
# The supervisor looks every eighth of watchdog_ms (1 s in production): the scenario
# runs on a 0.8 s watchdog, so its looks come every 100 ms.
import sys

if ".frozen" not in sys.path:
    sys.path.append(".frozen")

import asyncio
import json

import seat.app
from board.emulated import Board
from seat import config
from seat.app import Seat

LOOKS = 4


class Recorded(Board):
    def __init__(self, cfg):
        super().__init__(cfg)
        self.feeds = 0
        self.stalls = 0
        self.resets = []

    def watchdog(self):
        return self

    def feed(self):
        self.feeds += 1

    def reset(self, cause):
        self.resets.append(cause)


async def never(host, port):
    await asyncio.sleep_ms(60000)


async def stuck():
    await asyncio.Event().wait()


async def ended():
    return


async def main(scenario):
    cfg = config.parse(json.dumps({"table": "watch", "seat": 1, "broker": {"host": "memory"},
                                   "watchdog_ms": 800}))
    board = Recorded(cfg)
    seat_ = Seat(cfg, board, lambda: 1)
    seat_.client._open = never

    def log(*args):
        # The supervisor's word for a look that found a loop silent.
        if args[0] == "seat loop stalled:":
            board.stalls += 1

    seat.app.log = log
    if scenario == "stuck":
        seat_._serve = stuck
    elif scenario == "ended":
        board.run = ended
    task = asyncio.create_task(seat_.run())
    # Looks counted, not time: a busy machine may make a look late, never skip it.
    for _ in range(3000):
        if board.feeds + board.stalls >= LOOKS:
            break
        await asyncio.sleep_ms(10)
    task.cancel()
    print(json.dumps({"feeds": board.feeds, "stalls": board.stalls,
                      "resets": board.resets[:1]}))


asyncio.run(main(sys.argv[1]))
