# The shared protocol package: topics and messages between seats and hub.
# Written in the common subset of CPython and MicroPython (see protocol/README.md):
# no typing at run time (MicroPython drops annotations), no dataclasses, no f-string
# format specs beyond the basics, only json/struct-free core built-ins.

PROTOCOL_VERSION = 1
# Every message must fit a microcontroller's receive buffer.
MAX_MESSAGE_BYTES = 1024
