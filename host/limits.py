"""What one client address may make the host hold: connections, event streams, seats, joins (issue #19).

gRPC itself bounds what it can (server options in `grpc_options`: message size, streams per connection, a connection
without calls closed after `idle_timeout`, a TCP connection that never finishes its handshake closed sooner); the rest
is counted here by the address of the caller (`context.peer()`: `ipv4:ADDR:PORT`, `ipv6:[ADDR]:PORT`), where a
"connection" is one peer string (address and port) and an address is its host part. Every refusal is
RESOURCE_EXHAUSTED with a reason of its own and a sentence, raised before the call costs anything.

Loopback (127.0.0.0/8, ::1, unix sockets) is exempt unless `limit_loopback`: whoever runs programs on the host's own
machine can stop the host anyway, and a LAN party (or the bench, or the tests) may run many clients there. Every other
address is a machine on the LAN: one person, or a few at most.
"""

from __future__ import annotations

import functools
import ipaddress
import resource
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from watten_net.refusal import Code, Reason, Refusal

TOO_MANY_CONNECTIONS = Reason.TOO_MANY_CONNECTIONS
TOO_MANY_STREAMS = Reason.TOO_MANY_STREAMS
TOO_MANY_SEATS = Reason.TOO_MANY_SEATS
JOIN_RATE_LIMITED = Reason.JOIN_RATE_LIMITED
REQUEST_TOO_LARGE = "request-too-large"

# The largest request a legitimate client sends is a trustless Shuffle envelope: 7.7 kB with six players (measured
# from the journal of a real 6-player trustless match; then DecryptionShares 0.7 kB, ActionRequest 0.4 kB). 64 KiB
# leaves eight times that; gRPC refuses anything bigger before it is read (RESOURCE_EXHAUSTED, no details).
MAX_REQUEST = 64 << 10
# Every request but SubmitEnvelope is a few hundred bytes (a Join with the longest name is under 400): 4 KiB, checked
# on the raw bytes before they are parsed (RESOURCE_EXHAUSTED `request-too-large`).
MAX_SMALL_REQUEST = 4 << 10
BIG_REQUEST_METHODS = frozenset({"/watten_net.v1.WattenTable/SubmitEnvelope"})
# Envelopes in one SubmitEnvelope (`more_envelopes`): a seat owes at most a few at once (a checkpoint's and the next
# deal's seal signatures); 8 leaves room, and a call with 10,000 tiny ones is refused before any is looked at.
MAX_ENVELOPES_PER_SUBMIT = 8


@dataclass(frozen=True)
class Limits:
    """The per-address limits and the connection timeouts; the defaults are the README's."""

    connections_per_address: int = 32
    streams_per_address: int = 16  # open Subscribe streams (one per seat token; a seat limit of 8 needs 8)
    seats_per_address: int = 8
    seats_per_connection: int = 1
    joins_per_minute: float = 30.0  # per address, in bursts of up to JOIN_BURST
    join_burst: float = 10.0
    idle_timeout: float = 30.0  # seconds a connection without a call stays open (then gRPC closes it)
    limit_loopback: bool = False

    @property
    def handshake_timeout(self) -> float:
        """A TCP connection that has not finished its TLS/HTTP2 handshake by then is closed (gRPC's default: 120 s)."""
        return min(10.0, self.idle_timeout)


def grpc_options(limits: Limits) -> list[tuple[str, int]]:
    """The server options that bound what gRPC holds for a client."""
    return [
        ("grpc.max_receive_message_length", MAX_REQUEST),
        # Calls open at once on one connection (a client has two or three; more wait in the client, and a burst sent
        # before the client knows the limit is reset, UNAVAILABLE, not a status the rate limit would have given).
        ("grpc.max_concurrent_streams", 512),
        ("grpc.max_connection_idle_ms", int(limits.idle_timeout * 1000)),
        ("grpc.server_handshake_timeout_ms", int(limits.handshake_timeout * 1000)),
    ]


def raise_open_files_limit() -> tuple[int, int]:
    """Raise this process's soft RLIMIT_NOFILE to its hard limit (each connection is a file descriptor; the usual
    soft limit of 1,024 is met by a thousand idle connections). Returns (soft, hard) as they are afterwards."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
    if soft == resource.RLIM_INFINITY or (wanted != resource.RLIM_INFINITY and soft >= wanted):
        return soft, hard
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    except (ValueError, OSError):
        return soft, hard
    return resource.getrlimit(resource.RLIMIT_NOFILE)


def address_of(peer: str) -> str:
    """`ipv4:192.168.1.20:53124` -> `192.168.1.20`, `ipv6:[::1]:53124` -> `::1`; anything else as it is."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rpartition(":")[0] or rest
    if kind == "ipv6":
        host = rest.rpartition(":")[0] or rest
        return host.strip("[]").split("%")[0]
    return peer


@functools.lru_cache(maxsize=1024)  # (every call asks; parsing the address each time was ~1 % of the host's loop)
def is_loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return address.startswith("unix") or not address  # a local socket (or no peer: in-process)


class PeerLimits:
    """Counts per address and connection; each `open_*` raises the refusal or returns the function that ends it."""

    def __init__(self, limits: Limits | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits or Limits()
        self.clock = clock
        self.calls: dict[str, dict[str, list[float]]] = {}  # address -> peer -> [calls open, when the last ended]
        self.streams: dict[str, int] = {}  # address -> open Subscribe streams
        self.joins: dict[str, tuple[float, float]] = {}  # address -> (tokens left, when last taken)

    def limited(self, address: str) -> bool:
        return self.limits.limit_loopback or not is_loopback(address)

    @staticmethod
    def peer_of(context: Any) -> str:
        try:
            return str(context.peer() or "")
        except Exception:  # (a context without a peer: nothing to count)
            return ""

    def open_call(self, context: Any) -> Callable[[], None] | None:
        """Every call: a connection of an address that already has its limit of others is refused. A connection
        counts while it has a call open and for `idle_timeout` after its last one (then gRPC closes it)."""
        peer = self.peer_of(context)
        address = address_of(peer)
        if not self.limited(address):
            return None
        now = self.clock()
        if len(self.calls) > 4096:  # forget the addresses none of whose connections has had a call for a while
            for other in [a for a, ps in self.calls.items() if all(
                    not e[0] and now - e[1] >= self.limits.idle_timeout for e in ps.values())]:
                del self.calls[other]
        peers = self.calls.setdefault(address, {})
        entry = peers.get(peer)
        if entry is None:
            for other, (open_calls, last) in list(peers.items()):
                if not open_calls and now - last >= self.limits.idle_timeout:
                    del peers[other]
            if len(peers) >= self.limits.connections_per_address:
                raise Refusal(Code.RESOURCE_EXHAUSTED, TOO_MANY_CONNECTIONS,
                              f"This address already has {len(peers)} connections to the host (at most "
                              f"{self.limits.connections_per_address}); close some, or wait a minute.")
            entry = peers[peer] = [0.0, now]
        entry[0] += 1

        def done() -> None:
            entry[0] -= 1
            entry[1] = self.clock()

        return done

    def open_stream(self, context: Any) -> Callable[[], None] | None:
        """A Subscribe: an address may have `streams_per_address` open at once."""
        address = address_of(self.peer_of(context))
        if not self.limited(address):
            return None
        count = self.streams.get(address, 0)
        if count >= self.limits.streams_per_address:
            raise Refusal(Code.RESOURCE_EXHAUSTED, TOO_MANY_STREAMS,
                          f"This address already has {count} event streams open (at most "
                          f"{self.limits.streams_per_address}, one per seat); close one first.")
        self.streams[address] = count + 1

        def done() -> None:
            left = self.streams.get(address, 1) - 1
            if left > 0:
                self.streams[address] = left
            else:
                self.streams.pop(address, None)

        return done

    def admit_join(self, context: Any) -> None:
        """Joins per address: a bucket of `join_burst` refilled at `joins_per_minute`."""
        address = address_of(self.peer_of(context))
        if not self.limited(address):
            return
        now = self.clock()
        tokens, last = self.joins.get(address, (self.limits.join_burst, now))
        tokens = min(self.limits.join_burst, tokens + (now - last) * self.limits.joins_per_minute / 60.0)
        if tokens < 1.0:
            self.joins[address] = (tokens, now)
            raise Refusal(Code.RESOURCE_EXHAUSTED, JOIN_RATE_LIMITED,
                          f"Too many joins from this address (more than {self.limits.joins_per_minute:g} a "
                          "minute); wait a little and join again.")
        self.joins[address] = (tokens - 1.0, now)
        if len(self.joins) > 4096:  # forget the addresses whose bucket is full again
            refill = 60.0 * self.limits.join_burst / max(self.limits.joins_per_minute, 1e-9)
            for other, (_, when) in list(self.joins.items()):
                if now - when >= refill:
                    del self.joins[other]

    def check_seats(self, context: Any, held_by: Callable[[str, str], tuple[int, int]]) -> tuple[str, str]:
        """Before a Join that would take a new seat: `held_by(peer, address)` counts the seats that connection and
        that address hold now (joins under way included); over either limit is refused. Returns (peer, address)."""
        peer = self.peer_of(context)
        address = address_of(peer)
        if not self.limited(address):
            return peer, address
        on_connection, on_address = held_by(peer, address)
        if on_connection >= self.limits.seats_per_connection:
            raise Refusal(Code.RESOURCE_EXHAUSTED, TOO_MANY_SEATS,
                          f"This connection already holds {on_connection} seat(s) (at most "
                          f"{self.limits.seats_per_connection}); each player joins on a connection of their own.")
        if on_address >= self.limits.seats_per_address:
            raise Refusal(Code.RESOURCE_EXHAUSTED, TOO_MANY_SEATS,
                          f"This address already holds {on_address} seats (at most {self.limits.seats_per_address});"
                          " leave one first.")
        return peer, address
