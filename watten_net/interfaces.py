"""This machine's network interfaces, as the host and the client both need them: the host to show where friends can
reach it (host/addresses.py), both to choose where mDNS listens and sends (host/announce.py, client/discover.py).

Read with ifaddr (python-zeroconf's own dependency); an interface counts only when it is up (Linux: the IFF_UP flag
in /sys; elsewhere every listed interface counts as up). Loopback is left out of mDNS on purpose: a host's multicast
reaches clients on the same machine through the LAN interface anyway, and zeroconf sending IPv6 multicast on `::1`
only fills the terminal with "Network is unreachable".
"""

from __future__ import annotations

from dataclasses import dataclass
from ipaddress import IPv4Address, IPv6Address, ip_address
from pathlib import Path

IPAddress = IPv4Address | IPv6Address
IFF_UP = 0x1  # <linux/if.h>: the interface is administratively up


def interface_is_up(name: str) -> bool:
    try:
        return bool(int(Path(f"/sys/class/net/{name}/flags").read_text().strip(), 16) & IFF_UP)
    except (OSError, ValueError):
        return True


@dataclass(frozen=True)
class InterfaceAddress:
    interface: str
    address: IPAddress


def up_addresses() -> list[InterfaceAddress]:
    """Every address of every up interface (loopback and link-local included), in the system's order."""
    import ifaddr

    found: list[InterfaceAddress] = []
    for adapter in ifaddr.get_adapters():
        if not interface_is_up(adapter.name):
            continue
        for ip in adapter.ips:
            text = ip.ip[0] if isinstance(ip.ip, tuple) else ip.ip
            try:
                found.append(InterfaceAddress(adapter.name, ip_address(text.split("%")[0])))
            except ValueError:
                continue
    return found


def mdns_interfaces(only: list[IPAddress] | None = None) -> list[str]:
    """The addresses zeroconf should listen and send on: every non-loopback IPv4 address, and one IPv6 address per
    non-loopback interface (IPv6 multicast goes by interface; zeroconf finds it from the address). With `only`,
    just the interfaces holding one of those addresses (a host bound to one address)."""
    found = up_addresses()
    if only is not None:
        wanted = {f.interface for f in found if f.address in only}
        found = [f for f in found if f.interface in wanted]
    chosen: list[str] = []
    v6_interfaces: set[str] = set()
    for item in found:
        if item.address.is_loopback:
            continue
        if item.address.version == 4:
            chosen.append(str(item.address))
        elif item.interface not in v6_interfaces:
            v6_interfaces.add(item.interface)
            chosen.append(str(item.address))
    return chosen
