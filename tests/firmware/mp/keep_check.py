# Run under micropython: a seat whose board fails once while drawing the ring and once
# while an input is taken. Prints one JSON line: how many frames were drawn after the
# failure, and the inputs that reached the outbox. The seat's loop must outlive both.
import sys

if ".frozen" not in sys.path:
    sys.path.append(".frozen")

import asyncio
import json

from board.emulated import Board
from seat import config
from seat.app import Seat


class FailingBoard(Board):
    def __init__(self, cfg):
        super().__init__(cfg)
        self.frames = 0
        self.fail_frame = 3

    def show_ring(self, pixels):
        self.frames += 1
        if self.frames == self.fail_frame:
            raise RuntimeError("ring write failed")


class Boom:
    # An input item that breaks the seat's input loop when it looks at it.
    def __getitem__(self, key):
        raise RuntimeError("bad input item")


async def never(host, port):
    await asyncio.sleep_ms(60000)


async def main():
    cfg = config.parse(json.dumps({"table": "keep", "seat": 1, "frame_ms": 10,
                                   "broker": {"host": "memory"}}))
    board = FailingBoard(cfg)
    seat = Seat(cfg, board, lambda: 1)
    seat.client._open = never
    asyncio.create_task(seat._serve())
    asyncio.create_task(seat._tick())
    board.inputs.put(Boom())
    await asyncio.sleep_ms(300)
    board.inputs.put({"kind": "encoder", "steps": 2})
    await asyncio.sleep_ms(100)
    kinds = []
    payload = seat.outbox.due(0x3FFFFFFF)
    while payload is not None:
        kinds.append(json.loads(payload)["kind"])
        payload = seat.outbox.due(0x3FFFFFFF)
    print(json.dumps({"frames_after_failure": board.frames - board.fail_frame,
                      "outbox": kinds}))


asyncio.run(main())
