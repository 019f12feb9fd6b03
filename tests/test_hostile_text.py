"""Strings from a hostile host or record never reach a terminal raw (issue #19, item 4).

Each attack here once worked: `watten-verify` read "verified ✓" after a record's escape sequences erased its FAILED
line, and `watten-join` printed a host's refusal raw (a cleared screen, a fake green "deal verified", a new window
title). Both run as real processes here; what they write must hold no ESC, BEL or other control byte, and the
hostile text must still be there to see, escaped.
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import pytest

from host.errors import rich_status
from watten_net.deal.envelope import envelope_hash
from watten_net.engine import Rules
from watten_net.record import KIND_HOST, KIND_WITHHELD, Entry
from watten_net.v1 import watten_pb2 as pb
from watten_net.v1 import watten_pb2_grpc as pb_grpc

from netutil import ROOT, isolated_env
from tampering import encode, play_game

ERASE_AND_LIE = "\x1b[1A\x1b[2K\x1b[32mverified ✓\x1b[0m"
# Every byte a terminal may act on: C0 (ESC, BEL, CR, ...) but newline, DEL, and the UTF-8 of C1 and bidi controls.
RAW_CONTROL = re.compile(rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\x8e\x8f\xaa-\xae]|\xe2\x81[\xa6-\xa9]")


def hostile_record(tmp_path: Path) -> Path:
    """A host record whose second envelope is replaced by a "withheld" stub with a type name that erases the line
    above and prints a green "verified ✓": the stub's hash is the real envelope's, so the chain still links and
    the verifier gets as far as naming that stub's type in its FAILED line."""
    game = play_game("hostile", dataclasses.replace(Rules.preset("bavarian", 2), target=3), seed=1)
    entries = game.host()
    index = [i for i, e in enumerate(entries) if e.kind == KIND_HOST][1]
    stub = pb.Withheld(envelope_hash=envelope_hash(entries[index].data), type=ERASE_AND_LIE, visible_to=[0])
    entries[index] = Entry(KIND_WITHHELD, stub.SerializeToString())
    path = tmp_path / "watten-hostile\x1b]0;pwned\x07\u202e.wrec"
    path.write_bytes(encode(entries))
    return path


def run_verify(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "watten_net.verify", *args], cwd=ROOT, env=isolated_env(tmp_path),
                          capture_output=True, timeout=120, check=False)


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return hostile_record(tmp_path_factory.mktemp("records"))


@pytest.mark.network
def test_a_record_cannot_erase_the_verifiers_failed_line(record: Path, tmp_path: Path) -> None:
    done = run_verify(tmp_path, str(record))
    out = done.stdout.decode()
    assert done.returncode == 1
    assert not RAW_CONTROL.search(done.stdout), out
    assert not RAW_CONTROL.search(done.stderr)
    first, problem = out.splitlines()[0], out.splitlines()[-1]
    assert first.endswith(": FAILED") and "\\x1b]0;pwned\\x07<U+202E>.wrec" in first
    # The record's type name is there to read, escaped, in the sentence that says what is wrong.
    assert "(\\x1b[1A\\x1b[2K\\x1b[32mverified ✓\\x1b[0m): this envelope was withheld" in problem


@pytest.mark.network
def test_the_json_report_stays_valid_json_with_no_raw_control(record: Path, tmp_path: Path) -> None:
    done = run_verify(tmp_path, "--json", str(record))
    assert done.returncode == 1
    assert not RAW_CONTROL.search(done.stdout)
    report = json.loads(done.stdout)
    assert report["ok"] is False and report["path"] == str(record)  # exact, as JSON escapes instead of hiding
    assert report["errors"][0]["type"] == ERASE_AND_LIE and report["errors"][0]["reason"] == "withheld"


# ---------------------------------------------------------------------------------------------- watten-join

CLEAR_SCREEN, FAKE_OK, TITLE = "\x1b[2J\x1b[H", "\x1b[32;1mdeal verified ✓\x1b[0m", "\x1b]0;pwned\x07"


class HostileHost(pb_grpc.WattenTableServicer):
    """A host that refuses with escape sequences in its words: the refusal's status message, its ErrorDetail reason
    and message, and (when it lets GetTable through) the table id the client repeats."""

    def __init__(self, refuse_at: str) -> None:
        self.refuse_at = refuse_at

    def _refuse(self, context: grpc.ServicerContext) -> None:
        message = f"{CLEAR_SCREEN}{FAKE_OK}{TITLE} table full\u202e"
        context.abort_with_status(rich_status(grpc.StatusCode.FAILED_PRECONDITION, f"full{TITLE}", message))

    def GetTable(self, request: Any, context: grpc.ServicerContext) -> Any:
        if self.refuse_at == "GetTable":
            self._refuse(context)
        return pb.TableInfo(protocol_version=1, table_id=f"t{TITLE}", player_count=2, host_public_key=bytes(32),
                            seats=[pb.SeatInfo(seat=0), pb.SeatInfo(seat=1, occupied=True, name=FAKE_OK)])

    def Join(self, request: Any, context: grpc.ServicerContext) -> Any:
        self._refuse(context)


@pytest.fixture(params=["GetTable", "Join"])
def hostile_port(request: pytest.FixtureRequest) -> Iterator[int]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    pb_grpc.add_WattenTableServicer_to_server(HostileHost(request.param), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield port
    finally:
        server.stop(grace=None)


@pytest.mark.network
@pytest.mark.parametrize("bot", [False, True], ids=["person", "bot"])
def test_watten_join_shows_a_hostile_refusal_escaped(hostile_port: int, bot: bool, tmp_path: Path) -> None:
    args = ["--insecure", "--name", "Anna", "--seat", "0", f"127.0.0.1:{hostile_port}"]
    if bot:
        args = ["--bot", "random", "--table", "t1", *args]
    done = subprocess.run([sys.executable, "-m", "client.main", *args], cwd=ROOT, env=isolated_env(tmp_path),
                          stdin=subprocess.DEVNULL, capture_output=True, timeout=120, check=False)
    said = (done.stdout + done.stderr).decode()
    assert done.returncode == 4, said
    assert not RAW_CONTROL.search(done.stdout + done.stderr), said
    assert "the host refused: \\x1b[2J\\x1b[H\\x1b[32;1mdeal verified ✓\\x1b[0m\\x1b]0;pwned\\x07 table full<U+202E>" \
        in said
    assert "(full\\x1b]0;pwned\\x07)" in said
