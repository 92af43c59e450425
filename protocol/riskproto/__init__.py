# The shared protocol package: topics and messages between seats and hub.
# Written in the common subset of CPython and MicroPython (protocol/README.md is the
# specification): annotations only as strings or on signatures (MicroPython drops
# them), typing imports guarded by try/except ImportError, no dataclasses, enum or
# re, simple f-strings only, and nothing that depends on dict iteration order
# (MicroPython's differs). Every module compiles with mpy-cross.

PROTOCOL_VERSION = 1
# Every message must fit a microcontroller's receive buffer.
MAX_MESSAGE_BYTES = 1024
# A seat keeps at most this many events unanswered; a full outbox takes no more
# input (riskproto.outbox.Outbox). The hub holds events ahead of the next expected one
# only within this window (protocol/README.md, "Sequence numbers").
OUTBOX_CAPACITY = 16
