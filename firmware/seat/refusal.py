# What the seat's display says when the hub refuses an input (protocol/README.md,
# "Error replies"): the hub's own detail when it is written for the player (a refusal
# by the game: code not_allowed, schema or unknown_seat, with no field named), else the
# seat's words for the code. A detail that names a field, a sequence number or a
# protocol version tells a developer what went wrong (the seat logs it); a player can
# only try again. Few short strings: this module stays in the seat's small heap.


def lines(code, detail, field):
    # The display's lines for one refusal (board/oled.py wraps them).
    if field is None and (code == "not_allowed" or code == "schema"
                          or code == "unknown_seat"):
        return [detail]
    if code == "duplicate":
        return ["The hub had this input already"]
    if code == "stale":
        return ["That input came too late for the hub"]
    if code == "version":
        return ["This seat's firmware does not match the hub"]
    if code == "unknown_seat":
        return ["This seat is not at this table"]
    if code == "not_allowed":
        return ["Inputs got out of order: try again"]
    return ["The hub could not read that input: try again"]
