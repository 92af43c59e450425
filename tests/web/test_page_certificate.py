"""The pages' HTTPS certificate and key: a pair that cannot be used is one clear line
naming both files, not a port error or a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from risktable.provision.table_ca import (
    CA_CERT_FILE,
    load_or_make_ca,
    write_broker_certificate,
)
from risktable.web.server import BoardPageServer, CertificateFilesError, PageConfig


def test_a_key_that_is_not_the_certificates_or_is_missing_is_named(tmp_path: Path) -> None:
    ca = load_or_make_ca(tmp_path, "den")
    write_broker_certificate(tmp_path, ca, ["localhost"])
    config = PageConfig("wss://127.0.0.1:9001", "den")
    with pytest.raises(CertificateFilesError, match=r"cannot use the certificate .*ca\.crt "
                       r"and key .*broker\.key for HTTPS"):
        BoardPageServer(config, tls=(tmp_path / CA_CERT_FILE, tmp_path / "broker.key"))
    with pytest.raises(CertificateFilesError, match="No such file"):
        BoardPageServer(config, tls=(tmp_path / "broker.crt", tmp_path / "gone.key"))
    with BoardPageServer(config, tls=(tmp_path / "broker.crt", tmp_path / "broker.key")):
        pass  # the pair that belongs together is taken
