"""``risktable broker ...``: the MQTT broker a real table runs."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from riskproto import topics
from risktable.broker_address import DEFAULT_PORT
from risktable.cli.common import check_table_and_bind, venue_target
from risktable.cli.errors import CliError
from risktable.defaults import DEFAULT_TABLE
from risktable.provision import broker_config

#: MQTT over TLS's registered port (IANA), the --port default with --tls.
TLS_PORT = 8883

if TYPE_CHECKING:
    from risktable.web.server import VenuePageConfig


def register(sub: Any) -> None:
    """Add the ``broker`` command group to the top-level sub-parsers."""
    parser: argparse.ArgumentParser = sub.add_parser(
        "broker", help="the table's MQTT broker: accounts, passwords and ACL for mosquitto"
    )
    broker_sub = parser.add_subparsers(dest="broker_command", metavar="SUBCOMMAND")
    broker_sub.required = True
    config = broker_sub.add_parser(
        "config",
        help="write a mosquitto configuration with an account per seat and for the hub",
        description="Write the table broker's mosquitto.conf, passwd and acl, the guest "
        "broker's guests.conf, guests-passwd and guests-acl (spectators and the referee), "
        "and credentials.json (mode 0600, keep it private) into DIR. Start the brokers "
        "with: mosquitto -c DIR/mosquitto.conf and mosquitto -c DIR/guests.conf",
    )
    config.add_argument(
        "--seats",
        type=int,
        required=True,
        choices=range(1, topics.MAX_SEATS + 1),
        metavar="N",
        help=f"number of seats, 1 to {topics.MAX_SEATS}",
    )
    config.add_argument(
        "--out",
        type=Path,
        required=True,
        metavar="DIR",
        help="folder to write into (created if missing)",
    )
    config.add_argument(
        "--table",
        default=DEFAULT_TABLE,
        metavar="ID",
        help=f"table id: letters, digits, '-' and '_' (default: {DEFAULT_TABLE})",
    )
    config.add_argument(
        "--bind",
        default="127.0.0.1",
        metavar="ADDR",
        help="address the listener binds (default 127.0.0.1, loopback only; "
        "seats on Wi-Fi need the hub's LAN address or 0.0.0.0)",
    )
    config.add_argument("--port", type=int, default=None,
                        help=f"listener port (default {DEFAULT_PORT}, or {TLS_PORT} with --tls)")
    config.add_argument(
        "--guest-port",
        type=int,
        metavar="PORT",
        help="the guest broker's TCP port for spectators and the referee (default: --port + 1)",
    )
    config.add_argument(
        "--websockets",
        type=int,
        metavar="PORT",
        help="also a WebSockets listener on the guest broker, for browser pages",
    )
    config.add_argument(
        "--seat-websockets",
        type=int,
        metavar="PORT",
        help="also a WebSockets listener on the table broker, for seats in a browser",
    )
    config.add_argument(
        "--user",
        metavar="NAME",
        help="account mosquitto runs as when started by root (default: you); "
        "it must be able to read the 0600 password file",
    )
    config.add_argument(
        "--bridge",
        metavar="HOST[:PORT]",
        help="also bridge the public topics (board, scene, hub status) to the venue broker at "
        f"HOST (port {DEFAULT_PORT} unless given; see `risktable broker venue`)",
    )
    config.add_argument(
        "--bridge-password-file",
        type=Path,
        metavar="FILE",
        help="the venue's bridge-<table>.password file for this table (with --bridge)",
    )
    config.add_argument(
        "--bridge-ca",
        type=Path,
        metavar="FILE",
        help="the venue's CA certificate (its ca.crt, from `risktable broker venue --tls`): "
        "the bridge then speaks TLS and gives its password only to that venue's broker",
    )
    config.add_argument(
        "--tls",
        action="store_true",
        help="every listener speaks TLS: makes the table's CA (ca.crt, kept across --force) "
        "and the broker's certificate in DIR; seats, the hub and phones then trust ca.crt "
        "(docs/security.md)",
    )
    config.add_argument(
        "--tls-name",
        action="append",
        default=[],
        metavar="NAME",
        help="with --tls: an address or host name clients dial the broker at, put in its "
        "certificate (repeat for more; --bind's address, 127.0.0.1, localhost and this "
        "machine's name and NAME.local are always in)",
    )
    config.add_argument(
        "--force",
        action="store_true",
        help="overwrite existing files (seats must then be given new passwords)",
    )
    config.set_defaults(handler=_config)

    venue = broker_sub.add_parser(
        "venue",
        help="write the mosquitto configuration of a venue that shows many tables",
        description="Write a venue's two brokers into DIR: venue.conf, where each table's "
        "broker bridges its public topics in (one account per table, which may write only "
        "its own table's), and venue-guests.conf for the venue page's spectators (read "
        "only). Each table's password is written to DIR/bridge-<table>.password: give it "
        "to that table, whose owner runs `risktable broker config ... --bridge HOST "
        "--bridge-password-file FILE`.",
    )
    venue.add_argument("--tables", nargs="+", required=True, metavar="ID",
                       help="the tables' ids, as each table's hub configuration names it")
    venue.add_argument("--out", type=Path, required=True, metavar="DIR",
                       help="folder to write into (created if missing)")
    venue.add_argument("--bind", default="127.0.0.1", metavar="ADDR",
                       help="address the listeners bind (default 127.0.0.1; tables on the "
                       "LAN need the venue machine's address or 0.0.0.0)")
    venue.add_argument("--port", type=int, default=None,
                       help="the port the tables' bridges log in to (default "
                       f"{DEFAULT_PORT}, or {TLS_PORT} with --tls)")
    venue.add_argument("--guest-port", type=int, metavar="PORT",
                       help="the spectators' TCP port (default: --port + 1)")
    venue.add_argument("--websockets", type=int, metavar="PORT",
                       help="also a WebSockets listener for the venue page")
    venue.add_argument("--user", metavar="NAME",
                       help="account mosquitto runs as when started by root (default: you)")
    venue.add_argument("--force", action="store_true",
                       help="overwrite existing files (every table then needs its new password)")
    venue.add_argument("--tls", action="store_true",
                       help="every listener speaks TLS: makes the venue's CA (ca.crt: give it "
                       "to each table, `broker config --bridge-ca`) and its certificate in DIR")
    venue.add_argument("--tls-name", action="append", default=[], metavar="NAME",
                       help="with --tls: an address or host name the tables dial the venue at "
                       "(repeat for more)")
    venue.set_defaults(handler=_venue)

    page = broker_sub.add_parser(
        "venue-page",
        help="serve the venue page: every table on the venue's broker, live, on one screen",
        description="Serve the venue page over HTTP until Ctrl-C: one card per table heard on "
        "the venue's guest broker (hub online, whose turn, a small map, territories and "
        "armies per seat), read over MQTT on WebSockets with the venue's spectator account. "
        "Needs `risktable broker venue ... --websockets PORT`.",
    )
    page.add_argument("--credentials", type=Path, required=True, metavar="FILE",
                      help="the venue's venue-credentials.json (from `risktable broker venue`)")
    page.add_argument("--ws-url", metavar="URL",
                      help="the guest broker's WebSockets listener as a browser reaches it "
                      "(default: ws://HOST:PORT/ from the credentials; needed when the "
                      "venue's brokers bind 0.0.0.0)")
    page.add_argument("--bind", default="127.0.0.1", metavar="ADDR",
                      help="address the page is served on (default 127.0.0.1; phones and TVs "
                      "need the venue machine's LAN address or 0.0.0.0)")
    page.add_argument("--port", type=int, default=8080,
                      help="the page's HTTP port (default 8080; 0 picks a free one)")
    page.set_defaults(handler=_venue_page)


def _bridge(args: argparse.Namespace) -> broker_config.VenueBridge | None:
    target = venue_target(args.bridge, args.bridge_password_file, args.bridge_ca)
    return None if target is None else target.for_table(args.table)


def _listeners(args: argparse.Namespace, seat_websockets: int | None = None) -> int:
    """The guest port, once the listeners' options of ``broker config`` or ``broker
    venue`` are checked (``args.port`` defaults by ``--tls``)."""
    if args.tls_name and not args.tls:
        raise CliError("--tls-name needs --tls", 2)
    if args.port is None:
        args.port = TLS_PORT if args.tls else DEFAULT_PORT
    guest_port: int = (
        broker_config.default_guest_port(args.port) if args.guest_port is None else args.guest_port
    )
    ports = {"--port": args.port, "--guest-port": guest_port}
    if args.websockets is not None:
        ports["--websockets"] = args.websockets
    if seat_websockets is not None:
        ports["--seat-websockets"] = seat_websockets
    _check_ports(ports)
    return guest_port


def _check_ports(ports: dict[str, int]) -> None:
    for option, port in ports.items():
        if not 1 <= port <= 65535:
            raise CliError(f"{option}: must be 1 to 65535, not {port}", 2)
    if len(set(ports.values())) < len(ports):
        raise CliError(f"{', '.join(ports)} must be different ports", 2)


def _venue(args: argparse.Namespace) -> int:
    from risktable.provision import venue_config

    for table in args.tables:
        check_table_and_bind(table, args.bind)
    if len(set(args.tables)) != len(args.tables):
        raise CliError("--tables: a table is named twice", 2)
    guest_port = _listeners(args)
    out: Path = args.out
    try:
        out.mkdir(parents=True, exist_ok=True)
        venue_config.write_venue_config(out, args.tables, args.bind, args.port, guest_port,
                                        args.websockets, args.user, args.force,
                                        _tls_names(args))
    except FileExistsError as exc:
        raise CliError(f"{exc} exists; use --force to replace the venue's configuration",
                       1) from None
    except ValueError as exc:  # the kept CA (table_ca.TableCaError)
        raise CliError(str(exc), 1) from None
    except OSError as exc:
        raise CliError(f"cannot write {out}: {exc.strerror}", 1) from None
    print(f"wrote {out / venue_config.VENUE_CONF_FILE} for {len(args.tables)} tables "
          f"({', '.join(args.tables)}) on port {args.port}, and "
          f"{out / venue_config.VENUE_GUEST_CONF_FILE} for spectators on port {guest_port}")
    if args.tls:
        _print_tls(out)
    tls = f" --bridge-ca {(out / 'ca.crt').resolve()}" if args.tls else ""
    for table in args.tables:
        print(f"table {table}: risktable broker config --table {table} ... --bridge "
              f"HOST:{args.port} --bridge-password-file "
              f"{out / venue_config.bridge_password_file(table)}{tls}")
    for name in (venue_config.VENUE_CONF_FILE, venue_config.VENUE_GUEST_CONF_FILE):
        print(f"start the broker with: mosquitto -c {(out / name).resolve()}")
    return 0


def _config(args: argparse.Namespace) -> int:
    check_table_and_bind(args.table, args.bind)
    guest_port = _listeners(args, seat_websockets=args.seat_websockets)
    venue = _bridge(args)
    out: Path = args.out
    try:
        out.mkdir(parents=True, exist_ok=True)
        accounts = broker_config.write_config(
            out,
            args.table,
            args.seats,
            args.bind,
            args.port,
            args.force,
            args.user,
            guest_port,
            args.websockets,
            args.seat_websockets,
            venue=venue,
            tls_names=_tls_names(args),
        )
    except FileExistsError as exc:
        raise CliError(f"{exc} exists; use --force to replace the configuration", 1) from None
    except ValueError as exc:  # the kept CA (table_ca.TableCaError)
        raise CliError(str(exc), 1) from None
    except OSError as exc:
        raise CliError(f"cannot write {out}: {exc.strerror}", 1) from None
    seats = [a for a in accounts if a.role == broker_config.SEAT]
    guests = ", ".join(a.username for a in broker_config.guest_accounts(accounts))
    print(
        f"wrote {out / broker_config.CONF_FILE} for table {args.table}: "
        f"{len(seats)} seat accounts and {accounts[0].username}; "
        f"{out / broker_config.GUEST_CONF_FILE} on port {guest_port}: {guests}"
    )
    print(f"passwords are in {out / broker_config.CREDENTIALS_FILE} (mode 0600): keep it private")
    if venue is not None:
        print(f"the board, scene and hub status go to the venue at {venue.host}:{venue.port} "
              f"as {venue.username}; {out / broker_config.CONF_FILE} holds its password "
              "(mode 0600)")
    if args.tls:
        _print_tls(out)
    for name in (broker_config.CONF_FILE, broker_config.GUEST_CONF_FILE):
        print(f"start the broker with: mosquitto -c {(out / name).resolve()}")
    return 0


def _tls_names(args: argparse.Namespace) -> list[str] | None:
    if not args.tls:
        return None
    from risktable.provision import table_ca

    return table_ca.default_names(args.bind, args.tls_name)


def _print_tls(out: Path) -> None:
    from cryptography import x509

    from risktable.provision import table_ca

    cert = x509.load_pem_x509_certificate((out / table_ca.CERT_FILE).read_bytes())
    print(f"TLS on every listener: the CA is {(out / table_ca.CA_CERT_FILE).resolve()} "
          f"(give it to every client; its key {table_ca.CA_KEY_FILE} stays here, mode 0600), "
          f"SHA-256 fingerprint {table_ca.fingerprint(out / table_ca.CA_CERT_FILE)}")
    print(f"the broker's certificate is valid for: {', '.join(table_ca.names_of(cert))} "
          "(clients must dial one of these; add more with --tls-name)")


def venue_page_config(credentials: Path, ws_url: str | None) -> VenuePageConfig:
    """The venue page's configuration from the venue's ``venue-credentials.json``;
    one-line errors for a missing or damaged file or no WebSockets listener. A venue
    made with ``--tls`` gets a ``wss://`` broker and the page's HTTPS files (the venue
    broker's own certificate, beside the credentials): the page hands its spectator's
    password to every browser, which must not cross the network in clear."""
    import json

    from risktable.web.server import VenuePageConfig

    try:
        doc = json.loads(credentials.read_text("utf-8"))
        guests = doc["guests"]
        spectator = doc["spectator"]
        tables = tuple(str(t) for t in doc["tables"])
        host, websockets = str(guests["host"]), guests["websockets"]
        username, password = str(spectator["username"]), str(spectator["password"])
        tls = doc["venue"].get("ca") is not None
    except OSError as exc:
        raise CliError(f"cannot read --credentials {credentials}: {exc.strerror}") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise CliError(f"--credentials {credentials} is not a venue's venue-credentials.json "
                       f"({exc.__class__.__name__}: {exc})") from None
    if ws_url is None:
        if websockets is None:
            raise CliError("the venue's guest broker has no WebSockets listener: write the "
                           "venue again with `risktable broker venue ... --websockets PORT`, "
                           "or give --ws-url")
        if host == "0.0.0.0":
            raise CliError("the venue's brokers bind 0.0.0.0: give --ws-url "
                           f"{'wss' if tls else 'ws'}://<this machine's LAN address>:"
                           f"{websockets}/")
        ws_url = f"{'wss' if tls else 'ws'}://{host}:{websockets}/"
    if not ws_url.startswith(("ws://", "wss://")):
        raise CliError(f"--ws-url: expected ws://HOST:PORT/ or wss://..., got {ws_url}", 2)
    https = None
    if tls:
        if not ws_url.startswith("wss://"):
            raise CliError(f"--ws-url: the venue speaks TLS: wss://..., not {ws_url}", 2)
        https = (credentials.parent / broker_config.CERT_FILE,
                 credentials.parent / broker_config.KEY_FILE)
        if not all(path.is_file() for path in https):
            raise CliError(f"the venue speaks TLS but {https[0].name} and {https[1].name} are "
                           f"not beside {credentials}: the page is served with them")
    return VenuePageConfig(ws_url, tables, username, password, https)


def _venue_page(args: argparse.Namespace) -> int:
    import ipaddress
    import threading

    from risktable.web.server import BoardPageServer, CertificateFilesError

    try:
        ipaddress.ip_address(args.bind)
    except ValueError:
        raise CliError(f"--bind: not an IP address: {args.bind}", 2) from None
    if not 0 <= args.port <= 65535:
        raise CliError(f"--port: must be 0 to 65535, not {args.port}", 2)
    config = venue_page_config(args.credentials, args.ws_url)
    try:
        server = BoardPageServer(config, args.bind, args.port, config.https).start()
    except CertificateFilesError as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:
        raise CliError(f"cannot serve on {args.bind}:{args.port}: {exc.strerror}") from None
    print(f"venue page at {server.url} for {len(config.tables)} tables "
          f"({', '.join(config.tables)}), broker {config.ws_url}; Ctrl-C stops it", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:  # Ctrl-C is how the page is meant to stop
        print("venue page stopped", flush=True)
    finally:
        server.stop()
    return 0
