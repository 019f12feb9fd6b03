"""A trustless-deal table for tests: seats with seeded randomness, every message broadcast as bytes.

Every message goes through ``to_bytes`` and each receiver's ``accept`` (so the encodings are
exercised on every step), and an ``observer`` (the host: no secret) checks everything too.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from watten_net.trustless import DealId, DealSetup, PublicDeal, SeatDeal, seeded_draw
from watten_net.trustless.messages import DecryptionShareMessage, KeyShareMessage, Message, ShuffleMessage


def make_setup(n_seats: int = 4, n_cards: int = 33, game: bytes = b"game", hand: int = 1, attempt: int = 0,
               shuffle_order: tuple[int, ...] | None = None) -> DealSetup:
    deal = DealId(hashlib.sha256(game).digest(), hand, attempt)
    return DealSetup(deal, n_seats, n_cards, shuffle_order)


@dataclass
class Table:
    setup: DealSetup
    seed: bytes = b"seed"
    seats: list[SeatDeal] = field(init=False)
    observer: PublicDeal = field(init=False)

    def __post_init__(self) -> None:
        self.seats = [SeatDeal(self.setup, s, seeded_draw(self.seed + bytes([s]))) for s in range(self.setup.n_seats)]
        self.observer = PublicDeal(self.setup)

    def broadcast(self, sender: int, message: Message) -> None:
        data = message.to_bytes()
        for seat in self.seats:
            if seat.seat != sender:
                seat.accept(sender, data)
        self.observer.accept(sender, data)

    def exchange_keys(self) -> list[KeyShareMessage]:
        messages = [seat.key_share_message() for seat in self.seats]
        for message in messages:
            self.broadcast(message.seat, message)
        return messages

    def shuffle_all(self) -> list[ShuffleMessage]:
        messages = []
        for s in self.setup.shufflers:
            message = self.seats[s].shuffle_message()
            self.broadcast(s, message)
            messages.append(message)
        return messages

    def cut(self, offset: int) -> None:
        for seat in self.seats:
            seat.public.apply_cut(offset)
        self.observer.apply_cut(offset)

    def deliver(self, position: int, recipient: int) -> int:
        """Every other seat publishes its share; the recipient finishes. Returns the card it received."""
        messages: list[DecryptionShareMessage] = []
        for seat in self.seats:
            if seat.seat != recipient:
                messages.append(seat.delivery_share(position, recipient))
        for message in messages:
            self.broadcast(message.seat, message)
        return self.seats[recipient].receive_card(position)

    def open(self, position: int, owner: int) -> int:
        self.broadcast(owner, self.seats[owner].opening_share(position))
        return self.observer.open_card(position)

    def prepared(self, offset: int = 5) -> Table:
        """Keys exchanged, every seat shuffled, deck cut: ready to deal."""
        self.exchange_keys()
        self.shuffle_all()
        self.cut(offset)
        return self
