"""A whole verifiable game in one process, without the network: HostGame and one SeatGame per seat.

Used by tests of the protocol and the verifier (the network tests use real processes instead).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from watten_net.deal.host_game import HostGame, Posted, Seat
from watten_net.deal.identity import public_key_bytes
from watten_net.deal.seat import SeatGame
from watten_net.engine import Rules
from watten_net.record import KIND_HOST, Entry


@dataclass
class LocalTable:
    rules: Rules
    seed: int = 0
    reveal: str = "match-end"
    host: HostGame = field(init=False)
    seats: list[SeatGame] = field(init=False)
    rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

        def rbytes(n: int) -> bytes:
            return self.rng.randbytes(n)

        keys = [Ed25519PrivateKey.generate() for _ in range(self.rules.players)]
        roster = [Seat(public_key_bytes(k), f"player {i}", rbytes(32)) for i, k in enumerate(keys)]
        self.host = HostGame(self.rules, roster, Ed25519PrivateKey.generate(), reveal=self.reveal,
                             random_bytes=rbytes)
        self.seats = [
            SeatGame(i, k, random_bytes=rbytes, choose_cut=lambda size: self.rng.randint(4, size - 4))
            for i, k in enumerate(keys)
        ]

    def deliver(self, posted: list[Posted]) -> None:
        for p in posted:
            for seat in self.seats:
                p.deliver_to(seat)

    def flush(self) -> bool:
        """Submit every seat's automatic protocol envelopes; True if anything happened."""
        moved = False
        for seat in self.seats:
            while (raw := seat.next_automatic()) is not None:
                out = self.host.submit(seat.seat, raw)
                seat.accepted(raw)
                self.deliver(out)
                moved = True
        return moved

    def play(self, max_steps: int = 100_000) -> None:
        self.deliver(self.host.start())
        for _ in range(max_steps):
            if self.host.finished:
                return
            if self.flush():
                continue
            phase, waiting = self.host.waiting_for()
            assert phase == "play" and waiting, (phase, waiting)
            seat = waiting[0]
            assert self.host.match is not None
            action = self.rng.choice(self.host.match.observe(seat).legal_actions)
            raw = self.seats[seat].action(action)
            out = self.host.submit(seat, raw)
            self.seats[seat].accepted(raw)
            self.deliver(out)
        raise AssertionError("the game did not finish")

    def host_entries(self) -> list[Entry]:
        return [Entry(KIND_HOST, p.raw) for p in self.host.chain]

    def seat_entries(self, seat: int) -> list[Entry]:
        return [Entry(e.kind, e.data) for e in self.seats[seat].record]
