"""The demo: an embedded broker, the hub and seat firmwares under the MicroPython unix port."""
