"""One-line errors for the command line."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn


class CliError(Exception):
    """A problem the user can fix; printed as one line, never as a traceback.

    ``exit_code`` is 2 for bad arguments and 1 for everything else (bad
    configuration, unreachable broker, missing tool).
    """

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are a single line and exit with status 2."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(2)
