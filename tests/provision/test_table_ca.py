"""The table's CA is kept across `broker config --force`, and half a CA is never replaced
silently: a new CA would cut off every seat and phone that trusts the old one."""

from __future__ import annotations

from pathlib import Path

import pytest

from risktable.cli import main
from risktable.provision.table_ca import CA_CERT_FILE, CA_KEY_FILE


def _config(out: Path) -> int:
    return main(["broker", "config", "--seats", "2", "--table", "den", "--out", str(out),
                 "--tls", "--force"])


def test_the_ca_is_kept_and_half_a_ca_is_refused_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _config(tmp_path) == 0
    first = (tmp_path / CA_CERT_FILE).read_bytes()
    assert _config(tmp_path) == 0
    assert (tmp_path / CA_CERT_FILE).read_bytes() == first  # kept across --force
    (tmp_path / CA_KEY_FILE).unlink()
    capsys.readouterr()
    assert _config(tmp_path) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert f"{CA_KEY_FILE} is missing beside" in err and "put it back" in err
    assert (tmp_path / CA_CERT_FILE).read_bytes() == first  # not replaced
