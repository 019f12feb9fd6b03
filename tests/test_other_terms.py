"""The header must carry the rules of the table a person joined: a host that shows one game in every TableInfo and
has the seats sign another (here a higher target; as well Bessere as a redeal, which lets the host's side choose
between decks it knows, or another deal mode) gets no signature. The host is the real one, changed at run time
(tests/cheating_host.py `other-rules`), against a real `watten-join`."""

from __future__ import annotations

from pathlib import Path

import pytest

from netutil import isolated_env, start

pytestmark = pytest.mark.network


def test_a_header_with_other_rules_than_the_table_shows_is_never_signed(tmp_path: Path) -> None:
    env = isolated_env(tmp_path)
    env["WATTEN_CHEAT"] = "other-rules"
    host = start("tests.cheating_host", ["--port", "0", "--bind", "127.0.0.1", "--headless", "--insecure",
                                         "--players", "2", "--bots", "1", "--set", "target=11"], env)
    port = int(host.wait_for_line(r"on port (\d+)").group(1))
    seat = start("client.main", ["--bot", "random", "--insecure", f"127.0.0.1:{port}"], isolated_env(tmp_path))
    try:
        assert seat.wait(120) == 5, seat.output()  # (the host broke the protocol: watten-join's exit 5)
    finally:
        host.stop()
        seat.stop()
    assert "not those of the table this seat joined" in seat.output(), seat.output()
