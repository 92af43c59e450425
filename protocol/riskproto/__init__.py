# The shared protocol package: topics and messages between seats and hub.
# Written in the common subset of CPython and MicroPython (see protocol/README.md).

PROTOCOL_VERSION = 1
