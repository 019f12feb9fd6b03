"""Which engine runs: the hot modules compiled by mypyc, or the very same modules as plain Python.

`setup.py` compiles `MODULES` with mypyc where it can (a C compiler and mypy at install time; the README's
`pip install -e` does it) and records in `compiled.json` a hash of every engine source it was built from. Without
a compiler the same package installs as plain Python: the compiled core is an optional speed-up (issue #17 item 3,
about 1.8x on bench/engine.py), never a different engine, and the whole test suite passes on both.

`choose()` runs before any engine module is imported (`watten_net/engine/__init__.py` imports this module
first). It keeps the
compiled modules only when every one of them is there and was built from the sources as they are now; after any
edit to the engine, or with WATTEN_PURE_ENGINE=1 in the environment, it makes Python import the `.py` files in
their place, so an edited engine (or a mutant of tests/mutants.py) never runs stale compiled code. This module
imports nothing but the standard library: setup.py reads MODULES and `source_hashes` from it before anything is
built.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
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

ENGINE = Path(__file__).resolve().parent
PACKAGE = "watten_net.engine"


def hashed_sources(engine: Path) -> list[Path]:
    """Every source a compiled module may have taken something from at build time: the whole engine (mypyc may
    inline a constant of another module) and the refusal reasons it raises."""
    return [*sorted(engine.rglob("*.py")), engine.parent / "refusal.py"]


def source_hashes(engine: Path) -> dict[str, str]:
    return {
        path.relative_to(engine.parent).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in hashed_sources(engine)
    }


def built_files(engine: Path) -> list[Path]:
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    names = [name.replace(".", "/") for name in MODULES] + [GROUP.rsplit(".", 1)[1] + "__mypyc"]
    return [engine / (name + suffix) for name in names]


def _up_to_date(engine: Path) -> bool:
    try:
        recorded = json.loads((engine / MANIFEST).read_text())
    except (OSError, ValueError):
        return False
    return isinstance(recorded, dict) and recorded == source_hashes(engine)


class _Sources(importlib.abc.MetaPathFinder):
    """Finds the `.py` file of each compiled module, ahead of the extension module beside it."""

    def __init__(self, files: dict[str, Path]) -> None:
        self.files = files

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
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
