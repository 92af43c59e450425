# The one form every dice source reports in, whether the seat's own electronic
# dice, a Pixels die or a GoDice: a tuple (die_id, state, face).
#
# die_id  a short string naming the physical die, stable while it is connected
#         ("e1" for the seat's own dice, "px-<pixel id hex>", "gd-<address hex>").
# state   ROLLING: moving, face unknown (face 0).
#         ROLLED:  came to rest on a face after a proper roll; the only state a
#                  roll result may be taken from.
#         CROOKED: came to rest leaning, no readable face (face 0).
#         ONFACE:  resting on a face without having been rolled (put down by
#                  hand, turned over, or never moved); shown, never counted.
# face    1..6, or 0 when the state carries none.

ROLLING = "rolling"
ROLLED = "rolled"
CROOKED = "crooked"
ONFACE = "onface"

STATES = (ROLLING, ROLLED, CROOKED, ONFACE)


def reading(die_id: str, state: str, face: int) -> "tuple[str, str, int]":
    # Faces only mean something at rest on a face; elsewhere they are forced to 0
    # so a stale face can never leak into a result.
    if state != ROLLED and state != ONFACE:
        face = 0
    return (die_id, state, face)
