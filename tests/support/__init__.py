"""Helpers shared by the test suite: real parts (mosquitto, MicroPython) started per run."""
