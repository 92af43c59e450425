# Diagnostics go to stderr so the emulated board's stdout carries only board outputs.

import sys


def log(*parts):
    print("seat:", *parts, file=sys.stderr)


def log_exception(where, exc):
    print("seat: error in", where, file=sys.stderr)
    # The stubs want an IOBase for the stream; sys.stderr is one at run time.
    sys.print_exception(exc, sys.stderr)  # type: ignore[arg-type]
