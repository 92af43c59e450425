# Topic builders and parser. Layout (protocol/README.md is the authority):
#   risk/<table>/hub/status          hub status, retained, hub's Last Will
#   risk/<table>/board               public board, retained
#   risk/<table>/scene               public scene (highlight, odds, last events), retained
#   risk/<table>/seat/<n>/status     seat birth / Last Will, retained
#   risk/<table>/seat/<n>/event      seat input events (sequence numbered)
#   risk/<table>/seat/<n>/view       the seat's view, retained
#   risk/<table>/seat/<n>/ack        acknowledgements by sequence
#   risk/<table>/seat/<n>/error      error replies
#   risk/<table>/seat/<n>/cmd        hub commands to the seat
#   risk/<table>/referee/request     referee requests to the hub (pause, undo, new game)
#   risk/<table>/referee/reply       the hub's replies to them
#   risk/<table>/tray/roll           the dice tray's reads (risktable tray)
#   risk/<table>/tray/armed          what the hub wants read from the tray, retained

ROOT = "risk"
MAX_SEATS = 6

SEAT_STATUS = "status"
SEAT_EVENT = "event"
SEAT_VIEW = "view"
SEAT_ACK = "ack"
SEAT_ERROR = "error"
SEAT_CMD = "cmd"

# Leaves a seat publishes versus the hub publishes under seat/<n>/. Each leaf the hub
# publishes carries the message type of the same name (a seat relies on it).
SEAT_PUBLISHED = (SEAT_STATUS, SEAT_EVENT)
HUB_PUBLISHED = (SEAT_VIEW, SEAT_ACK, SEAT_ERROR, SEAT_CMD)
SEAT_LEAVES = SEAT_PUBLISHED + HUB_PUBLISHED


class TopicError(ValueError):
    pass


def check_table(table: str) -> str:
    if not table or len(table) > 32:
        raise TopicError("table id must be 1 to 32 characters")
    for ch in table:
        if not (ch.isalpha() or ch.isdigit() or ch in "-_"):
            raise TopicError("table id may hold only letters, digits, '-' and '_': " + table)
    return table


def check_seat(seat: int) -> int:
    if not isinstance(seat, int) or isinstance(seat, bool) or seat < 1 or seat > MAX_SEATS:
        raise TopicError(f"seat must be an integer from 1 to {MAX_SEATS}")
    return seat


def hub_status(table: str) -> str:
    return ROOT + "/" + check_table(table) + "/hub/status"


def board(table: str) -> str:
    return ROOT + "/" + check_table(table) + "/board"


def scene(table: str) -> str:
    return ROOT + "/" + check_table(table) + "/scene"


def referee(table: str, leaf: str) -> str:
    # "request": the referee writes (through the guest bridge), the hub reads;
    # "reply": the hub answers. One function: the seat loads this module, and its heap is small.
    return ROOT + "/" + check_table(table) + "/referee/" + leaf


TRAY_ROLL = "roll"
TRAY_ARMED = "armed"


def tray(table: str, leaf: str) -> str:
    # "roll": the tray writes, the hub reads; "armed": the hub writes (retained), the tray
    # reads. Only the hub loads this: a seat never hears of the tray.
    return ROOT + "/" + check_table(table) + "/tray/" + leaf


def seat_prefix(table: str, seat_no: int) -> str:
    # What every topic of the seat starts with; its leaf follows.
    return ROOT + "/" + check_table(table) + "/seat/" + str(check_seat(seat_no)) + "/"


def seat(table: str, seat_no: int, leaf: str) -> str:
    if leaf not in SEAT_LEAVES:
        raise TopicError("unknown seat topic leaf: " + str(leaf))
    return seat_prefix(table, seat_no) + leaf


def seat_filter(table: str, leaf: str) -> str:
    # Subscription filter matching one leaf for every seat of a table.
    if leaf not in SEAT_LEAVES:
        raise TopicError("unknown seat topic leaf: " + str(leaf))
    return ROOT + "/" + check_table(table) + "/seat/+/" + leaf


def parse_seat_topic(topic: str) -> "tuple[str, int, str] | None":
    # (table, seat, leaf) for a seat topic, None for any other topic.
    parts = topic.split("/")
    if len(parts) != 5 or parts[0] != ROOT or parts[2] != "seat":
        return None
    if parts[4] not in SEAT_LEAVES:
        return None
    digits = parts[3]
    if not digits.isdigit() or len(digits) > 1:
        return None
    seat_no = int(digits)
    if seat_no < 1 or seat_no > MAX_SEATS:
        return None
    return (parts[1], seat_no, parts[4])


def hub_subscriptions(table: str) -> "list[str]":
    # Filters the hub subscribes to: every seat's status (births and Wills) and events.
    return [seat_filter(table, SEAT_STATUS), seat_filter(table, SEAT_EVENT)]


def seat_subscriptions(table: str, seat_no: int) -> "list[str]":
    # Topics a seat subscribes to: the hub's presence and what the hub sends this seat.
    topics = [hub_status(table)]
    for leaf in HUB_PUBLISHED:
        topics.append(seat(table, seat_no, leaf))
    return topics
