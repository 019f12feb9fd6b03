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
trusts; nobody else on the machine needs to read either. The same goes for what is under `data_dir()`: a host's game
record and journal hold every seat's cards while the game runs, a seat's secrets its unrevealed seeds. So the
program's own folders there (`data_subdir`: records, journal, seats) are made 0700, or set to 0700 if an older
version left them wider, and every such file is created 0600 (`open_private`). A folder the user names
(`--record DIR`, `$WATTEN_DATA_DIR`) keeps the mode it has: the user may share it on purpose; the files in it are
0600 all the same (docs/protocol-decisions.md).
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import BinaryIO

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
    """Create `path` (and missing parents) and return it; every directory made here gets mode 0700.

    An existing directory keeps its mode: it may be one the user chose via `$WATTEN_CONFIG_DIR` or `--record DIR`
    and shares on purpose. The explicit chmod after mkdir is there because mkdir's mode is filtered through the
    umask, and an unusual umask (0o277, say) would otherwise leave the owner unable to write its own directory.
    """
    if path.is_dir():
        return path
    ensure_private_dir(path.parent)
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


def data_subdir(name: str) -> Path:
    """The program's own folder `name` under `data_dir()` ("records", "journal", "seats"), mode 0700.

    Unlike `ensure_private_dir`, an existing one is set to 0700 too (if it is ours): only this program makes a folder
    of that name there, and versions before 0700 left it readable by everyone on the machine.
    """
    path = ensure_private_dir(data_dir() / name)
    _narrow_to_owner(path, 0o700)
    return path


def open_private(path: Path, *, append: bool = False) -> BinaryIO:
    """Open `path` for writing (truncated, or appended to), mode 0600 whether it is made now or existed already.

    os.open's mode is used for a new file only (and filtered through the umask); the fchmod covers a file an older
    version wrote with the umask's mode.
    """
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC)
    fd = os.open(path, flags, 0o600)
    if hasattr(os, "fchmod"):
        os.fchmod(fd, 0o600)
    return os.fdopen(fd, "ab" if append else "wb")


def _narrow_to_owner(path: Path, mode: int) -> None:
    """chmod `path` to `mode` if it allows more and belongs to this user (someone else's is not ours to change)."""
    if os.name != "posix":
        return
    info = path.stat()
    if stat.S_IMODE(info.st_mode) & ~mode and info.st_uid == os.getuid():
        os.chmod(path, mode)
