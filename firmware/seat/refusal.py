# What the seat's display says when the hub refuses an input (protocol/README.md,
# "Error replies"): the hub's own detail when it is written for the player (a refusal
# by the game: code not_allowed, schema or unknown_seat, with no field named), else the
# seat's words for the code. A detail that names a field, a sequence number or a
# protocol version tells a developer what went wrong (the seat logs it); a player can
# only try again. In a language other than English the words are read from texts.bin
# (Seat.words in seat/app.py).


def reason(code, detail, field):
    # The seat's words for one refusal as (Seat.words key, English), or None when the
    # hub's detail is what the display shows.
    if field is None and (code == "not_allowed" or code == "schema"
                          or code == "unknown_seat"):
        return None
    if code == "duplicate":
        return "dup", "The hub had this input already"
    if code == "stale":
        return "stale", "That input came too late for the hub"
    if code == "version":
        return "version", "This seat's firmware does not match the hub"
    if code == "unknown_seat":
        return "seat", "This seat is not at this table"
    if code == "not_allowed":
        return "order", "Inputs got out of order: try again"
    return "unread", "The hub could not read that input: try again"
