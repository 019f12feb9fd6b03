"""Level 1 of PROTOCOL.md: verified deals (the host knows the deck; everything it does is checkable).

Per attempt (h, a): HandOpen commits to the host's seed S; every seat commits to its seed (and a cut
position); the host relays all commitments (CommitSet) and every seat signs that set; only then do
the seats reveal; the deck key is derived from every seed and the transcript up to the signed
CommitSet; DeckSealed publishes a commitment to every position, every seat signs it. Cards are
delivered with their openings, played cards opened publicly, and S revealed at the end.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from watten_net.engine import Card, Rules, canonical_deck
from watten_net.engine.events import Event
from watten_net.v1 import watten_pb2 as pb

from .commitments import (
    DEALER_UNKNOWN,
    CommitmentError,
    card_salt,
    check_client_seed,
    host_seed_commitment,
    parse_extra,
    seal_deck,
)
from .dealer import Dealer, Post, ReadyDeck
from .deck import deck_permutation, derive_deck_key, first_dealer, stand_in_cut
from .protocol import ProtocolError, Signed, event_to_pb


@dataclass
class Attempt:
    hand: int
    attempt: int
    dealer_field: int
    secret: bytes
    hand_open_hash: bytes = b""
    commits: dict[int, tuple[bytes, bytes]] = field(default_factory=dict)  # seat -> (C_i, envelope bytes)
    commit_set_hash: bytes = b""
    commit_signed: set[int] = field(default_factory=set)
    commit_head: bytes = b""
    participants: tuple[int, ...] = ()  # the seats in the CommitSet (a seat away when it was made is left out)
    reveals: dict[int, tuple[bytes, bytes]] = field(default_factory=dict)  # seat -> (c_i, extra)
    deck: tuple[Card, ...] = ()
    deck_key: bytes = b""
    deck_sealed_hash: bytes = b""
    seal_signed: set[int] = field(default_factory=set)
    revealed: bool = False


class VerifiedDealer(Dealer):
    mode = "verified"
    message_types = frozenset({"SeedCommit", "CommitSetSignature", "SeedReveal", "DeckSealedSignature"})

    def __init__(self, rules: Rules, game_id: bytes, post: Post,
                 random_bytes: Callable[[int], bytes] = os.urandom, absent: set[int] | None = None) -> None:
        self.rules = rules
        # Seats a host bot stands in for (HostGame's set, shared): their steps are not waited for.
        self.absent: set[int] = absent if absent is not None else set()
        self._forfeit: int | None = None
        self.n = rules.players
        self.game_id = game_id
        self.post = post
        self.random_bytes = random_bytes
        self.attempts: list[Attempt] = []
        self.step = ""  # commit, commit-sign, reveal, seal-sign, dealt
        self._ready: ReadyDeck | None = None

    @property
    def current(self) -> Attempt:
        return self.attempts[-1]

    def salt(self, k: int) -> bytes:
        att = self.current
        return card_salt(att.secret, self.game_id, att.hand, att.attempt, k)

    # ------------------------------------------------------------------ the protocol
    def open_attempt(self, hand: int, attempt: int, dealer: int | None) -> list[Any]:
        secret = self.random_bytes(32)
        field_value = DEALER_UNKNOWN if dealer is None else dealer
        att = Attempt(hand, attempt, field_value, secret)
        self.attempts.append(att)
        commitment = host_seed_commitment(self.game_id, hand, attempt, field_value, secret)
        posted = self.post(pb.HandOpen(hand=hand, attempt=attempt, dealer=field_value,
                                       host_seed_commitment=commitment))
        att.hand_open_hash = posted.hash
        self.step = "commit"
        return [posted]

    def on_message(self, seat: int, signed: Signed) -> list[Any]:
        expected = {"SeedCommit": "commit", "CommitSetSignature": "commit-sign", "SeedReveal": "reveal",
                    "DeckSealedSignature": "seal-sign"}[signed.type]
        if self.step != expected:
            raise ProtocolError("precondition", "unexpected-message",
                                f"{signed.type} is not expected now (the deal is at {self.step or 'rest'})")
        p = signed.payload
        att = self.current
        if p.hand != att.hand or p.attempt != att.attempt or p.seat != seat:
            raise ProtocolError("precondition", "wrong-hand", "the message is for another hand, attempt or seat")
        handler: Callable[[int, Any, Signed], list[Any]] = getattr(self, "_on_" + signed.type)
        return handler(seat, p, signed)

    def _relay(self, seat: int, signed: Signed) -> Any:
        return self.post(pb.Relay(seat=seat, envelope=signed.raw))

    def _on_SeedCommit(self, seat: int, p: Any, signed: Signed) -> list[Any]:
        att = self.current
        if p.hand_open_hash != att.hand_open_hash or len(p.commitment) != 32:
            raise ProtocolError("precondition", "wrong-hash", "the commitment does not answer the current HandOpen")
        if seat in att.commits:
            raise ProtocolError("precondition", "unexpected-message", "you have committed already")
        att.commits[seat] = (bytes(p.commitment), signed.raw)
        return self._advance()

    def _advance(self) -> list[Any]:
        """Move on when every seat still expected has answered the current step (seats away are not waited for;
        a seat away that committed and can no longer reveal forfeits the attempt)."""
        att = self.current
        present = set(range(self.n)) - self.absent
        if self.step == "commit":
            if not att.commits or not present <= att.commits.keys():
                return []  # with nobody there at all the deal waits: someone must contribute a seed
            att.participants = tuple(sorted(att.commits))
            entries = [pb.SeedCommitEntry(seat=s, commitment=att.commits[s][0], envelope=att.commits[s][1])
                       for s in att.participants]
            posted = self.post(pb.CommitSet(hand=att.hand, attempt=att.attempt, commits=entries))
            att.commit_set_hash = posted.hash
            self.step = "commit-sign"
            return [posted, *self._advance()]
        if self.step in ("commit-sign", "reveal"):
            gone = [s for s in att.participants if s in self.absent and s not in att.reveals]
            if gone:
                self.step = "forfeit"
                self._forfeit = gone[0]
                return [self.post(pb.AttemptAborted(hand=att.hand, attempt=att.attempt, reason="reveal-timeout",
                                                    seat=gone[0]))]
            return []
        if self.step == "seal-sign" and set(att.participants) - self.absent <= att.seal_signed:
            self.step = "dealt"
            # Every seat committed a cut position before anyone could know the deck; the cutter's is used. A seat
            # left out of the commitments gets one from the deck key, which nobody chooses either.
            size = self.rules.deck
            cuts = tuple(parse_extra(att.reveals[s][1], size).cut if s in att.reveals
                         else stand_in_cut(att.deck_key, size) for s in range(self.n))
            self._ready = ReadyDeck(att.deck, cuts, first_dealer(att.deck_key, self.n))
        return []

    def on_absent(self) -> list[Any]:
        if not self.attempts:
            return []
        return self._advance()

    def unanswered(self) -> list[bytes]:
        # Seed commitments wait for the whole set (CommitSet); every other message is relayed at once.
        if not self.attempts or self.step != "commit":
            return []
        return [raw for _, raw in (self.current.commits[s] for s in sorted(self.current.commits))]

    def take_forfeit(self) -> int | None:
        seat, self._forfeit = self._forfeit, None
        return seat

    def _on_CommitSetSignature(self, seat: int, p: Any, signed: Signed) -> list[Any]:
        att = self.current
        if p.commit_set_hash != att.commit_set_hash:
            raise ProtocolError("precondition", "wrong-hash", "the signature is not over the current CommitSet")
        if seat in att.commit_signed:
            raise ProtocolError("precondition", "unexpected-message", "you have signed the CommitSet already")
        if seat not in att.participants:
            raise ProtocolError("precondition", "unexpected-message", "you are not in this CommitSet (you were away)")
        att.commit_signed.add(seat)
        posted = self._relay(seat, signed)
        if att.commit_signed == set(att.participants):
            # The deck key's salt: the transcript up to and including the all-signed CommitSet.
            att.commit_head = posted.hash
            self.step = "reveal"
        return [posted]

    def _on_SeedReveal(self, seat: int, p: Any, signed: Signed) -> list[Any]:
        att = self.current
        if seat not in att.participants:
            raise ProtocolError("precondition", "unexpected-message", "you are not in this CommitSet (you were away)")
        if seat in att.reveals:
            raise ProtocolError("precondition", "unexpected-message", "you have revealed already")
        try:
            check_client_seed(
                att.commits[seat][0], self.game_id, att.hand, att.attempt, seat, att.hand_open_hash, p.seed, p.extra
            )
            parse_extra(p.extra, self.rules.deck)
        except CommitmentError as err:
            raise ProtocolError("precondition", "commitment-mismatch", str(err)) from None
        att.reveals[seat] = (bytes(p.seed), bytes(p.extra))
        out = [self._relay(seat, signed)]
        if len(att.reveals) == len(att.participants):
            out += self._seal_deck()
        return out

    def _seal_deck(self) -> list[Any]:
        att = self.current
        seeds = [att.reveals[s][0] for s in att.participants]
        extras = [att.reveals[s][1] for s in att.participants]
        att.deck_key = derive_deck_key(att.secret, seeds, extras, att.commit_head)
        canonical = canonical_deck(self.rules.deck)
        att.deck = tuple(canonical[j] for j in deck_permutation(att.deck_key, len(canonical)))
        sealed = seal_deck(att.secret, self.game_id, att.hand, att.attempt, [c.text for c in att.deck])
        posted = self.post(pb.DeckSealed(hand=att.hand, attempt=att.attempt, card_commitments=sealed))
        att.deck_sealed_hash = posted.hash
        self.step = "seal-sign"
        return [posted]

    def _on_DeckSealedSignature(self, seat: int, p: Any, signed: Signed) -> list[Any]:
        att = self.current
        if p.deck_sealed_hash != att.deck_sealed_hash:
            raise ProtocolError("precondition", "wrong-hash", "the signature is not over the current DeckSealed")
        if seat in att.seal_signed:
            raise ProtocolError("precondition", "unexpected-message", "you have signed the DeckSealed already")
        if seat not in att.participants:
            raise ProtocolError("precondition", "unexpected-message", "you are not in this deal (you were away)")
        att.seal_signed.add(seat)
        return [self._relay(seat, signed), *self._advance()]

    def take_ready_deck(self) -> ReadyDeck | None:
        ready, self._ready = self._ready, None
        return ready

    def waiting(self) -> tuple[str, tuple[int, ...]]:
        if not self.attempts:
            return "", ()
        att = self.current
        done: dict[str, Any] = {"commit": att.commits, "commit-sign": att.commit_signed, "reveal": att.reveals,
                                "seal-sign": att.seal_signed}
        if self.step not in done:
            return self.step, ()
        expected = range(self.n) if self.step == "commit" else att.participants
        return self.step, tuple(s for s in expected if s not in done[self.step] and s not in self.absent)

    # ------------------------------------------------------------------ cards
    def opening(self, position: int, card: str) -> Any:
        return pb.CardOpening(position=position, card=card, salt=self.salt(position))

    def deliver(self, event: Event) -> list[Any]:
        att = self.current
        if event.kind in ("deal", "took"):
            cards = event.data["cards"] if event.kind == "deal" else [event.data["card"]]
            positions = event.data["positions"] if event.kind == "deal" else [event.data["position"]]
            packet = event.data["packet"] if event.kind == "deal" else 0
            openings = [self.opening(k, c) for c, k in zip(cards, positions, strict=True)]
            delivery = pb.CardDelivery(hand=att.hand, attempt=att.attempt, seat=event.seat, packet=packet,
                                       cards=openings)
            return [self.post(delivery, (event.seat,))]
        if event.kind == "see":
            k = event.data["position"]
            data = {**event.data, "salt": self.salt(k).hex()}
            private = pb.PrivateEvent(hand=att.hand, attempt=att.attempt, seat=event.seat,
                                      events=[event_to_pb(event.kind, event.seat, data)])
            return [self.post(private, (event.seat,))]
        return []

    def reveal(self) -> list[Any]:
        out = []
        for att in self.attempts:
            if not att.revealed:
                att.revealed = True
                out.append(self.post(pb.HostSeedReveal(hand=att.hand, attempt=att.attempt, dealer=att.dealer_field,
                                                       seed=att.secret)))
        return out

