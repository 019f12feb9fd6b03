"""Where friends can reach this host: the machine's real addresses for the start banner, the lobby and the mDNS
announcement (host/announce.py).

The machine's host name often resolves to a loopback address (Debian's `127.0.1.1` line in /etc/hosts), so the
addresses are read from the interfaces themselves (ifaddr, which python-zeroconf already depends on): every
interface that is up, every address on it that is neither loopback nor IPv6 link-local (an `fe80::` address needs
the joining machine's own interface name after a `%`, which nobody can type from another machine's screen).
`--bind` narrows that: a wildcard (`0.0.0.0` or `::`: gRPC listens on both families then) means all of them, a
single address means that one, a loopback address means this machine only.

    >>> reach = listening_on("0.0.0.0", lambda: [ip_address("192.168.1.20"), ip_address("fd00::7")])
    >>> reach.loopback_only, [str(a) for a in reach.addresses]
    (False, ['192.168.1.20', 'fd00::7'])
    >>> join_target(ip_address("fd00::7"), 47150)
    '[fd00::7]:47150'
    >>> listening_on("127.0.0.1", lambda: [ip_address("192.168.1.20")]).loopback_only
    True
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv6Address, ip_address

from watten_net.interfaces import up_addresses

IPAddress = IPv4Address | IPv6Address
WILDCARDS = ("", "0.0.0.0", "::", "[::]", "*")
def reachable(address: IPAddress) -> bool:
    """An address another machine could use: neither loopback, nor IPv6 link-local, nor unspecified."""
    if address.is_loopback or address.is_unspecified:
        return False
    return not (isinstance(address, IPv6Address) and address.is_link_local)


def machine_addresses() -> list[IPAddress]:
    """Every reachable address of every up interface of this machine, IPv4 first, without repeats."""
    found: list[IPAddress] = []
    for item in up_addresses():
        if reachable(item.address) and item.address not in found:
            found.append(item.address)
    return sorted(found, key=lambda a: a.version)  # (a stable sort: each family keeps the interfaces' order)


@dataclass(frozen=True)
class Listening:
    """The addresses friends can join at (empty when `loopback_only`), from what the host listens on."""

    addresses: tuple[IPAddress, ...]
    loopback_only: bool
    bind: str


def _bound(bind: str) -> list[IPAddress]:
    """The addresses a `--bind` that is not a wildcard stands for (a name resolves; one that does not: none)."""
    text = bind.strip("[]")
    try:
        return [ip_address(text)]
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(text, None, proto=socket.IPPROTO_TCP)
    except OSError:
        return []
    return [ip_address(str(info[4][0]).split("%")[0]) for info in infos]


def listening_on(bind: str, machine: Callable[[], Iterable[IPAddress]] = machine_addresses) -> Listening:
    """Where the host can be reached when it listens on `bind` (`--bind`)."""
    if bind.strip() in WILDCARDS:
        addresses = tuple(machine())
        return Listening(addresses, loopback_only=False, bind=bind)
    bound = _bound(bind.strip())
    usable = tuple(a for a in bound if reachable(a))
    return Listening(usable, loopback_only=not usable and any(a.is_loopback for a in bound), bind=bind)


def join_target(address: IPAddress | str, port: int) -> str:
    """`ADDRESS:PORT` as `watten-join` takes it (an IPv6 address in brackets)."""
    text = str(address)
    return f"[{text}]:{port}" if ":" in text else f"{text}:{port}"


def join_command(target: str, insecure: bool) -> str:
    """`watten-join TARGET`, with `--insecure` after it for a plaintext host (the address stays first: it is what
    a friend reads off the screen)."""
    return " ".join(part for part in ("watten-join", target, "--insecure" if insecure else "") if part)


def banner_lines(reach: Listening, port: int, insecure: bool, announced: bool) -> list[str]:
    """What the start banner says about joining: the no-address command when the host is announced on the LAN,
    then one command per address, or plainly that only this machine can join."""
    if reach.loopback_only:
        return [f"listening on this machine only ({reach.bind}): join here with "
                f"{join_command(join_target(reach.bind.strip('[]'), port), insecure)}; "
                "--bind 0.0.0.0 lets the LAN in"]
    lines = []
    if announced:
        lines.append(f"join with: {join_command('', insecure)}   (it finds this table on the LAN)")
    if not reach.addresses:
        lines.append("this machine has no network address that is up: friends cannot reach it yet")
    for address in reach.addresses:
        lines.append(f"{'or' if announced else 'join with'}: {join_command(join_target(address, port), insecure)}")
    return lines


LOBBY_ADDRESSES = 3  # the lobby at 80x24 has room for so many; the banner lists them all

# The words of the host's own lobby screen, in English. host/main.py (the composition root, which may import the
# client) passes the client's words in the person's --lang instead (client/i18n.py, the `lobby_*` keys): this
# module imports nothing of the client.
LOBBY_WORDS: dict[str, str] = {
    "lobby_only_here": "Only this machine can join: {command}",
    "lobby_loopback": "(listening on loopback only; --bind 0.0.0.0 lets the LAN in)",
    "lobby_join_with": "Join with:", "lobby_or": "or:", "lobby_announced": "(announced on the LAN)",
    "lobby_more": "… and {more} more (see the start banner)",
    "lobby_no_address": "No network address is up: friends cannot reach this machine yet",
}


def lobby_lines(reach: Listening, port: int, insecure: bool, announced: bool,
                words: Mapping[str, str] = LOBBY_WORDS) -> list[str]:
    """The join lines of the host's own lobby screen (short: it shares 24 rows with the seats)."""
    if reach.loopback_only:
        command = join_command(join_target(reach.bind.strip("[]"), port), insecure)
        return [f"  {words['lobby_only_here'].format(command=command)}", f"  {words['lobby_loopback']}"]
    width = max(len(words["lobby_join_with"]), len(words["lobby_or"])) + 1  # (the commands start in one column)
    indent = " " * (2 + width)
    lines = []
    if announced:
        command = join_command("", insecure)
        lines.append(f"  {words['lobby_join_with']:<{width}}{command:<34} {words['lobby_announced']}")
    label = f"  {words['lobby_or' if announced else 'lobby_join_with']:<{width}}"
    for address in reach.addresses[:LOBBY_ADDRESSES]:
        lines.append(label + join_command(join_target(address, port), insecure))
        label = indent
    more = len(reach.addresses) - LOBBY_ADDRESSES
    if more > 0:
        lines.append(indent + words["lobby_more"].format(more=more))
    if not reach.addresses:
        lines.append(f"  {words['lobby_no_address']}")
    return lines
