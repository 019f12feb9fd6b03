"""The bot interface and the `random` level."""

from __future__ import annotations

import random
from dataclasses import dataclass, field


@dataclass(frozen=True)
class SeatView:
    """What a bot may know: its seat's view, the same fields the host sends a client in its TableView."""

    seat: int
    legal_actions: tuple[str, ...]
    hand: tuple[str, ...] = ()
    schlag: str = ""
    trump: str = ""
    phase: str = ""
    stake: int = 2
    current_trick: tuple[tuple[int, str], ...] = ()
    extra: dict[str, str] = field(default_factory=dict)


class Bot:
    """Base: a bot decides one action from a view. Subclasses override `decide`."""

    level = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: SeatView) -> str | None:
        if not view.legal_actions:
            return None
        return self.decide(view)

    def decide(self, view: SeatView) -> str:
        # Signals and giving up are rare table talk, not moves: a random bot prefers real moves.
        moves = [a for a in view.legal_actions if not a.startswith("signal ") and a not in ("concede", "fold")]
        if not moves or self.rng.random() < 0.05:
            moves = list(view.legal_actions)
        return self.rng.choice(moves)


LEVELS = ("random",)


def make_bot(level: str, seed: int | None = None) -> Bot:
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; the levels are: {', '.join(LEVELS)}")
    return Bot(seed)
