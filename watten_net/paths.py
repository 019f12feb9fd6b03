"""Per-user configuration and data directories, without a dependency such as platformdirs.

Two places, because they hold different things:

* `config_dir()` holds what identifies this installation and what it trusts: the host's TLS certificate and key,
  the client's `known_hosts`. Losing it means clients see a "changed certificate" warning.
* `data_dir()` holds what the programs produce: journals, game records.

Each is found in this order, the first that applies wins:

1. `$WATTEN_CONFIG_DIR` / `$WATTEN_DATA_DIR`: an explicit choice for watten-net alone (tests, several hosts on one
   machine, a portable install).
2. `$XDG_CONFIG_HOME/watten-net` / `$XDG_DATA_HOME/watten-net`, when set to an absolute path (the XDG spec says to
   ignore relative ones). Honoured on every platform: whoever sets it on macOS or Windows has asked for it.
3. The platform's convention: `~/.config/watten-net` and `~/.local/share/watten-net` (XDG defaults),
   `~/Library/Application Support/watten-net` on macOS (for both), `%APPDATA%\\watten-net` on Windows (for both;
   roaming, so a moved profile keeps its certificate and known hosts).

The directories are created on demand with mode 0700, because they hold a private key and the list of hosts a user
trusts; nobody else on the machine needs to read either.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

APP_NAME = "watten-net"


def config_dir() -> Path:
    """The per-user configuration directory (created with mode 0700 if missing)."""
    where = resolve_dir(
        "WATTEN_CONFIG_DIR", "XDG_CONFIG_HOME", Path(".config"), environ=os.environ, platform=sys.platform
    )
    return ensure_private_dir(where)


def data_dir() -> Path:
    """The per-user data directory (created with mode 0700 if missing)."""
    where = resolve_dir(
        "WATTEN_DATA_DIR", "XDG_DATA_HOME", Path(".local", "share"), environ=os.environ, platform=sys.platform
    )
    return ensure_private_dir(where)


def resolve_dir(
    override_var: str,
    xdg_var: str,
    xdg_default: Path,
    *,
    environ: Mapping[str, str],
    platform: str,
    home: Path | None = None,
) -> Path:
    """Where a directory belongs, without touching the file system.

    Separate from `config_dir`/`data_dir` so the platform rules can be tested on any platform: the caller passes the
    environment and `sys.platform` value instead of this function reading globals.
    """
    override = environ.get(override_var, "")
    if override:
        return Path(override).expanduser()
    xdg = environ.get(xdg_var, "")
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / APP_NAME
    base_home = home if home is not None else Path.home()
    if platform == "win32":
        appdata = environ.get("APPDATA", "")
        return (Path(appdata) if appdata else base_home / "AppData" / "Roaming") / APP_NAME
    if platform == "darwin":
        return base_home / "Library" / "Application Support" / APP_NAME
    return base_home / xdg_default / APP_NAME


def ensure_private_dir(path: Path) -> Path:
    """Create `path` (and missing parents) and return it; a directory made here gets mode 0700.

    An existing directory keeps its mode: it may be one the user chose via `$WATTEN_CONFIG_DIR` and shares on purpose.
    The explicit chmod after mkdir is there because mkdir's mode is filtered through the umask, and an unusual umask
    (0o277, say) would otherwise leave the owner unable to write its own directory.
    """
    if path.is_dir():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        path.mkdir(mode=0o700)
    except FileExistsError:
        # Another process made it between our check and our mkdir; it is a directory or mkdir below will say not.
        if not path.is_dir():
            raise
        return path
    if os.name == "posix":
        os.chmod(path, 0o700)
    return path
