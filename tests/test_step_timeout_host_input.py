"""Attacks on the host's side of the signed step timeout (GameHeader.step_timeout_ms): what the host is given to
write into its headers, by its `--step-timeout` option or by the journal it resumes from, is either a value every
header can hold or refused at once with a clear error, before any seat has joined; never a ValueError from HostGame
at the start of a match, in the middle of a seat's request.

In process, no network: `host.main.main` with the server itself replaced (what it would have served is not the
point), and `host.resume.rebuild_table` on a journal of a table between two matches, as a host killed then leaves it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from host.resume import lobby_meta, rebuild_table
from host.settings import header_step_timeout_ms
from host.table import Table, TableSettings
from watten_net.engine import Rules

from host_bots import write_journal


def _main_runs(monkeypatch: Any, seconds: str) -> tuple[int, bool]:
    """What `watten-host --step-timeout SECONDS` exits with, and whether it got as far as serving."""
    import host.main as host_main

    served: list[bool] = []

    async def serve(args: Any) -> int:
        served.append(True)
        return 0

    monkeypatch.setattr(host_main, "run", serve)
    code = host_main.main(["--headless", "--insecure", "--players", "2", "--bots", "1", f"--step-timeout={seconds}"])
    return code, bool(served)


@pytest.mark.parametrize("seconds", ["4294967.2955", "4294967.296", "1e300", "inf"])
def test_the_host_refuses_a_step_timeout_past_the_header_field_once_rounded(
        monkeypatch: Any, capsys: Any, seconds: str) -> None:
    # 4294967.2955 s is below 2^32 ms unrounded (4294967295.5) but the header would say round(...) = 2^32, which no
    # uint32 holds: HostGame refused it only when the first match started (a ValueError inside a seat's SetReady).
    assert header_step_timeout_ms(4294967.2955) == 2**32
    assert _main_runs(monkeypatch, seconds) == (2, False)
    assert "--step-timeout:" in capsys.readouterr().err


def test_the_largest_step_timeout_a_header_holds_is_hosted(monkeypatch: Any) -> None:
    assert header_step_timeout_ms(4294967.295) == 2**32 - 1
    assert _main_runs(monkeypatch, "4294967.295") == (0, True)


async def _journal_between_matches(path: Path, step_timeout: Any) -> Ed25519PrivateKey:
    """The journal a host leaves between two matches, its metadata's step timeout replaced by `step_timeout`."""
    host_key = Ed25519PrivateKey.generate()
    table = Table(TableSettings(Rules.preset("bavarian", 2), host_key=host_key, step_timeout=30.0))
    await table.add_bots(2, "random")
    write_journal(path, {**lobby_meta(table), "step_timeout": step_timeout}, [])
    return host_key


@pytest.mark.parametrize("journaled", [1e300, float("nan"), -1.0, "30", None, True])
def test_a_journal_whose_step_timeout_no_header_holds_is_not_resumed(tmp_path: Path, journaled: Any) -> None:
    # Before: the table was rebuilt (between matches nothing replays a header) and its next match's HostGame raised
    # a ValueError, or float() a TypeError, when the seats were ready. Now the journal is refused as it is read, the
    # way every other journal that cannot be replayed is (host/main.py moves it aside, or stops when it was named).
    path = tmp_path / "between.wjournal"
    host_key = asyncio.run(_journal_between_matches(path, journaled))
    with pytest.raises(ValueError, match=r"the journal's step timeout .* is no number of seconds a header can hold"):
        rebuild_table(path, host_key, bot_delay=0.0, grace=30.0, step_timeout=30.0)


@pytest.mark.parametrize("journaled", [0, 4.0, 30.0, 4294967.295])
def test_a_journal_whose_step_timeout_a_header_holds_is_resumed_with_it(tmp_path: Path, journaled: float) -> None:
    # (4 s is below the seats' floor: theirs to refuse, and tests' seats lower it; the host keeps what it journaled)
    path = tmp_path / "between.wjournal"
    host_key = asyncio.run(_journal_between_matches(path, journaled))
    table, posted = rebuild_table(path, host_key, bot_delay=0.0, grace=30.0, step_timeout=12.0)
    assert posted == [] and table.game is None
    assert table.settings.step_timeout == journaled and table.info().step_timeout == journaled
