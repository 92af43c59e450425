"""The console command's own contract: one-line errors, exit codes."""

from __future__ import annotations

from pathlib import Path

import pytest

from risktable.cli import build_parser, main
from risktable.cli.common import PASSWORD_ENV, hub_config
from risktable.cli.errors import CliError


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.startswith("risktable ")


def test_unknown_command_is_one_line_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["no-such-command"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "no-such-command" in err


@pytest.mark.parametrize(
    ("argv", "fix"),
    [
        (["hub", "--username", "u", "--password", "s3cret"], "--password-file"),
        (["seat", "config", "--seat", "1", "--broker-host", "h", "--out", "x.json",
          "--password", "s3cret"], "--password-file"),
        (["seat", "config", "--seat", "1", "--broker-host", "h", "--out", "x.json",
          "--wifi-password", "s3cret"], "--wifi-password-file"),
    ],
)
def test_a_password_on_the_command_line_is_refused(
    capsys: pytest.CaptureFixture[str], argv: list[str], fix: str
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fix in err and "RISKTABLE_" in err
    assert "s3cret" not in err


def test_the_hub_password_comes_from_a_file_or_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = tmp_path / "hub.password"
    secret.write_text("from-the-file\n")
    secret.chmod(0o600)

    def password(*argv: str) -> str | None:
        args = build_parser().parse_args(["hub", "--username", "den-hub", *argv])
        return hub_config(args).broker.password

    monkeypatch.delenv(PASSWORD_ENV, raising=False)
    assert password() is None
    assert password("--password-file", str(secret)) == "from-the-file"
    monkeypatch.setenv(PASSWORD_ENV, "from-the-environment")
    assert password() == "from-the-environment"
    assert password("--password-file", str(secret)) == "from-the-file"  # the file wins
    with pytest.raises(CliError, match="cannot read --password-file"):
        password("--password-file", str(tmp_path / "missing"))
