"""Options shared by the commands that send the running hub a referee request
(``table``, ``games new``): which hub (its configuration), which guest broker and
which referee account."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from risktable.broker_address import BrokerAddress
from risktable.cli.common import PASSWORD_ENV, add_secret_options, broker_address, read_secret
from risktable.cli.errors import CliError
from risktable.cli.journal_args import configured, data_dir_parent
from risktable.config import DEFAULT_CONFIG
from risktable.provision.broker_config import default_guest_port
from risktable.referee_client import REPLY_SECONDS, RefereeUnanswered, ask


def referee_parent() -> argparse.ArgumentParser:
    """``--config`` (as ``games list``), ``--credentials``, ``--broker``, ``--username``,
    ``--password-file`` and ``--timeout``."""
    parent = argparse.ArgumentParser(add_help=False, parents=[data_dir_parent()])
    parent.add_argument("--credentials", type=Path, metavar="FILE",
                        help="credentials.json of `risktable broker config`: the guest "
                        "broker and the referee account from it")
    parent.add_argument("--broker", type=broker_address,
                        help="the guest broker HOST:PORT (default: the hub's broker host, "
                        "its port + 1)")
    parent.add_argument("--username", help="the referee account (default <table>-referee)")
    add_secret_options(parent, "password", PASSWORD_ENV, "the referee's password")
    parent.add_argument("--timeout", type=float, default=REPLY_SECONDS,
                        help="seconds to wait for the hub (default %(default)s)")
    parent.add_argument("--json", action="store_true", help="print the hub's reply as JSON")
    return parent


def _credentials(path: Path) -> dict[str, Any]:
    try:
        doc = json.loads(path.read_text())
        guests, referee = doc["guests"], doc["referee"]
        ca = (doc.get("broker") or {}).get("ca")
        return {"host": guests["host"], "port": int(guests["port"]),
                "username": referee["username"], "password": referee["password"],
                "table": str(doc["table"]), "ca": None if ca is None else Path(ca)}
    except OSError as exc:
        raise CliError(f"cannot read --credentials {path}: {exc.strerror}") from None
    except (ValueError, KeyError, TypeError):
        raise CliError(f"--credentials {path} holds no guest broker and referee account "
                       "(write it with risktable broker config)") from None


def send(args: argparse.Namespace, op: str, **fields: Any) -> int:
    """Send request ``op`` to the configured table's hub; print its reply in one line
    (or JSON). Exit code 0 when the hub did it, 1 when it refused."""
    config = configured(args)
    table = config.table.id
    hub = config.broker.address
    address = args.broker or BrokerAddress(hub.host, default_guest_port(hub.port))
    username = args.username or f"{table}-referee"
    password = read_secret(args, "password", PASSWORD_ENV)
    ca = config.broker.ca
    if args.credentials is not None:
        found = _credentials(args.credentials)
        if args.config is None and not DEFAULT_CONFIG.is_file():
            # A referee's machine may hold credentials.json and no hub configuration:
            # the table is then the one the credentials were made for.
            table = found["table"]
        address = args.broker or BrokerAddress(found["host"], found["port"])
        username = args.username or found["username"]
        password = password if password is not None else found["password"]
        ca = found["ca"] or ca
    try:
        reply = ask(address, table, op, username=username, password=password,
                    timeout=args.timeout, ca=ca, **fields)
    except RefereeUnanswered as exc:
        raise CliError(str(exc)) from None
    if args.json:
        print(json.dumps(reply, indent=1))
    else:
        print(reply["detail"])
    return 0 if reply["accepted"] else 1
