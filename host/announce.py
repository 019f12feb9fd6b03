"""The host's tables announced on the LAN by mDNS/DNS-SD (`_watten._tcp`), so that `watten-join` finds them without
an address.

One service per host process, named after the machine and the port, pointing at the addresses the host listens on
(host/addresses.py) and carrying the tables in its TXT record (watten_net/discovery.py: protocol version, rules,
players, free seats, deal mode, fingerprint prefix). The record follows the lobby: a loop compares what it would
announce now with what it announced last, once a second, and sends an update only when they differ (a seat taken or
freed, a deal mode switched, a fresh table in a finished one's place), not on every game event. `stop` withdraws it
(mDNS goodbye packets) when the host exits. A host that listens on loopback only is never announced (the caller
checks `Listening.loopback_only`), and `--no-announce` turns it off.

Nothing here is trusted by the client: the announcement only helps a person pick, the certificate is still compared
on first use.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import socket
from collections.abc import Callable, Sequence
from typing import Any

from watten_net.discovery import FINGERPRINT_PREFIX, MAX_LISTED_TABLES, SERVICE_TYPE, HostAd, TableAd, encode

from .addresses import WILDCARDS, Listening

log = logging.getLogger("watten.host.announce")
UPDATE_EVERY = 1.0  # seconds between two looks at the lobby (an update goes out only when it changed)


def host_label(name: str | None = None) -> str:
    """The machine's name as one DNS label (letters, digits, dashes; at most 40 characters)."""
    label = re.sub(r"[^A-Za-z0-9-]+", "-", (name or socket.gethostname()).split(".")[0]).strip("-")
    return label[:40] or "watten-host"


def free_seats(table: Any) -> int:
    """Seats a newcomer can take: the empty ones while the table is in its lobby, none once the match has begun."""
    if getattr(table, "game", None) is not None:
        return 0
    return sum(1 for occupant in table.seats if occupant is None)


def host_ad(tables: Sequence[Any], preset: str, players: int, protocol: int, fingerprint_hex: str) -> HostAd:
    """What the host announces now about `tables` (the service's live list: fresh tables replace finished ones)."""
    listed = tuple(TableAd(t.table_id, free_seats(t), t.settings.deal) for t in tables[:MAX_LISTED_TABLES])
    return HostAd(protocol=protocol, rules=preset, players=players, tls=bool(fingerprint_hex),
                  fingerprint_prefix=fingerprint_hex[:FINGERPRINT_PREFIX], tables=listed, table_count=len(tables))


class Announcer:
    """The mDNS service of one host process: `start`, then it follows the lobby by itself until `stop`."""

    def __init__(self, reach: Listening, port: int, current: Callable[[], HostAd]) -> None:
        self.reach = reach
        self.port = port
        self.current = current  # what to announce now (read once a second)
        self.name = f"{host_label()}-{port}.{SERVICE_TYPE}"
        self._zeroconf: Any = None
        self._info: Any = None
        self._task: asyncio.Task[None] | None = None

    def _service_info(self, ad: HostAd) -> Any:
        from zeroconf.asyncio import AsyncServiceInfo

        return AsyncServiceInfo(SERVICE_TYPE, self.name, port=self.port, properties=encode(ad),
                                server=f"{host_label()}.local.",
                                parsed_addresses=[str(a) for a in self.reach.addresses])

    def start(self) -> None:
        """Open the multicast sockets (an OSError here means no announcement) and announce in the background (the
        name is probed for about a second first; the banner need not wait for it)."""
        from zeroconf.asyncio import AsyncZeroconf

        from watten_net.interfaces import mdns_interfaces

        wildcard = self.reach.bind.strip() in WILDCARDS
        interfaces = mdns_interfaces(None if wildcard else list(self.reach.addresses))
        if not interfaces:
            raise OSError("no network interface for mDNS")
        self._zeroconf = AsyncZeroconf(interfaces=interfaces)
        self._task = asyncio.ensure_future(self._follow())

    async def _follow(self) -> None:
        try:
            announced = self.current()
            self._info = self._service_info(announced)
            await self._zeroconf.async_register_service(self._info, allow_name_change=True)
            self.name = self._info.name  # (another host of this machine and port may have had it: "-2" added)
            while True:
                await asyncio.sleep(UPDATE_EVERY)
                now = self.current()
                if now != announced:
                    self._info = self._service_info(now)
                    await self._zeroconf.async_update_service(self._info)
                    announced = now
        except asyncio.CancelledError:
            raise
        except Exception as err:  # the game goes on without an announcement; the banner's addresses still work
            log.warning("the LAN announcement stopped: %s", err)

    async def stop(self) -> None:
        """Withdraw the announcement (goodbye packets) and close the sockets."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._zeroconf is not None:
            with contextlib.suppress(Exception):  # (exiting: a socket that is already gone changes nothing)
                await asyncio.wait_for(self._zeroconf.async_close(), 3.0)
            self._zeroconf = None
