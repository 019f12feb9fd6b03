"""The header must carry the rules of the table a person joined: a host that shows one game in every TableInfo and
has the seats sign another (here a higher target; as well Bessere as a redeal, which lets the host's side choose
between decks it knows, or another deal mode) gets no signature. The host is the real one, changed at run time
(tests/cheating_host.py `other-rules`), against a real `watten-join`."""

from __future__ import annotations

from pathlib import Path

import pytest

from netutil import a_seat_refuses_the_header

pytestmark = pytest.mark.network


def test_a_header_with_other_rules_than_the_table_shows_is_never_signed(tmp_path: Path) -> None:
    said = a_seat_refuses_the_header(tmp_path, "other-rules", "--set", "target=11")
    assert "not those of the table this seat joined" in said, said
