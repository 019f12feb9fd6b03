"""Regenerate the committed protobuf and gRPC code in ``watten_net/v1/`` from ``proto/``.

Run from anywhere (paths are taken from this file's place in the repository)::

    python -m watten_net.v1.regenerate            # rewrite watten_net/v1/*_pb2.py, *_pb2.pyi, *_pb2_grpc.py
    python -m watten_net.v1.regenerate --check    # regenerate into a temporary directory; exit 1 and list
                                                  # the files that differ from the committed ones

It runs ``grpc_tools.protoc -I proto --python_out=. --pyi_out=. --grpc_python_out=.`` over every
``.proto`` under ``proto/``. Because the include root is ``proto/`` and the file is
``proto/watten_net/v1/watten.proto``, the generated service module imports
``from watten_net.v1 import watten_pb2``, which is the package path.
"""

from __future__ import annotations

import argparse
import filecmp
import sys
import tempfile
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from grpc_tools import protoc

REPO_ROOT = Path(__file__).resolve().parents[2]
"""The repository root: this file is ``<root>/watten_net/v1/regenerate.py``."""

GENERATED_SUFFIXES = ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py")
"""What protoc writes for each ``.proto``: messages, message stubs, service."""


class RegenerateError(RuntimeError):
    """protoc failed (the proto does not compile)."""


def proto_files(repo_root: Path = REPO_ROOT) -> list[Path]:
    """Every ``.proto`` under ``<repo_root>/proto``, as paths relative to that directory, sorted."""
    proto_dir = repo_root / "proto"
    return sorted(path.relative_to(proto_dir) for path in proto_dir.rglob("*.proto"))


def expected_outputs(repo_root: Path = REPO_ROOT) -> list[Path]:
    """The generated files (relative to the output root) that the protos under ``repo_root`` produce."""
    outputs: list[Path] = []
    for proto in proto_files(repo_root):
        stem = proto.with_suffix("")
        outputs.extend(stem.parent / (stem.name + suffix) for suffix in GENERATED_SUFFIXES)
    return outputs


def generate(out_dir: Path, repo_root: Path = REPO_ROOT) -> list[Path]:
    """Compile every proto under ``<repo_root>/proto`` into ``out_dir``; return the written files."""
    protos = proto_files(repo_root)
    if not protos:
        raise RegenerateError(f"no .proto files under {repo_root / 'proto'}")
    well_known = resources.files("grpc_tools") / "_proto"
    args = [
        "grpc_tools.protoc",
        f"-I{repo_root / 'proto'}",
        f"-I{well_known}",
        f"--python_out={out_dir}",
        f"--pyi_out={out_dir}",
        f"--grpc_python_out={out_dir}",
        *(str(repo_root / "proto" / proto) for proto in protos),
    ]
    out_dir.mkdir(parents=True, exist_ok=True)
    status = int(protoc.main(args))
    if status != 0:
        raise RegenerateError(f"protoc failed with exit status {status} (its messages are above)")
    return expected_outputs(repo_root)


def stale_files(repo_root: Path = REPO_ROOT) -> list[Path]:
    """Generated-looking files in the output packages that no proto produces any more (relative paths)."""
    expected = set(expected_outputs(repo_root))
    package_dirs = {proto.parent for proto in proto_files(repo_root)}
    stale: list[Path] = []
    for package in sorted(package_dirs):
        directory = repo_root / package
        if not directory.is_dir():
            continue
        for path in sorted(directory.iterdir()):
            relative = path.relative_to(repo_root)
            if path.name.endswith(GENERATED_SUFFIXES) and relative not in expected:
                stale.append(relative)
    return stale


def check(repo_root: Path = REPO_ROOT) -> list[Path]:
    """Regenerate into a temporary directory and return the committed files that differ (relative paths).

    A file differs when its content is not what protoc produces now, when it is missing, or when it looks
    generated but no proto produces it. An empty list means ``proto/`` and the committed code agree.
    """
    with tempfile.TemporaryDirectory(prefix="watten-regenerate-") as tmp:
        fresh_root = Path(tmp)
        differing = [
            relative
            for relative in generate(fresh_root, repo_root)
            if not (repo_root / relative).is_file()
            or not filecmp.cmp(fresh_root / relative, repo_root / relative, shallow=False)
        ]
    return sorted(differing + stale_files(repo_root))


def main(argv: Sequence[str] | None = None) -> int:
    """Command line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m watten_net.v1.regenerate",
        description="Regenerate watten_net/v1/*_pb2*.py[i] from proto/ with grpc_tools.protoc.",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="regenerate into a temporary directory and exit 1 listing the committed files that differ",
    )
    options = parser.parse_args(argv)
    try:
        if options.check:
            differing = check()
            if differing:
                print("generated code is out of date with proto/; run `python -m watten_net.v1.regenerate`:")
                for relative in differing:
                    print(f"  {relative.as_posix()}")
                return 1
            print("generated code matches proto/")
            return 0
        written = generate(REPO_ROOT)
        for relative in stale_files():
            (REPO_ROOT / relative).unlink()
            print(f"removed stale {relative.as_posix()}")
        for relative in written:
            print(f"wrote {relative.as_posix()}")
        return 0
    except RegenerateError as error:
        print(f"regenerate: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
