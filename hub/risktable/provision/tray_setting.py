"""The dice tray turned on in an existing ``hub.toml`` (``risktable install --tray`` over an
earlier install): ``[tray] enabled = true`` and its camera, every other line as the person
left it. Standard library only, like the rest of the installer."""

from __future__ import annotations

import json
import re
import tomllib

#: The tray's camera when install is given no ``--tray-source``: the Pi camera on a
#: Raspberry Pi, else the first webcam (``/dev/video0``).
PI_CAMERA = "picamera"
WEBCAM = "camera:0"

_WEBCAM_SPEC = re.compile(r"camera:[0-9]+")
# `key = value  # comment`: the value a bool or a plain basic string, so the comment can
# be kept when the value is replaced.
_SETTING = re.compile(r'(?P<key>\s*(?P<name>[A-Za-z0-9_-]+)\s*=\s*)'
                      r'(?P<value>true|false|"[^"\\]*")?(?P<rest>.*)$')


class TraySettingError(ValueError):
    """hub.toml could not be given the tray's settings; the message says why."""


def default_source(is_pi: bool) -> str:
    """The camera an install uses when not told: the Pi camera on a Pi, else a webcam."""
    return PI_CAMERA if is_pi else WEBCAM


def check_source(spec: str) -> str:
    """``spec`` if the tray's service can open it (``picamera``, ``camera:N`` or an
    absolute path: the service runs in the data directory); ValueError if not."""
    if spec == PI_CAMERA or _WEBCAM_SPEC.fullmatch(spec) or spec.startswith("/"):
        return spec
    raise ValueError(f"{spec!r} is not picamera, camera:N (a webcam, /dev/videoN) or an "
                     "absolute path")


def tray_settings(text: str) -> tuple[bool, str | None]:
    """hub.toml's ``[tray] enabled`` and ``source``; (False, None) for a file that is
    not TOML (the hub says what is wrong with it when it starts)."""
    try:
        tray = tomllib.loads(text).get("tray", {})
    except tomllib.TOMLDecodeError:
        return False, None
    if not isinstance(tray, dict):
        return False, None
    source = tray.get("source")
    return tray.get("enabled") is True, source if isinstance(source, str) else None


def enable_tray(text: str, source: str | None) -> str:
    """``text`` (hub.toml) with ``[tray] enabled = true`` and, unless ``source`` is None,
    ``source``: set in its ``[tray]`` table (a comment after a value is kept), or a
    ``[tray]`` table added at the end. :class:`TraySettingError` when the result does not
    read back so (a ``tray`` written as an inline or dotted table, say)."""
    wanted = {"enabled": "true"}
    if source is not None:
        wanted["source"] = json.dumps(source)  # a TOML basic string, escaped alike
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if _header(line) == "tray"), None)
    if start is None:
        body = ["[tray]", *(f"{key} = {value}" for key, value in wanted.items())]
        new = "\n".join([*lines, *([""] if lines and lines[-1].strip() else []), *body]) + "\n"
    else:
        end = next((i for i in range(start + 1, len(lines)) if _header(lines[i]) is not None),
                   len(lines))
        for key, value in wanted.items():
            at = next((i for i in range(start + 1, end) if _name(lines[i]) == key), None)
            if at is None:
                lines.insert(start + 1, f"{key} = {value}")
                end += 1
            else:
                lines[at] = _replaced(lines[at], value)
        new = "\n".join(lines) + "\n"
    enabled, read_source = tray_settings(new)
    if not enabled or (source is not None and read_source != source):
        raise TraySettingError("its [tray] table could not be edited (is tray written as an "
                               "inline or dotted table?): set [tray] enabled = true"
                               + ("" if source is None else f' and source = "{source}"')
                               + " by hand")
    return new


def _header(line: str) -> str | None:
    # The table a `[name]` line opens (spaces inside the brackets allowed), else None.
    bare = line.split("#", 1)[0].strip()
    if bare.startswith("[") and bare.endswith("]"):
        return bare.strip("[]").strip()
    return None


def _name(line: str) -> str | None:
    match = _SETTING.match(line)
    return None if match is None else match["name"]  # a comment never matches


def _replaced(line: str, value: str) -> str:
    match = _SETTING.match(line)
    assert match is not None
    if match["value"] is None:  # a value of another shape: the whole line goes
        return f"{match['name']} = {value}"
    return f"{match['key']}{value}{match['rest']}"
