# Run under micropython: feeds a scripted series of smart-dice readings to
# seat.rolls.RollCollector and prints each answer as one JSON line.
import json
import sys

if ".frozen" not in sys.path:
    sys.path.append(".frozen")

from drivers.dice import CROOKED, ONFACE, ROLLED, ROLLING
from seat.rolls import RollCollector

rolls = RollCollector()
script = [
    ("feed", "a", ROLLING, 0),
    ("arm", 2),
    ("feed", "a", ONFACE, 3),
    ("feed", "a", ROLLING, 0),
    ("feed", "a", ROLLING, 0),
    ("feed", "b", ROLLING, 0),
    ("feed", "c", ROLLING, 0),
    ("feed", "a", ROLLED, 5),
    ("feed", "b", CROOKED, 0),
    ("feed", "b", ONFACE, 2),
    ("feed", "a", ROLLING, 0),
]
for step in script:
    if step[0] == "arm":
        rolls.arm(step[1])
        continue
    print(json.dumps(rolls.feed(step[1], step[2], step[3])))
