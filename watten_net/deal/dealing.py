"""The dealing layer's interface: where the cards come from, and who may see them.

`HostGame` runs the game (header, actions through the engine, checkpoints, the end) and hands every
question about cards to a `Dealing`: open a deal attempt, take the seats' dealing messages, say when
the deck is ready and where the cut is, open a played card, turn the engine's hidden events (dealt
cards, a card seen at the cut) into deliveries, and reveal its secrets at the end. Level 1 (verified
deals, `level1.VerifiedDealing`) is one implementation; the trustless Level 2 of docs/protocol.md plugs in
here, without touching the engine or the action path.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from watten_net.engine import Card
from watten_net.engine.events import Event

from .protocol import Signed
from .steps import DealStep, Stage

Post = Callable[..., Any]  # HostGame._post(payload, visible_to=None) -> Posted


@dataclass(frozen=True)
class ReadyDeck:
    """What the engine needs to start a deal: the order (top card first), the cut, the first dealer."""

    cards: tuple[Card, ...]
    cuts: tuple[int, ...]  # the cut position that follows from each seat's game key; the cutter's is used
    first_dealer: int  # used only for the match's first deal


class Dealing(ABC):
    """Where the cards of a `HostGame` come from: `level1.VerifiedDealing` (Level 1) or
    `level2.TrustlessDealing` (Level 2); the host game asks it every question about cards."""

    mode: str  # the table setting `deal`: "verified" or "trustless"
    message_types: frozenset[str]  # the client envelope types this layer handles
    phases: tuple[Stage, ...] = (Stage.DEAL,)  # the HostGame phases in which it takes them

    @abstractmethod
    def open_attempt(self, hand: int, attempt: int, dealer: int | None) -> list[Any]:
        """Start deal attempt (hand, attempt); `dealer` is None before the first dealer is known."""

    @abstractmethod
    def on_message(self, seat: int, signed: Signed) -> list[Any]:
        """A seat's dealing message; raises ProtocolError (changing nothing) when it is wrong."""

    @abstractmethod
    def take_ready_deck(self) -> ReadyDeck | None:
        """The deck, once the protocol has produced it (then None until the next attempt)."""

    @abstractmethod
    def waiting(self) -> tuple[DealStep, tuple[int, ...]]:
        """The dealing step in progress and the seats it waits for."""

    @abstractmethod
    def opening(self, position: int, card: str) -> Any:
        """The public opening of a played card (a CardOpening)."""

    @abstractmethod
    def deliver(self, event: Event) -> list[Any]:
        """Turn one of the engine's hidden events (deal, took, see) into what goes to that seat only."""

    @abstractmethod
    def reveal(self, final: bool) -> list[Any]:
        """Reveal what may be revealed now: at a hand's end (`final` False, with reveal = hand-end) or when the match
        is over for good (`final`: the target reached or the match abandoned)."""

    @abstractmethod
    def on_absent(self) -> list[Any]:
        """The set of seats a stand-in plays has grown: stop waiting for them (or forfeit the attempt)."""

    @abstractmethod
    def take_forfeit(self) -> int | None:
        """The seat whose absence forfeited the current attempt, once (then None)."""

    def unanswered(self) -> list[bytes]:
        """Client envelopes accepted but not yet in the chain (for a match that stops before they would be)."""
        return []
