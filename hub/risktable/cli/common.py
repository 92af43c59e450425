"""Argument helpers shared by command groups."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from riskproto import topics
from risktable.broker_address import DEFAULT_PORT
from risktable.cli.errors import CliError

if TYPE_CHECKING:
    from risktable.broker_address import BrokerAddress
    from risktable.config import HubConfig
    from risktable.log_output import LogOutput
    from risktable.provision.broker_config import VenueTarget


def check_table_and_bind(table: str, bind: str) -> None:
    """Refuse a table id that cannot name topics, or a ``--bind`` that is not an IP
    address, in one line (exit status 2, as argparse's own errors)."""
    import ipaddress

    try:
        topics.check_table(table)
    except topics.TopicError as exc:
        raise CliError(f"--table: {exc}", 2) from None
    try:
        ipaddress.ip_address(bind)
    except ValueError:
        raise CliError(f"--bind: not an IP address: {bind}", 2) from None


def venue_target(bridge: str | None, password_file: Path | None,
                 ca: Path | None = None) -> VenueTarget | None:
    """The venue broker of ``--bridge HOST[:PORT]``, the password in
    ``--bridge-password-file`` (its first line) and, for a venue that speaks TLS, its CA
    certificate ``--bridge-ca``; ``None`` when no bridge is given. One given without the
    other, a bad port or an unreadable or empty file is a one-line error."""
    if bridge is None:
        if password_file is not None:
            raise CliError("--bridge-password-file needs --bridge HOST", 2)
        if ca is not None:
            raise CliError("--bridge-ca needs --bridge HOST", 2)
        return None
    if ca is not None and not ca.is_file():
        raise CliError(f"--bridge-ca {ca}: no such file", 2)
    if password_file is None:
        raise CliError("--bridge needs --bridge-password-file (the venue's "
                       "bridge-<table>.password)", 2)
    host, _, port_text = bridge.rpartition(":") if ":" in bridge \
        else (bridge, "", str(DEFAULT_PORT))
    if not host or not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
        raise CliError(f"--bridge: expected HOST or HOST:PORT, got {bridge}", 2)
    try:
        lines = password_file.read_text().splitlines()
    except OSError as exc:
        raise CliError(f"cannot read --bridge-password-file {password_file}: "
                       f"{exc.strerror}") from None
    if not lines or not lines[0].strip():
        raise CliError(f"--bridge-password-file {password_file} is empty")
    from risktable.provision.broker_config import VenueTarget

    return VenueTarget(host, int(port_text), lines[0].strip(),
                       None if ca is None else ca.resolve())


def broker_address(text: str) -> BrokerAddress:
    """argparse type for ``HOST:PORT``."""
    # Imported here, as in hub_config: commands that never meet a broker or the
    # configuration (the odds) start without them (risktable.cli.lazy).
    from risktable.broker_address import BrokerAddress

    try:
        return BrokerAddress.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def whole_number(name: str, low: int, high: int | None = None) -> Callable[[str], int]:
    """argparse type: a whole number from ``low`` to ``high`` (no upper bound if None).

    >>> whole_number("dice", 1, 3)("2")
    2
    """

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{name} must be a whole number, not {text!r}") from None
        if high is None and value < low:
            raise argparse.ArgumentTypeError(f"{name} must be at least {low}, not {value}")
        if high is not None and not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{name} must be {low} to {high}, not {value}")
        return value

    return parse


# A seat count N: the seats are numbered 1..N.
seat_count = whole_number("seats", 1, topics.MAX_SEATS)


def table_id(text: str) -> str:
    """argparse type for a table id (it becomes part of every topic)."""
    try:
        return topics.check_table(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


# The broker password of the account a command connects or configures.
PASSWORD_ENV = "RISKTABLE_PASSWORD"


def _literal_refused(option: str, env: str) -> Callable[[str], str]:
    def refuse(text: str) -> str:
        raise argparse.ArgumentTypeError(
            f"a password on the command line can be read by every user of this machine "
            f"(ps, shell history): give --{option}-file FILE or set {env}")

    return refuse


def add_secret_options(parser: argparse.ArgumentParser, option: str, env: str,
                       what: str) -> None:
    """Add ``--<option>-file FILE`` for a secret (``what``) that may also come from
    the environment variable ``env``; ``--<option> VALUE`` stays known only to be
    refused with a line naming both."""
    parser.add_argument(f"--{option}", type=_literal_refused(option, env),
                        help=argparse.SUPPRESS)
    parser.add_argument(f"--{option}-file", type=Path, metavar="FILE",
                        help=f"read {what} from FILE (or set {env}; never on the command line)")


def read_secret(args: argparse.Namespace, option: str, env: str) -> str | None:
    """The secret of :func:`add_secret_options`: the file's first line if
    ``--<option>-file`` was given, else ``env``'s value (also for a command
    without the option), else None."""
    path: Path | None = getattr(args, f"{option.replace('-', '_')}_file", None)
    if path is not None:
        try:
            lines = path.read_text().splitlines()
        except OSError as exc:
            raise CliError(f"cannot read --{option}-file {path}: {exc.strerror}") from exc
        return lines[0] if lines else ""
    return os.environ.get(env)


_log_output: LogOutput | None = None


def setup_logging(verbose: int) -> None:
    """Structured one-line logs on stderr: time, level, logger, message, written on a
    thread of their own so that no thread waits for the output (risktable.log_output);
    :func:`flush_logging` writes what is left."""
    import logging

    from risktable.log_output import LogOutput

    global _log_output
    flush_logging()
    level = logging.DEBUG if verbose > 1 else logging.INFO if verbose else logging.WARNING
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    _log_output = LogOutput(stderr).start()
    root = logging.getLogger()
    for handler in root.handlers[:]:  # as basicConfig(force=True)
        root.removeHandler(handler)
        handler.close()
    root.addHandler(_log_output.front)
    root.setLevel(level)


def flush_logging() -> None:
    """Write the log lines still queued by :func:`setup_logging`'s output and end it;
    later records go where Python's logging sends them with no handler (stderr)."""
    import logging

    global _log_output
    if _log_output is not None:
        logging.getLogger().removeHandler(_log_output.front)
        _log_output.stop()
        _log_output = None


def hub_config(args: argparse.Namespace) -> HubConfig:
    """The hub configuration: ``--config FILE`` (or, without one, a development setup
    with no GPIO panel and no LED board) overridden by the connection options given
    (the password by ``--password-file`` or ``RISKTABLE_PASSWORD``)."""
    import dataclasses

    from risktable.config import ConfigError, HubConfig, LedConfig, load_config

    try:
        config = (load_config(args.config) if args.config
                  else HubConfig(leds=LedConfig(enabled=False), panel_enabled=False))
    except ConfigError as exc:
        raise CliError(str(exc)) from exc
    broker = config.broker
    if args.broker:
        broker = dataclasses.replace(broker, address=args.broker)
    if getattr(args, "username", None) is not None:
        broker = dataclasses.replace(broker, username=args.username)
    password = read_secret(args, "password", PASSWORD_ENV)
    if password is not None:
        broker = dataclasses.replace(broker, password=password)
    table = config.table
    if args.table:
        table = dataclasses.replace(table, id=args.table)
    if args.seats:
        table = dataclasses.replace(table, seats=args.seats)
    return dataclasses.replace(
        config, broker=broker, table=table, data_dir=args.data_dir or config.data_dir
    )
