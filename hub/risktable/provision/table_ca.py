"""The table's own certificate authority, for MQTT over TLS (``broker config --tls``).

A table has no public name a public CA would sign, so ``risktable broker config --tls``
makes a CA of its own and signs the broker's certificate with it. Every client then
trusts exactly that CA (seats carry it in their flash, the hub names it in hub.toml,
phones and browsers install it once), and verifies the broker's name against the
certificate: someone on the Wi-Fi can no longer read a password from a CONNECT, nor
pose as the broker.

Keys are ECDSA P-256: an ESP32's Mbed TLS verifies and signs with it several times
faster than with RSA-2048 (the handshake is what a seat pays at every connect), and
every TLS stack the table meets (Mbed TLS on seats, OpenSSL under paho and mosquitto,
Chromium's BoringSSL) takes it. The CA's key never leaves the folder (mode 0600); a new
broker certificate (another address, a renewal) is signed by the same CA, so seats and
phones need not be given a new one.

Example::

    >>> ca = new_ca("den")
    >>> cert, key = broker_certificate(ca, ["127.0.0.1", "hub.local"])
    >>> sorted(names_of(cert))
    ['127.0.0.1', 'hub.local']
"""

from __future__ import annotations

import datetime
import ipaddress
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

# The files' names live in broker_config, which the installer imports on a Python with
# the standard library alone (this module needs cryptography); re-exported here.
from risktable.provision.broker_config import CA_CERT_FILE as CA_CERT_FILE
from risktable.provision.broker_config import CA_DER_FILE as CA_DER_FILE
from risktable.provision.broker_config import CA_KEY_FILE as CA_KEY_FILE
from risktable.provision.broker_config import CERT_FILE as CERT_FILE
from risktable.provision.broker_config import KEY_FILE as KEY_FILE
from risktable.provision.broker_config import write_file

#: A CA lives as long as the table (seats and phones keep it); a broker certificate
#: for about two years and three months: Apple's devices refuse a server certificate
#: valid for more than 825 days, and the phone seat must open on an iPhone.
CA_DAYS = 20 * 365
CERT_DAYS = 825


@dataclass(frozen=True)
class TableCa:
    """The table's CA: its certificate and its private key."""

    cert: x509.Certificate
    key: ec.EllipticCurvePrivateKey


def _name(common_name: str) -> x509.Name:
    return x509.Name([
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, "risktable"),
        x509.NameAttribute(NameOID.COMMON_NAME, common_name),
    ])


def _now() -> datetime.datetime:
    # A minute back, so a device whose clock is a little behind accepts it at once.
    return datetime.datetime.now(datetime.UTC) - datetime.timedelta(minutes=1)


def _key_usage(signs_certificates: bool) -> x509.KeyUsage:
    # A CA signs certificates (and revocation lists); the broker's key signs handshakes.
    return x509.KeyUsage(digital_signature=not signs_certificates, content_commitment=False,
                         key_encipherment=False, data_encipherment=False, key_agreement=False,
                         key_cert_sign=signs_certificates, crl_sign=signs_certificates,
                         encipher_only=False, decipher_only=False)


def new_ca(table: str) -> TableCa:
    """A new CA named after ``table``, valid for :data:`CA_DAYS`."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = _name(f"risktable table {table} CA")
    start = _now()
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(start + datetime.timedelta(days=CA_DAYS))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(_key_usage(signs_certificates=True), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()),
                       critical=False)
        .sign(key, hashes.SHA256())
    )
    return TableCa(cert, key)


def _general_name(name: str) -> x509.GeneralName:
    try:
        return x509.IPAddress(ipaddress.ip_address(name))
    except ValueError:
        return x509.DNSName(name)


def broker_certificate(ca: TableCa, names: Iterable[str]
                       ) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    """A server certificate for the broker, signed by ``ca``, valid for ``names``
    (IP addresses and host names, as clients dial them) and :data:`CERT_DAYS`."""
    wanted = list(dict.fromkeys(names))
    if not wanted:
        raise ValueError("a broker certificate needs at least one name")
    key = ec.generate_private_key(ec.SECP256R1())
    start = _now()
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name(wanted[0]))
        .issuer_name(ca.cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(start + datetime.timedelta(days=CERT_DAYS))
        .add_extension(x509.SubjectAlternativeName([_general_name(n) for n in wanted]),
                       critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(_key_usage(signs_certificates=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]),
                       critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca.key.public_key()),
            critical=False,
        )
        .sign(ca.key, hashes.SHA256())
    )
    return cert, key


def names_of(cert: x509.Certificate) -> list[str]:
    """The names (addresses and host names) a certificate is valid for."""
    san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    return [str(n.value) for n in san]


def default_names(bind: str, extra: Iterable[str] = ()) -> list[str]:
    """The names the broker's certificate carries: ``extra`` (``--tls-name``) first,
    then the bound address (unless it is every address), loopback, this machine's host
    name and its ``.local`` name (what mDNS answers on a Raspberry Pi OS hub)."""
    host = socket.gethostname()
    names = [*extra]
    if bind not in ("0.0.0.0", "::"):
        names.append(bind)
    names += ["127.0.0.1", "localhost", host, f"{host}.local"]
    return list(dict.fromkeys(names))


def fingerprint(cert_file: Path) -> str:
    """The SHA-256 fingerprint of a PEM certificate, as phones and browsers show it
    (colon-separated hex): a person installing ``ca.crt`` on a phone compares the two."""
    cert = x509.load_pem_x509_certificate(cert_file.read_bytes())
    return cert.fingerprint(hashes.SHA256()).hex(":").upper()


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM,
                             serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


class TableCaError(ValueError):
    """The CA kept in a folder cannot be used: half of it is missing, or its key is not
    one."""


def load_or_make_ca(folder: Path, table: str) -> TableCa:
    """The CA kept in ``folder``, or a new one written there (``ca.crt``, ``ca.der``,
    and ``ca.key`` with mode 0600). Kept across ``broker config --force``: seats and
    phones that trust it go on trusting the new broker certificate."""
    cert_path, key_path = folder / CA_CERT_FILE, folder / CA_KEY_FILE
    if cert_path.exists() != key_path.exists():
        # A new CA here would leave every seat and phone that trusts the old one unable
        # to connect: only a person can say which they want.
        present, missing = (cert_path, key_path) if cert_path.exists() else (key_path,
                                                                             cert_path)
        raise TableCaError(f"{missing} is missing beside {present}: put it back, or remove "
                           f"{present} too for a new CA (every seat and phone then needs "
                           f"the new {CA_CERT_FILE})")
    if cert_path.exists():
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
        if not isinstance(key, ec.EllipticCurvePrivateKey):
            raise TableCaError(f"{key_path} is not the table CA's EC key")
        return TableCa(cert, key)
    ca = new_ca(table)
    write_file(key_path, _pem_key(ca.key), 0o600, force=True)
    write_file(cert_path, ca.cert.public_bytes(serialization.Encoding.PEM), 0o644, True)
    write_file(folder / CA_DER_FILE, ca.cert.public_bytes(serialization.Encoding.DER), 0o644,
               True)
    return ca


def write_broker_certificate(folder: Path, ca: TableCa, names: Iterable[str]) -> list[str]:
    """Sign a new broker certificate for ``names`` and write ``broker.crt`` and
    ``broker.key`` (mode 0600) into ``folder``; returns the names it carries."""
    cert, key = broker_certificate(ca, names)
    write_file(folder / KEY_FILE, _pem_key(key), 0o600, force=True)
    write_file(folder / CERT_FILE, cert.public_bytes(serialization.Encoding.PEM), 0o644, True)
    return names_of(cert)
