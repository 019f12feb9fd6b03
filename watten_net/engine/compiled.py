"""Which engine runs: the hot modules compiled by mypyc, or the very same modules as plain Python.

`setup.py` compiles `MODULES` with mypyc where it can (a C compiler and mypy at install time; the README's
`pip install -e` does it) and records in `compiled.json` a hash of every engine source it was built from. Without
a compiler the same package installs as plain Python: the compiled core is an optional speed-up (issue #17 item 3,
about 1.8x on bench/engine.py), never a different engine, and the whole test suite passes on both.

`choose()` runs before any engine module is imported (`watten_net/engine/__init__.py` imports this module
first). It keeps the compiled modules only when every one of them is there and was built from the sources as they
are now; after any edit to the engine, or with WATTEN_PURE_ENGINE=1 in the environment, it makes Python import the
`.py` files in their place, so an edited engine (or a mutant of tests/mutants.py) never runs stale compiled code.

"As they are now" is decided without reading a source in the usual case: the manifest also holds each source's
file status when the build was recorded (size, modification and change times in nanoseconds, inode, device), and
while all of them are the same, no source was written since (the change time cannot be set back by any program,
and every write, rename or copy over a file sets it). A source whose status differs in any way, or that was
written less than `RACY_NS` before the record was made (its next write might fall within the same tick of the
file system's clock, as git's "racily clean" entries), is judged by its content hash instead, as every import
did before; that also reads a build copied elsewhere (new inodes) right. Every process's start-up is spared the
hashing (and hashlib's import) this way. This module imports nothing but the standard library: setup.py reads
MODULES and `record` from it before anything is built.
"""

from __future__ import annotations

import importlib.machinery
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

MODULES = ("state", "core", "match", "ranking", "seating", "public.match")
"""The compiled modules, under watten_net.engine: the state, the rules, the card engine, the seating facts they read
on every step, and the public engine (a subclass of the compiled core must be compiled too)."""
GROUP = "watten_net.engine.compiled"
"""mypyc's group: its shared library is `compiled__mypyc`, beside this file (inside the package, so an editable
install finds it)."""
MANIFEST = "compiled.json"
PURE_ENV = "WATTEN_PURE_ENGINE"
RACY_NS = 2_000_000_000
"""A source written less than this long before the manifest was recorded is judged by its hash at every import."""

ENGINE = Path(__file__).resolve().parent
PACKAGE = "watten_net.engine"


def hashed_sources(engine: Path) -> list[Path]:
    """Every source a compiled module may have taken something from at build time: the whole engine (mypyc may
    inline a constant of another module) and the refusal reasons it raises."""
    return [*sorted(engine.rglob("*.py")), engine.parent / "refusal.py"]


def source_hashes(engine: Path) -> dict[str, str]:
    import hashlib  # (only when a source must be read: hashlib's import alone costs a few ms of every start-up)

    return {
        path.relative_to(engine.parent).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in hashed_sources(engine)
    }


def _status(path: Path) -> list[int]:
    st = path.stat()
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]


def record(engine: Path, built_from: dict[str, str], now_ns: int | None = None) -> dict[str, object] | None:
    """The manifest of a build made from the sources whose hashes were `built_from` (taken before the compiler
    read them): those hashes, and the file status of each source not written within RACY_NS before `now_ns` (by
    default the time of this call). None when the sources are no longer what the build was made from: a source
    edited during the build makes the build stale, and no manifest may call it up to date."""
    statuses = {path.relative_to(engine.parent).as_posix(): _status(path) for path in hashed_sources(engine)}
    if source_hashes(engine) != built_from:
        return None
    settled = (time.time_ns() if now_ns is None else now_ns) - RACY_NS
    return {"hashes": built_from,
            "statuses": {name: st for name, st in statuses.items() if max(st[1], st[2]) < settled}}


def built_files(engine: Path) -> list[Path]:
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    names = [name.replace(".", "/") for name in MODULES] + [GROUP.rsplit(".", 1)[1] + "__mypyc"]
    return [engine / (name + suffix) for name in names]


def _up_to_date(engine: Path) -> bool:
    try:
        recorded = json.loads((engine / MANIFEST).read_text())
    except (OSError, ValueError):
        return False
    if not isinstance(recorded, dict):
        return False
    statuses = recorded.get("statuses")
    if isinstance(statuses, dict) and _unwritten_since(engine, statuses):
        return True
    return recorded.get("hashes") == source_hashes(engine)


def _unwritten_since(engine: Path, statuses: dict[str, object]) -> bool:
    """Every source (no more, no fewer) has the very file status the manifest recorded."""
    try:
        now = {path.relative_to(engine.parent).as_posix(): _status(path) for path in hashed_sources(engine)}
    except OSError:
        return False
    return now == statuses


class _Sources:
    """Finds the `.py` file of each compiled module, ahead of the extension module beside it (a finder of
    sys.meta_path: importlib.abc is not imported for its base class, it would cost every start-up)."""

    def __init__(self, files: dict[str, Path]) -> None:
        self.files = files

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        import importlib.util

        file = self.files.get(fullname)
        return importlib.util.spec_from_file_location(fullname, file) if file is not None else None


def compiled_usable(engine: Path = ENGINE) -> bool | None:
    """True when every compiled module is there, built from the sources as they are now (and not turned off);
    None when there is none at all (a plain-Python install or a source checkout); False when they must be stepped
    around (some missing, stale, or WATTEN_PURE_ENGINE set)."""
    built = [path for path in built_files(engine) if path.exists()]
    if not built:
        return None
    return len(built) == len(MODULES) + 1 and not os.environ.get(PURE_ENV) and _up_to_date(engine)


def choose() -> bool:
    """Decide once, before the engine's modules are imported; True when the compiled modules will be used."""
    usable = compiled_usable()
    if usable is False:
        files = {f"{PACKAGE}.{name}": ENGINE / (name.replace(".", "/") + ".py") for name in MODULES}
        sys.meta_path.insert(0, _Sources(files))
    return bool(usable)


def running_compiled() -> bool:
    """Whether the engine imported now is the compiled one (for tests and benchmarks to report)."""
    module = sys.modules.get(f"{PACKAGE}.match")
    return module is not None and not str(getattr(module, "__file__", "")).endswith(".py")


# Decided on import by the package (watten_net/engine/__init__.py imports this first); setup.py runs this file
# under another name only to read MODULES and source_hashes, and must not change its own imports.
COMPILED = choose() if __name__ == f"{PACKAGE}.compiled" else False
