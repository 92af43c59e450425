# How deep a JSON text nests: riskproto.codec refuses texts nested deeper than its
# MAX_DEPTH before parsing them. A module of its own so that a seat loads this code
# only when a message has more brackets than any genuine one.

from riskproto.codec import MAX_DEPTH, _loads


def check_depth(data: bytes, limit: int) -> None:
    # ValueError if the JSON text nests arrays and objects deeper than `limit`.
    # Brackets inside strings do not count, as the parser reads them; a text the
    # parser rejects anyway may be judged either way.
    depth = 0
    in_string = False
    escaped = False
    for byte in data:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 92:  # backslash
                escaped = True
            elif byte == 34:  # quote
                in_string = False
        elif byte == 34:
            in_string = True
        elif byte == 91 or byte == 123:  # [ {
            depth += 1
            if depth > limit:
                raise ValueError("nested deeper than " + str(limit))
        elif byte == 93 or byte == 125:  # ] }
            depth -= 1


def loads(data: bytes) -> "object":
    # The codec's parser with the codec's depth check, for callers that parse a
    # payload without validating it (the hub gate's look for a refused event's seq).
    if data.count(b"[") + data.count(b"{") > MAX_DEPTH:
        check_depth(data, MAX_DEPTH)
    return _loads(data)
