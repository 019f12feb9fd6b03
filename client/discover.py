"""Tables on the LAN without an address: `watten-join` with no HOST looks for `_watten._tcp` announcements (mDNS/DNS-SD,
python-zeroconf) for about two seconds and lists what it found, one line per table, to pick by number;
`watten-join --list [--json]` prints that list and exits.

Every answer is hostile input (anyone on the LAN can send one): the TXT record is decoded by
`watten_net.discovery.decode`, which refuses what is not well formed; the host name is cut to a bound and shown
through `visible`; at most `MAX_SERVICES` services and `MAX_ADDRESSES` addresses each are looked at. An answer
never decides trust: it gives an address to connect to, and the certificate is still compared on first use (or
against `--fingerprint`); the fingerprint prefix it carries only helps pick, and a plaintext announcement never
turns a TLS join into a plaintext one (that takes `--insecure`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass
from ipaddress import IPv6Address, ip_address
from typing import Any

from watten_net.discovery import SERVICE_TYPE, BadAnnouncement, HostAd, TableAd, decode
from watten_net.printable import visible

LOOK_FOR = 2.0  # seconds: long enough for every host on a LAN to answer (mDNS answers within about one second)
MAX_SERVICES = 64  # a flood of announcements is cut here
MAX_ADDRESSES = 8
MAX_HOST_NAME = 64


@dataclass(frozen=True)
class FoundTable:
    """One table of one announcing host, as `watten-join` lists it."""

    host: str  # the host's name as announced, cut to MAX_HOST_NAME (show it with `visible`)
    addresses: tuple[str, ...]  # IPv4 first
    port: int
    ad: HostAd
    table: TableAd

    @property
    def target(self) -> str:
        """`ADDRESS:PORT` for `watten-join` (an IPv6 address in brackets)."""
        address = self.addresses[0]
        return f"[{address}]:{self.port}" if ":" in address else f"{address}:{self.port}"

    def matches_pin(self, fingerprint: str) -> bool:
        """Whether the announced prefix fits a fingerprint given with --fingerprint (a hint: the pin decides)."""
        return self.ad.tls and fingerprint.startswith(self.ad.fingerprint_prefix)

    def summary(self, number: int) -> str:
        """Who and what: "1  gasthaus: bavarian, 4 players, 1 seat free, verified deal, TLS 3f9a0c12…"; every part
        that came from the network is shown through `visible`."""
        seats = f"{self.table.free} seat{'s' if self.table.free != 1 else ''} free" if self.table.free else "full"
        security = f"TLS {self.ad.fingerprint_prefix[:8]}…" if self.ad.tls else "plaintext"
        return visible(f"{number:>2}  {self.host}: {self.ad.rules}, {self.ad.players} players, {seats}, "
                       f"{self.table.deal} deal, {security}")

    def where(self) -> str:
        """Where: "table ID at 192.168.1.20, fd00::7 port 47150" (the table's id when the host has several)."""
        table = f"table {self.table.table_id} " if self.ad.table_count > 1 else ""
        return visible(f"{table}at {', '.join(self.addresses)} port {self.port}")

    def line(self, number: int) -> str:
        """The table on one line (`--list`)."""
        return f"{self.summary(number)}, {self.where()}"

    def as_dict(self) -> dict[str, Any]:
        return {"host": self.host, "addresses": list(self.addresses), "port": self.port, "target": self.target,
                "table": self.table.table_id, "rules": self.ad.rules, "players": self.ad.players,
                "free": self.table.free, "deal": self.table.deal, "tls": self.ad.tls,
                "fingerprint_prefix": self.ad.fingerprint_prefix, "protocol": self.ad.protocol,
                "tables": self.ad.table_count}


def host_name(server: str | None, instance: str) -> str:
    """The host's name from its SRV target ("myhost.local."), else from the instance name; bounded."""
    name = (server or instance).removesuffix(".").removesuffix(".local")
    return name.removesuffix("." + SERVICE_TYPE.removesuffix("."))[:MAX_HOST_NAME] or "?"


def usable_addresses(texts: list[str]) -> tuple[str, ...]:
    """The addresses worth connecting to, IPv4 first, IPv6 link-local last (it needs its `%scope`): no loopback,
    nothing that does not parse, at most MAX_ADDRESSES."""
    found: list[tuple[int, str]] = []
    for text in texts[: 4 * MAX_ADDRESSES]:
        try:
            address = ip_address(text.split("%")[0])
        except ValueError:
            continue
        if address.is_loopback or address.is_unspecified or address.is_multicast:
            continue
        rank = 0 if address.version == 4 else 2 if isinstance(address, IPv6Address) and address.is_link_local else 1
        found.append((rank, text))
    return tuple(text for _, text in sorted(found, key=lambda item: item[0])[:MAX_ADDRESSES])


def tables_of(info: Any) -> list[FoundTable]:
    """The tables of one resolved service (`BadAnnouncement` if it is not a well-formed one of ours)."""
    ad = decode(info.properties or {})
    port = int(info.port or 0)
    if not 1 <= port <= 65535:
        raise BadAnnouncement(f"port {port}")
    addresses = usable_addresses(info.parsed_scoped_addresses())
    if not addresses:
        raise BadAnnouncement("no address")
    name = host_name(info.server, info.name)
    return [FoundTable(name, addresses, port, ad, table) for table in ad.tables]


async def _browse(zeroconf: Any, seconds: float) -> list[str]:
    from zeroconf import ServiceStateChange
    from zeroconf.asyncio import AsyncServiceBrowser

    names: list[str] = []

    def seen(zeroconf: Any, service_type: str, name: str, state_change: ServiceStateChange) -> None:
        if state_change is not ServiceStateChange.Removed and name not in names and len(names) < MAX_SERVICES:
            names.append(name)

    browser = AsyncServiceBrowser(zeroconf, SERVICE_TYPE, handlers=[seen])
    try:
        await asyncio.sleep(seconds)
    finally:
        await browser.async_cancel()
    return names


async def _resolve(zeroconf: Any, name: str) -> Any:
    from zeroconf.asyncio import AsyncServiceInfo

    info = AsyncServiceInfo(SERVICE_TYPE, name)
    # (the browser's answers usually carried the SRV, TXT and address records already: then this is immediate)
    return info if await info.async_request(zeroconf, 1500) else None


async def discover(seconds: float = LOOK_FOR) -> tuple[list[FoundTable], int]:
    """The tables announced on the LAN within `seconds`, and how many answers were ignored as malformed."""
    from zeroconf import InterfaceChoice, IPVersion
    from zeroconf.asyncio import AsyncZeroconf

    from watten_net.interfaces import mdns_interfaces

    interfaces = mdns_interfaces()
    # (no interface but loopback: look there, a host on this machine bound to it is not announced anyway)
    aiozc = AsyncZeroconf(interfaces=interfaces) if interfaces else AsyncZeroconf(
        interfaces=InterfaceChoice.All, ip_version=IPVersion.V4Only)
    try:
        names = await _browse(aiozc.zeroconf, seconds)
        infos = await asyncio.gather(*(_resolve(aiozc.zeroconf, name) for name in names))
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(aiozc.async_close(), 3.0)
    found: list[FoundTable] = []
    ignored = 0
    for info in infos:
        if info is None:
            continue
        try:
            found.extend(tables_of(info))
        except (BadAnnouncement, ValueError, UnicodeError):
            ignored += 1
    found.sort(key=lambda t: (t.host.lower(), t.port))  # (stable: a host's tables keep its order)
    return found, ignored


def as_json(found: list[FoundTable]) -> str:
    """`--list --json`: one JSON object per table, one per line (json escapes what a terminal must not see raw)."""
    return "\n".join(json.dumps(t.as_dict(), sort_keys=True) for t in found)


def nothing_found(ignored: int) -> str:
    why = f" ({ignored} announcement(s) could not be read and were ignored)" if ignored else ""
    return (f"no Watten table found on the LAN within {LOOK_FOR:g} s{why}. Give the host's address "
            "(watten-join ADDRESS, it is on the host's screen); the host may be started with --no-announce or "
            "--bind 127.0.0.1, or the network or a firewall may block mDNS (UDP port 5353)")
