"""What a host announces on the LAN (mDNS/DNS-SD, `_watten._tcp`) and how a client reads it back.

The host (host/announce.py) publishes one service per process; its TXT record says what a friend needs to pick a
table: the protocol version, the rules preset, the player count, whether it serves TLS and the first hex digits of
its certificate fingerprint, and per table its id, free seats and deal mode. The client (client/discover.py)
decodes it. Both sides use this module so that they agree on the keys (the client never imports the host).

An mDNS answer is hostile input: anyone on the LAN can send one. So `decode` reads only known keys, bounds every
length and count, accepts only values of the expected shape (ids and presets from a small alphabet, numbers in
range) and refuses the whole announcement otherwise (`BadAnnouncement`); nothing decoded is trusted beyond helping
a person pick. The fingerprint prefix in particular never pins a certificate: the client still compares the full
fingerprint on first use (client/pinning.py).

    >>> ad = HostAd(protocol=2, rules="bavarian", players=4, tls=True, fingerprint_prefix="3f9a0c12deadbeef",
    ...             tables=(TableAd("a1b2c3d4e5f60718", free=3, deal="verified"),), table_count=1)
    >>> decode({k.encode(): v.encode() for k, v in encode(ad).items()}) == ad
    True
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

SERVICE_TYPE = "_watten._tcp.local."
TXT_VERSION = "1"  # RFC 6763 §6.7: the TXT record's own format version, "txtvers"
MAX_LISTED_TABLES = 16  # a host with more tables lists the first ones (the TXT stays within one packet)
FINGERPRINT_PREFIX = 16  # hex digits of the fingerprint announced: enough to tell hosts apart, never to pin
MAX_ENTRIES = 2 * MAX_LISTED_TABLES  # more TXT entries than a host of ours sends: not ours, refused
MAX_VALUE = 64  # bytes of any one value we read
DEALS = ("verified", "trustless")
PLAYER_COUNTS = (2, 3, 4, 6)
MAX_TABLES = 4096  # the table count a host may claim (the host itself allows far fewer)

_WORD = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")  # a rules preset
_TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")
_HEX = re.compile(r"[0-9a-f]*")
_NUMBER = re.compile(r"[0-9]{1,6}")


class BadAnnouncement(ValueError):
    """An mDNS answer that is not a well-formed watten announcement (it is ignored, and counted)."""


@dataclass(frozen=True)
class TableAd:
    """One table of an announcing host: its id, how many seats are free, and its deal mode."""

    table_id: str
    free: int
    deal: str


@dataclass(frozen=True)
class HostAd:
    """What one host announces: the same rules, players and certificate for all of its tables."""

    protocol: int
    rules: str
    players: int
    tls: bool
    fingerprint_prefix: str  # "" when plaintext
    tables: tuple[TableAd, ...]  # at most MAX_LISTED_TABLES
    table_count: int  # how many tables the host runs (it may list fewer)


def encode(ad: HostAd) -> dict[str, str]:
    """The TXT record of `ad` as key -> value (zeroconf turns it into the record's strings)."""
    txt = {
        "txtvers": TXT_VERSION,
        "proto": str(ad.protocol),
        "rules": ad.rules,
        "players": str(ad.players),
        "tls": "1" if ad.tls else "0",
        "tables": str(ad.table_count),
    }
    if ad.tls:
        txt["fp"] = ad.fingerprint_prefix[:FINGERPRINT_PREFIX]
    for index, table in enumerate(ad.tables[:MAX_LISTED_TABLES]):
        txt[f"t{index}"] = f"{table.table_id},{table.free},{table.deal}"
    return txt


def _text(properties: Mapping[bytes, bytes | None], key: str, required: bool = True) -> str | None:
    raw = properties.get(key.encode())
    if raw is None:
        if required:
            raise BadAnnouncement(f"no {key}")
        return None
    if len(raw) > MAX_VALUE:
        raise BadAnnouncement(f"{key} is {len(raw)} bytes long")
    try:
        return raw.decode("ascii")
    except UnicodeDecodeError:
        raise BadAnnouncement(f"{key} is not ASCII") from None


def _number(text: str | None, what: str, low: int, high: int) -> int:
    if text is None or not _NUMBER.fullmatch(text) or not low <= int(text) <= high:
        raise BadAnnouncement(f"{what} is not a number from {low} to {high}")
    return int(text)


def _table(text: str | None, players: int) -> TableAd:
    parts = (text or "").split(",")
    if len(parts) != 3 or not _TABLE_ID.fullmatch(parts[0]) or parts[2] not in DEALS:
        raise BadAnnouncement("a table entry is not ID,FREE,DEAL")
    return TableAd(parts[0], _number(parts[1], "free seats", 0, players), parts[2])


def decode(properties: Mapping[bytes, bytes | None]) -> HostAd:
    """A host's announcement from its TXT record (zeroconf's `ServiceInfo.properties`); `BadAnnouncement` if it is
    not one of ours or not well formed. Unknown keys are allowed (a later version may add some), within bounds."""
    if len(properties) > MAX_ENTRIES:
        raise BadAnnouncement(f"{len(properties)} TXT entries")
    if _text(properties, "txtvers") != TXT_VERSION:
        raise BadAnnouncement("another TXT version")
    rules = _text(properties, "rules") or ""
    if not _WORD.fullmatch(rules):
        raise BadAnnouncement("the rules preset is not a plain word")
    players = _number(_text(properties, "players"), "players", 2, 6)
    if players not in PLAYER_COUNTS:
        raise BadAnnouncement(f"{players} players")
    tls = _text(properties, "tls")
    if tls not in ("0", "1"):
        raise BadAnnouncement("tls is neither 0 nor 1")
    prefix = _text(properties, "fp", required=tls == "1") or ""
    if not _HEX.fullmatch(prefix) or len(prefix) > FINGERPRINT_PREFIX or (tls == "1" and len(prefix) < 8):
        raise BadAnnouncement("the fingerprint prefix is not 8 to 16 lowercase hex digits")
    tables = []
    for index in range(MAX_LISTED_TABLES):
        entry = _text(properties, f"t{index}", required=False)
        if entry is None:
            break
        tables.append(_table(entry, players))
    if not tables:
        raise BadAnnouncement("no table")
    count = _number(_text(properties, "tables"), "tables", len(tables), MAX_TABLES)
    return HostAd(protocol=_number(_text(properties, "proto"), "proto", 1, 999), rules=rules, players=players,
                  tls=tls == "1", fingerprint_prefix=prefix if tls == "1" else "", tables=tuple(tables),
                  table_count=count)
