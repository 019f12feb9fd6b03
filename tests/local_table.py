"""A whole verifiable game in one process, without the network: HostGame and one SeatGame per seat.

Used by tests of the protocol and the verifier (the network tests use real processes instead).
`deal="trustless"` plays PROTOCOL.md Level 2: the host knows no card, so the random actions come from each
seat's own `SeatGame.legal_actions()`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from watten_net.deal.host_game import HostGame, Posted, Seat
from watten_net.deal.identity import public_key_bytes
from watten_net.deal.protocol import ProtocolError
from watten_net.deal.seat import SeatGame
from watten_net.deal.series import FIRST_MATCH, Series
from watten_net.engine import Rules
from watten_net.record import KIND_HOST, Entry


@dataclass
class LocalTable:
    rules: Rules
    seed: int = 0
    reveal: str = "match-end"
    deal: str = "verified"
    next_deal: str = ""  # GameHeader.next_deal ("with-checkpoint": the next deal is sealed with the checkpoint)
    series: Series = FIRST_MATCH  # GameHeader.previous_game_id and bummerl_carried (another match of a series)
    step_timeout_ms: int = 0  # GameHeader.step_timeout_ms (0: no time limit, as every header before the field)
    # The seats' keys (None: fresh ones); a series' next match at the same table seats the same keys
    keys: list[Ed25519PrivateKey] | None = None
    bots: frozenset[int] = frozenset()  # seats the roster says a host bot plays (here their SeatGames play as any)
    names: list[str] | None = None  # the roster's names by seat (None: "player 0", ...); a hostile host's strings too
    host: HostGame = field(init=False)
    seats: list[SeatGame] = field(init=False)
    rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

        def rbytes(n: int) -> bytes:
            return self.rng.randbytes(n)

        keys = self.keys or [Ed25519PrivateKey.generate() for _ in range(self.rules.players)]
        names = self.names or [f"player {i}" for i in range(len(keys))]
        roster = [Seat(public_key_bytes(k), names[i], rbytes(32), bot=i in self.bots, host_run=i in self.bots)
                  for i, k in enumerate(keys)]
        self.host = HostGame(self.rules, roster, Ed25519PrivateKey.generate(), reveal=self.reveal,
                             random_bytes=rbytes, deal=self.deal, next_deal=self.next_deal, series=self.series,
                             step_timeout_ms=self.step_timeout_ms)
        self.seats = [SeatGame(i, k, random_bytes=rbytes) for i, k in enumerate(keys)]

    # Seats whose person is away: they receive nothing (their line is down) and a bot stands in for them.
    away: set[int] = field(default_factory=set)
    missed: dict[int, list[Posted]] = field(default_factory=dict)

    def deliver(self, posted: list[Posted]) -> None:
        for p in posted:
            for seat in self.seats:
                if seat.seat in self.away:
                    self.missed.setdefault(seat.seat, []).append(p)
                else:
                    p.deliver_to(seat)

    def go_away(self, seat: int) -> None:
        """The seat's line goes down and (the grace period over) a stand-in plays it (in Level 1 only from the first
        HandOpen on: until then every game key is waited for)."""
        self.away.add(seat)
        self.deliver(self.host.stand_in(seat, True))

    def come_back(self, seat: int) -> None:
        """The person is back: the host hands the seat back, the seat catches up on what it missed."""
        self.away.discard(seat)
        out = self.host.stand_in(seat, False)
        for p in self.missed.pop(seat, []):
            p.deliver_to(self.seats[seat])
        self.deliver(out)

    def wait_out_the_away(self) -> None:
        """A trustless table stuck on a seat away: the host's clock runs out (its side forfeits the hand), or,
        while nobody at all is there, somebody comes back."""
        if len(self.away) == len(self.seats):
            self.come_back(min(self.away))
            return
        posted = self.host.forfeit_away()
        assert posted, "the host forfeits the hand it waited for"
        self.deliver(posted)

    def flush(self) -> bool:
        """Submit every seat's automatic protocol envelopes; True if anything happened."""
        moved = False
        for seat in self.seats:
            if seat.seat in self.away:
                continue
            while (raw := seat.next_automatic()) is not None:
                try:
                    out = self.host.submit(seat.seat, raw)
                except ProtocolError as err:
                    # As the client does: a step that went on without us (a bot stood in) is owed no more.
                    assert err.reason in ("unexpected-message", "wrong-hash", "wrong-hand"), err
                    seat.outbox.remove(raw)
                    continue
                seat.accepted(raw)
                self.deliver(out)
                moved = True
        return moved

    def start_until_owing_the_first_seal(self, victim: int) -> None:
        """The host starts the match and every seat answers every step until the first deal is sealed; `victim` then
        holds its DeckSealedSignature (the step a host calls it away on in the away-claim tests)."""
        self.deliver(self.host.start())
        moved = True
        while moved:
            moved = False
            for seat in self.seats:
                if seat.seat == victim and "DeckSealed" in seat.chain_types:
                    continue  # (it keeps what it owes from the first seal on)
                while (raw := seat.next_automatic()) is not None:
                    out = self.host.submit(seat.seat, raw)
                    seat.accepted(raw)
                    self.deliver(out)
                    moved = True

    def play_until(self, reached: Callable[[], bool], max_steps: int = 10_000,
                   rng: random.Random | None = None) -> None:
        """Level 1, every seat present: random legal actions (drawn from `rng`, else the table's) and every automatic
        envelope, until `reached()`."""
        draw = rng or self.rng
        if self.host.phase == "new":
            self.deliver(self.host.start())
        for _ in range(max_steps):
            if reached():
                return
            if self.flush():
                continue
            _, waiting = self.host.waiting_for()
            seat = waiting[0]
            assert self.host.match is not None
            raw = self.seats[seat].action(draw.choice(self.host.match.observe(seat).legal_actions))
            self.deliver(self.host.submit(seat, raw))
            self.seats[seat].accepted(raw)
        raise AssertionError("the table never got there")

    def play(self, max_steps: int = 100_000, absences: dict[int, tuple[int, int]] | None = None) -> None:
        """Play to the end with random legal actions. `absences`: step -> (seat, steps away)."""
        if self.host.phase == "new":
            self.deliver(self.host.start())
        returns: dict[int, list[int]] = {}
        for step in range(max_steps):
            if self.host.finished:
                return
            for seat in returns.pop(step, []):
                self.come_back(seat)
            if absences and step in absences and not self.host.finished:
                seat, length = absences[step]
                if seat not in self.away:
                    self.go_away(seat)
                    returns.setdefault(step + length, []).append(seat)
            if self.flush():
                continue
            phase, waiting = self.host.waiting_for()
            if self.host.trustless and self.away and (not waiting or waiting[0] in self.away):
                self.wait_out_the_away()
                continue
            if not waiting and self.away:
                self.come_back(min(self.away))  # everyone is away: the deal waits until somebody returns
                continue
            if phase != "play" and waiting and set(waiting) <= self.away:
                self.come_back(min(waiting))  # (Level 1: the game keys are waited for, whoever is away)
                continue
            assert phase == "play" and waiting, (phase, waiting)
            seat = waiting[0]
            if self.host.trustless:
                action = self.rng.choice(self.seats[seat].legal_actions())
                raw = self.seats[seat].action(action)
                out = self.host.submit(seat, raw)
                self.seats[seat].accepted(raw)
                self.deliver(out)
                continue
            assert self.host.match is not None
            action = self.rng.choice(self.host.match.observe(seat).legal_actions)
            if seat in self.host.absent:
                self.deliver(self.host.act_for(seat))
                continue
            raw = self.seats[seat].action(action)
            out = self.host.submit(seat, raw)
            self.seats[seat].accepted(raw)
            self.deliver(out)
        raise AssertionError("the game did not finish")

    def host_entries(self) -> list[Entry]:
        return [Entry(KIND_HOST, p.raw) for p in self.host.chain]

    def seat_entries(self, seat: int) -> list[Entry]:
        return [Entry(e.kind, e.data) for e in self.seats[seat].record]
