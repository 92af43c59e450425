# Diagnostics go to stderr so the emulated board's stdout carries only board outputs.

import sys


def log(*parts):
    print("seat:", *parts, file=sys.stderr)


def log_exception(where, exc):
    print("seat: error in", where, file=sys.stderr)
    sys.print_exception(exc, sys.stderr)
