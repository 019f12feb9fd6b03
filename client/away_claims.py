"""Called away while present (PROTOCOL.md "Disputes"; docs/protocol-decisions.md "Called away while present").

The host may call a seat away (post a StandIn for it) when it is offline past the grace period or silent on a step
it owes past the step timeout. A StandIn for this seat that reaches it while it is connected is the seat's claimed
dispute when the seat owed nothing, or when the oldest step it owed had reached it less than the step timeout ago by
its own clock: it was not silent past the timeout, it had no chance to answer. Only the seat's word (nobody else saw
its clock): a claim, written into its record as a SeatNote and shown on its screen at once. The step timeout is the
one the seat signed in the game header (GameHeader.step_timeout_ms), never a lower word of the host's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from watten_net.deal.protocol import header_step_timeout, seconds_text
from watten_net.deal.seat import SeatGame

# Seconds an event stream must have been open before a StandIn on it came while the seat was there (a StandIn seen
# in the first moments of a stream may have been posted while the seat was offline).
CONNECTED_FOR = 1.5
# Seconds of the step timeout a claim leaves to the clocks: the step reached the seat a little after the host posted
# it (and started its clock), and the StandIn a little after that clock ran out. At most half the timeout.
CLOCK_SLACK = 2.0
UNKNOWN = -math.inf  # when a step reached the seat, where it cannot tell (a catch-up, a stream just opened)

ANSWERED_ALL = ("the host says this seat is away, but it is connected and had answered every step: it may be "
                "cheating")


@dataclass
class OwedClock:
    """When each envelope this seat still owes reached it (its step arrived), by this client's own clock."""

    # step -> when it reached the seat; a step is the chain seq our envelope answers (`SeatGame.sent_at`): an envelope
    # signed again on a moved head (`next_automatic`) is the same step, owed since the same moment
    since: dict[int | bytes, float] = field(default_factory=dict)
    step_timeout: float = 0.0  # the largest the host has stated (TableInfo.step_timeout, unsigned; 0: no step clock)
    timeout: float = 0.0  # what the claims measure against: `timeout_to_measure` (the header's, signed)

    def new_stream(self) -> None:
        """A new event stream: the seat may have been offline meanwhile, so no step it owes counts as fresh."""
        self.since = dict.fromkeys(self.since, UNKNOWN)

    def claims(self, game: SeatGame, live: bool, now: float, step_timeout: float) -> list[tuple[int, str]]:
        """After an event: the StandIns for this seat in it that it disputes, as (chain seq, what it says). `live`:
        the stream has been open a while and this is no catch-up (the seat was connected all along)."""
        # (a host lowering its stated timeout mid-match would turn early calls into "silence": the largest counts)
        self.step_timeout = max(self.step_timeout, step_timeout)
        self.timeout = timeout_to_measure(game, self.step_timeout)
        arrival = now if live else UNKNOWN  # envelopes new to the outbox: their steps reached the seat now
        found = []
        for seq, owed in game.take_called_away():
            says = self._says(game, owed, now, arrival) if live else None
            if says is not None:
                found.append((seq, says))
        steps = [_step(game, raw) for raw in game.outbox]
        self.since = {step: self.since.get(step, arrival) for step in steps}
        return found

    def _says(self, game: SeatGame, owed: tuple[bytes, ...], now: float, arrival: float) -> str | None:
        if not owed:
            return ANSWERED_ALL
        oldest = min(owed, key=lambda raw: self.since.get(_step(game, raw), arrival))
        held = now - self.since.get(_step(game, oldest), arrival)
        timeout = self.timeout
        if timeout > 0 and held + min(CLOCK_SLACK, timeout / 2) >= timeout:
            return None  # it really was silent past the step timeout (or cannot tell how long): no claim
        step = game.parsed(oldest).type
        within = f"of the {seconds_text(timeout)} s step timeout" if timeout > 0 else "(the host runs no step clock)"
        return (f"the host says this seat is away, but it is connected and had owed its {step} for only {held:.1f} s "
                f"{within}: it may be cheating")


def signed_step_timeout(game: SeatGame | None) -> float | None:
    """The step timeout of the header this seat has (GameHeader.step_timeout_ms, seconds; 0: no limit), what its
    screen shows: the one it signed (or, when it refused the header, the one it refused); None before a header."""
    return None if game is None or game.header is None else header_step_timeout(game.header)


def timeout_to_measure(game: SeatGame, stated: float) -> float:
    """The step timeout a claim measures against: the header's, which this seat signed (GameHeader.step_timeout_ms),
    never less. The host's unsigned TableInfo word counts only where it says more (a host that states more than it
    signed only gives its seats more claims); a header with no step timeout (0) says the host never stands in for a
    seat online, so every such StandIn of a seat that owed something is measured against no clock at all."""
    signed = header_step_timeout(game.header)
    return max(signed, stated) if signed > 0 else 0.0


def _step(game: SeatGame, raw: bytes) -> int | bytes:
    """The step an envelope of ours answers: the chain seq it was made at (its bytes where the seat has no note)."""
    return game.sent_at.get(game.parsed(raw).hash, raw)
