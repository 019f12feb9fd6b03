"""Where friends can reach the host (host/addresses.py): every up, non-loopback address for a wildcard `--bind`, the
one bound address otherwise, a plain "this machine only" for loopback; the banner's and the lobby's join commands
(with `--insecure` when the host serves plaintext); what the announcement says about the live tables."""

from __future__ import annotations

from dataclasses import dataclass, field
from ipaddress import ip_address
from typing import Any

import ifaddr  # noqa: F401  (imported here: at its import it runs `ldconfig -p` to find libc, a process)

from host import addresses
from host.addresses import banner_lines, join_target, listening_on, lobby_lines
from host.announce import free_seats, host_ad, host_label

LAN = [ip_address("192.168.1.20"), ip_address("10.8.0.3"), ip_address("fd00::7")]


def test_a_wildcard_bind_means_every_address_of_the_machine_and_one_address_means_that_one() -> None:
    for bind in ("0.0.0.0", "::", "[::]"):
        reach = listening_on(bind, lambda: LAN)
        assert reach.addresses == tuple(LAN) and not reach.loopback_only
    reach = listening_on("10.8.0.3", lambda: LAN)
    assert reach.addresses == (ip_address("10.8.0.3"),) and not reach.loopback_only
    for bind in ("127.0.0.1", "::1", "[::1]", "localhost"):
        reach = listening_on(bind, lambda: LAN)
        assert reach.loopback_only and reach.addresses == (), bind


def test_the_machine_addresses_are_up_and_neither_loopback_nor_link_local() -> None:
    found = addresses.machine_addresses()
    assert all(not a.is_loopback and not (a.version == 6 and a.is_link_local) for a in found)
    assert [a.version for a in found] == sorted(a.version for a in found)  # IPv4 first
    assert len(set(found)) == len(found)


def test_the_banner_names_every_address_and_the_no_address_command_when_announced() -> None:
    reach = listening_on("0.0.0.0", lambda: LAN)
    assert banner_lines(reach, 47150, insecure=False, announced=True) == [
        "join with: watten-join   (it finds this table on the LAN)",
        "or: watten-join 192.168.1.20:47150",
        "or: watten-join 10.8.0.3:47150",
        "or: watten-join [fd00::7]:47150",
    ]
    assert banner_lines(reach, 5000, insecure=True, announced=False) == [
        "join with: watten-join 192.168.1.20:5000 --insecure",
        "join with: watten-join 10.8.0.3:5000 --insecure",
        "join with: watten-join [fd00::7]:5000 --insecure",
    ]


def test_loopback_only_is_said_plainly() -> None:
    reach = listening_on("127.0.0.1", lambda: LAN)
    [line] = banner_lines(reach, 47150, insecure=True, announced=False)
    assert line == ("listening on this machine only (127.0.0.1): join here with watten-join 127.0.0.1:47150 "
                    "--insecure; --bind 0.0.0.0 lets the LAN in")
    assert lobby_lines(reach, 47150, insecure=False, announced=False)[0] == (
        "  Only this machine can join: watten-join 127.0.0.1:47150")


def test_the_lobby_shows_three_addresses_within_80_columns_and_counts_the_rest() -> None:
    many = [ip_address(f"192.168.{i}.20") for i in range(5)] + [ip_address("fd12:3456:789a:bcde:f012:3456:789a:bcde")]
    lines = lobby_lines(listening_on("0.0.0.0", lambda: many), 47150, insecure=True, announced=True)
    assert lines[0].startswith("  Join with: watten-join --insecure") and "announced on the LAN" in lines[0]
    assert lines[1] == "  or:        watten-join 192.168.0.20:47150 --insecure"
    assert lines[-1] == "             … and 3 more (see the start banner)"
    assert len(lines) == 5 and all(len(line) <= 80 for line in lines)
    assert lobby_lines(listening_on("0.0.0.0", lambda: []), 1, False, False) == [
        "  No network address is up: friends cannot reach this machine yet"]
    assert join_target("fd00::7", 1) == "[fd00::7]:1"


def test_the_lobby_speaks_the_persons_language() -> None:
    """host/main.py passes the client's words (--lang de): no English line is left, and the commands still start in
    one column within 80."""
    from client.i18n import Words
    from host.addresses import LOBBY_WORDS

    german = Words("de")
    words = {key: german[key] for key in LOBBY_WORDS}
    assert lobby_lines(listening_on("127.0.0.1", lambda: LAN), 47150, insecure=True, announced=False, words=words) == [
        "  Nur dieser Rechner kann beitreten: watten-join 127.0.0.1:47150 --insecure",
        "  (lauscht nur auf Loopback; --bind 0.0.0.0 lässt das LAN herein)"]
    many = [ip_address(f"192.168.{i}.20") for i in range(5)]
    lines = lobby_lines(listening_on("0.0.0.0", lambda: many), 47150, True, True, words)
    assert lines[0].startswith("  Beitreten: watten-join --insecure") and "im LAN angekündigt" in lines[0]
    assert lines[1] == "  oder:      watten-join 192.168.0.20:47150 --insecure"
    assert lines[-1] == "             … und 2 weitere (siehe die Startmeldung)"
    assert all(len(line) <= 80 for line in lines)
    for key in ("lobby_keys", "lobby_plaintext", "lobby_tls"):  # (the lines host/main.py adds below them)
        assert german[key] != Words("en")[key], key


@dataclass
class FakeSettings:
    deal: str = "verified"


@dataclass
class FakeTable:
    table_id: str
    seats: list[Any]
    game: Any = None
    settings: FakeSettings = field(default_factory=FakeSettings)


def test_the_announcement_counts_the_free_seats_of_the_live_tables() -> None:
    lobby = FakeTable("aaaa", [object(), None, object(), None], settings=FakeSettings("trustless"))
    playing = FakeTable("bbbb", [object()] * 4, game=object())
    assert free_seats(lobby) == 2 and free_seats(playing) == 0
    announced = host_ad([lobby, playing], "bavarian", 4, 2, "ab" * 32)
    assert [(t.table_id, t.free, t.deal) for t in announced.tables] == [("aaaa", 2, "trustless"), ("bbbb", 0,
                                                                                                   "verified")]
    assert announced.tls and announced.fingerprint_prefix == "ab" * 8 and announced.table_count == 2
    assert not host_ad([lobby], "bavarian", 4, 2, "").tls


def test_the_machine_name_becomes_one_dns_label() -> None:
    assert host_label("Stube.fritz.box") == "Stube"
    assert host_label("\x1b[2J kitchen pc") == "2J-kitchen-pc"
    assert host_label("---") == "watten-host" and len(host_label("x" * 300)) == 40
