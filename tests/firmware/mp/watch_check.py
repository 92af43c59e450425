# Run under micropython with a scenario name: the seat's supervisor (Seat._watch) over a
# board whose watchdog and reset are recorded, not real. Prints one JSON line: the
# watchdog's feeds and the resets asked for, after about three supervisor periods.
#   healthy  every task runs: fed every period, no reset
#   stuck    the seat's loop waits for ever in an await: never fed
#   ended    the board's task ends: reset "error"
import sys

if ".frozen" not in sys.path:
    sys.path.append(".frozen")

import asyncio
import json

from board.emulated import Board
from seat import config
from seat.app import Seat


class Recorded(Board):
    def __init__(self, cfg):
        super().__init__(cfg)
        self.feeds = 0
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
    cfg = config.parse(json.dumps({"table": "watch", "seat": 1, "broker": {"host": "memory"}}))
    board = Recorded(cfg)
    seat = Seat(cfg, board, lambda: 1)
    seat.client._open = never
    if scenario == "stuck":
        seat._serve = stuck
    elif scenario == "ended":
        board.run = ended
    try:
        await asyncio.wait_for_ms(seat.run(), 3500)
    except asyncio.TimeoutError:
        pass
    print(json.dumps({"feeds": board.feeds, "resets": board.resets[:1]}))


asyncio.run(main(sys.argv[1]))
