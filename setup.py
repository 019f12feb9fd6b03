"""The build: everything is in pyproject.toml but the engine's optional compiled core (issue #17 item 3).

Where mypy's mypyc and a C compiler are at hand, the hot engine modules (watten_net/engine/compiled.py lists them)
are compiled to C extension modules beside their sources, about 1.8x faster. The extensions are optional: without a
compiler, or if mypyc fails, the package installs as plain Python and behaves the same. `compiled.json` records the
sources a complete build was made from (their hashes and file status) and is written only after every extension was
built from sources still unchanged, so that a failed or partial build, or an edited source, makes the engine import
its .py files (see compiled.py).
WATTEN_PURE_ENGINE=1 at install time skips the compilation.
"""

from __future__ import annotations

import json
import os
import runpy
from pathlib import Path
from typing import Any, ClassVar

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ENGINE = Path(__file__).resolve().parent / "watten_net" / "engine"
PLAN = runpy.run_path(str(ENGINE / "compiled.py"))  # standard library only; decides nothing when run this way
MANIFEST = ENGINE / PLAN["MANIFEST"]


class BuildEngine(build_ext):
    """build_ext that records the sources in compiled.json once every extension is built, and only then."""

    hashes: ClassVar[dict[str, str]] = {}  # set by engine_extensions()

    def run(self) -> None:
        MANIFEST.unlink(missing_ok=True)  # whatever was built before no longer counts until this build completes
        self.built: set[str] = set()
        super().run()
        manifest = None
        if self.hashes and self.built == {ext.name for ext in self.extensions}:
            manifest = PLAN["record"](ENGINE, self.hashes)  # None: a source was edited while it was compiled
        if manifest is not None:
            text = json.dumps(manifest, indent=1, sort_keys=True)
            MANIFEST.write_text(text)  # an editable install imports the engine from the sources
            built_engine = Path(self.build_lib) / "watten_net" / "engine"
            if built_engine.is_dir():  # a wheel: build_py copied the package before this ran
                (built_engine / MANIFEST.name).write_text(text)
        else:
            print("watten-net: the engine's compiled core was not built; the engine runs as plain Python")

    def build_extension(self, ext: Any) -> None:
        super().build_extension(ext)  # an optional extension that fails raises here and is not counted
        self.built.add(ext.name)


def engine_extensions() -> list[Extension]:
    if os.environ.get(PLAN["PURE_ENV"]):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:  # no mypy in the build environment: plain Python
        return []
    BuildEngine.hashes = PLAN["source_hashes"](ENGINE)  # read before mypyc reads the sources it compiles
    sources = [f"watten_net/engine/{name.replace('.', '/')}.py" for name in PLAN["MODULES"]]
    try:
        extensions = mypycify(sources, group_name=PLAN["GROUP"], opt_level="3")
    except (Exception, SystemExit) as failure:  # mypyc reports its errors by SystemExit; plain Python then
        print(f"watten-net: the engine stays plain Python (mypyc: {failure!r})")
        return []
    for extension in extensions:
        extension.optional = True  # no C compiler: a warning, and the .py files are imported
    return extensions


setup(
    ext_modules=engine_extensions(),
    cmdclass={"build_ext": BuildEngine},
    package_data={"watten_net.engine": [PLAN["MANIFEST"]]},
)
