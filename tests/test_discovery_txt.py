"""The LAN announcement's TXT record (watten_net/discovery.py) and what `watten-join` makes of an answer
(client/discover.py): an mDNS answer is hostile input, so a malformed one is refused whole, every length is bounded,
and what is listed reaches the terminal through `visible`. `--list --json` prints one JSON object per table; a bot
without an address picks by the announced fingerprint prefix but never trusts it."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from client import discover
from client import main as join_main
from watten_net.discovery import (
    MAX_LISTED_TABLES,
    BadAnnouncement,
    HostAd,
    TableAd,
    decode,
    encode,
)
from watten_net.printable import shown_as_is

FP = "3f9a0c12deadbeef" + "0" * 48


def ad(**changes: Any) -> HostAd:
    base: dict[str, Any] = dict(protocol=2, rules="bavarian", players=4, tls=True, fingerprint_prefix=FP[:16],
                                tables=(TableAd("a1b2c3d4e5f60718", 1, "verified"),), table_count=1)
    base.update(changes)
    return HostAd(**base)


def txt(host_ad: HostAd, **raw: bytes | None) -> dict[bytes, bytes | None]:
    """The TXT record as zeroconf hands it over (bytes -> bytes), with some entries replaced by hostile ones."""
    properties: dict[bytes, bytes | None] = {k.encode(): v.encode() for k, v in encode(host_ad).items()}
    for key, value in raw.items():
        properties[key.encode()] = value
    return properties


def test_an_announcement_round_trips_with_several_tables_and_plaintext() -> None:
    tables = tuple(TableAd(f"{i:016x}", i % 3, ("verified", "trustless")[i % 2]) for i in range(3))
    for host_ad in (ad(), ad(tables=tables, table_count=7, players=2), ad(tls=False, fingerprint_prefix="")):
        assert decode(txt(host_ad)) == host_ad


def test_a_host_with_many_tables_lists_the_first_sixteen_and_says_how_many() -> None:
    tables = tuple(TableAd(f"{i:016x}", 4, "verified") for i in range(40))
    announced = encode(ad(tables=tables, table_count=40))
    assert sum(key.startswith("t") and key[1:].isdigit() for key in announced) == MAX_LISTED_TABLES
    assert sum(len(k) + len(v) + 2 for k, v in announced.items()) < 1300  # one mDNS packet
    decoded = decode({k.encode(): v.encode() for k, v in announced.items()})
    assert len(decoded.tables) == MAX_LISTED_TABLES and decoded.table_count == 40


HOSTILE = {
    "a rules preset with an escape sequence": {"rules": b"bav\x1b[2Jarian"},
    "a rules preset with a bidi override": {"rules": "bav\u202earian".encode()},
    "a value over 64 bytes": {"rules": b"b" * 65},
    "a value that is not ASCII": {"rules": b"\xff\xfe"},
    "a player count out of range": {"players": b"5"},
    "a huge number": {"players": b"9" * 60},
    "a negative number": {"players": b"-4"},
    "more free seats than players": {"t0": b"a1b2c3d4e5f60718,5,verified"},
    "an unknown deal mode": {"t0": b"a1b2c3d4e5f60718,1,trust-me"},
    "a table id with a control character": {"t0": b"a1b2\x07,1,verified"},
    "a table entry with extra fields": {"t0": b"a1b2c3d4e5f60718,1,verified,x"},
    "no table": {"t0": None},
    "TLS without a fingerprint prefix": {"fp": None},
    "a fingerprint prefix that is not hex": {"fp": b"3f9a0c12deadbeeg"},
    "a fingerprint prefix too short to tell hosts apart": {"fp": b"3f9a"},
    "a fingerprint prefix longer than announced": {"fp": FP[:20].encode()},
    "another TXT version": {"txtvers": b"2"},
    "no TXT version": {"txtvers": None},
    "a tls flag that is neither 0 nor 1": {"tls": b"yes"},
    "fewer tables claimed than listed": {"tables": b"0"},
    "a protocol version that is not a number": {"proto": b"2.0"},
}


@pytest.mark.parametrize("changes", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_malformed_announcement_is_refused_whole(changes: dict[str, bytes | None]) -> None:
    properties = txt(ad())
    for key, value in changes.items():
        if value is None:
            properties.pop(key.encode())
        else:
            properties[key.encode()] = value
    with pytest.raises(BadAnnouncement):
        decode(properties)


def test_a_flood_of_entries_is_refused_and_unknown_keys_within_bounds_are_allowed() -> None:
    flood = txt(ad()) | {f"x{i}".encode(): b"1" for i in range(40)}
    with pytest.raises(BadAnnouncement, match="TXT entries"):
        decode(flood)
    assert decode(txt(ad()) | {b"future": b"something"}) == ad()


@given(st.dictionaries(st.binary(max_size=12), st.one_of(st.none(), st.binary(max_size=80)), max_size=40))
def test_any_bytes_decode_to_an_announcement_or_a_refusal_never_a_crash(properties: dict[bytes, bytes | None]) -> None:
    try:
        decoded = decode(properties | {b"txtvers": b"1"})
    except BadAnnouncement:
        return
    assert decoded.rules.isascii() and all(t.table_id.isascii() for t in decoded.tables)


@dataclass
class FakeInfo:
    """What zeroconf's resolved ServiceInfo offers client/discover.py (the attributes it reads)."""

    properties: dict[bytes, bytes | None]
    port: int = 47150
    server: str | None = "gasthaus.local."
    name: str = "gasthaus-47150._watten._tcp.local."
    addresses: list[str] = field(default_factory=lambda: ["fe80::1%2", "fd00::7", "192.168.1.20", "127.0.0.1"])

    def parsed_scoped_addresses(self) -> list[str]:
        return self.addresses


def test_a_resolved_service_lists_one_line_per_table_ipv4_first_without_loopback() -> None:
    two = (TableAd("aaaa", 3, "verified"), TableAd("bbbb", 0, "trustless"))
    found = discover.tables_of(FakeInfo(txt(ad(tables=two, table_count=2))))
    assert [t.table.table_id for t in found] == ["aaaa", "bbbb"]
    assert found[0].addresses == ("192.168.1.20", "fd00::7", "fe80::1%2") and found[0].target == "192.168.1.20:47150"
    assert found[0].line(1) == (" 1  gasthaus: bavarian, 4 players, 3 seats free, verified deal, TLS 3f9a0c12…, "
                                "table aaaa at 192.168.1.20, fd00::7, fe80::1%2 port 47150")
    assert "full, trustless deal" in found[1].line(2)
    v6_only = discover.tables_of(FakeInfo(txt(ad()), addresses=["fd00::7"]))
    assert v6_only[0].target == "[fd00::7]:47150"


def test_a_hostile_host_name_is_bounded_and_shown_escaped() -> None:
    name = "\x1b]0;pwned\x07\u202eevil" + "x" * 500 + ".local."
    [found] = discover.tables_of(FakeInfo(txt(ad()), server=name))
    assert len(found.host) <= discover.MAX_HOST_NAME
    line = found.line(1)
    assert all(shown_as_is(ch) for ch in line) and "\\x1b]0;pwned\\x07<U+202E>evil" in line


@pytest.mark.parametrize("info", [
    FakeInfo(txt(ad()), port=0),
    FakeInfo(txt(ad()), addresses=["127.0.0.1", "::1", "not an address", "224.0.0.251"]),
    FakeInfo({b"txtvers": b"1"}),
], ids=["port 0", "no usable address", "not ours"])
def test_a_service_without_a_usable_port_address_or_record_is_refused(info: FakeInfo) -> None:
    with pytest.raises(BadAnnouncement):
        discover.tables_of(info)


def found_on_the_lan(monkeypatch: pytest.MonkeyPatch, *infos: FakeInfo, ignored: int = 0) -> None:
    tables = [t for info in infos for t in discover.tables_of(info)]

    async def fake_discover(seconds: float = discover.LOOK_FOR) -> tuple[list[discover.FoundTable], int]:
        return tables, ignored

    monkeypatch.setattr(discover, "discover", fake_discover)


def test_list_json_prints_one_object_per_table(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    two = (TableAd("aaaa", 3, "verified"), TableAd("bbbb", 0, "trustless"))
    found_on_the_lan(monkeypatch, FakeInfo(txt(ad(tables=two, table_count=2)), server="Stube\x1b[31m.local."))
    assert join_main.main(["--list", "--json"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out  # (json escapes it)
    rows = [json.loads(line) for line in out.splitlines()]
    assert [(r["table"], r["free"], r["deal"]) for r in rows] == [("aaaa", 3, "verified"), ("bbbb", 0, "trustless")]
    assert rows[0] | {"table": "", "free": 0, "deal": ""} == rows[1] | {"table": "", "free": 0, "deal": ""}
    assert rows[0]["host"] == "Stube\x1b[31m" and rows[0]["target"] == "192.168.1.20:47150"
    assert rows[0]["tls"] is True and rows[0]["fingerprint_prefix"] == FP[:16] and rows[0]["tables"] == 2


def test_list_says_plainly_when_nothing_is_found(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    found_on_the_lan(monkeypatch, ignored=2)
    assert join_main.main(["--list"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "no Watten table found on the LAN" in captured.err and "2 announcement(s) could not be read" in captured.err


def chosen(monkeypatch: pytest.MonkeyPatch, argv: list[str], *infos: FakeInfo) -> Any:
    found_on_the_lan(monkeypatch, *infos)
    args = join_main.parser().parse_args(argv)
    join_main.choose_host(args)
    return args


def test_a_bot_without_an_address_takes_the_host_whose_prefix_fits_its_pin(monkeypatch: pytest.MonkeyPatch) -> None:
    other = FakeInfo(txt(ad(fingerprint_prefix="0123456789abcdef")), server="other.local.", addresses=["10.0.0.9"])
    ours = FakeInfo(txt(ad()))
    args = chosen(monkeypatch, ["--bot", "random", "--fingerprint", FP], other, ours)
    assert (args.address, args.table) == ("192.168.1.20:47150", "a1b2c3d4e5f60718")
    with pytest.raises(ValueError, match="several hosts on the LAN have a free seat"):
        chosen(monkeypatch, ["--bot", "random"], other, ours)


def test_a_full_table_is_not_offered_and_plaintext_is_never_chosen_without_insecure(
        monkeypatch: pytest.MonkeyPatch) -> None:
    full = FakeInfo(txt(ad(tables=(TableAd("aaaa", 0, "verified"),))))
    with pytest.raises(ValueError, match="every table found is full"):
        chosen(monkeypatch, ["--bot", "random"], full)
    plaintext = FakeInfo(txt(ad(tls=False, fingerprint_prefix="")))
    with pytest.raises(ValueError, match="serves plaintext: join it with --insecure"):
        chosen(monkeypatch, ["--bot", "random"], plaintext)
    assert chosen(monkeypatch, ["--bot", "random", "--insecure"], plaintext).address == "192.168.1.20:47150"


def test_a_person_picks_by_number(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    two = (TableAd("aaaa", 3, "verified"), TableAd("bbbb", 2, "trustless"))
    answers = iter(["7", "two", "2"])
    monkeypatch.setattr("builtins.input", lambda prompt: next(answers))
    args = chosen(monkeypatch, [], FakeInfo(txt(ad(tables=two, table_count=2))))
    assert args.table == "bbbb" and args.address == "192.168.1.20:47150"
    out = capsys.readouterr().out
    assert "Watten tables on the LAN:" in out and out.count("Type a number from 1 to 2.") == 2
