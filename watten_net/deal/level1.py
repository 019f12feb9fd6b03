"""Level 1 of docs/protocol.md, version 2: verified deals (the host knows the deck; everything it does is checkable).

Before the first hand every seat's game key is fixed: each seat commits to a fresh key (KeyCommit), the host
publishes every commitment (KeySet), every seat signs its hash ``Hks``, and then the keys are revealed, the host's
own seats first (KeyReveal). From then on every deal of the match follows from the keys alone
(:mod:`watten_net.deal.keys`): per attempt (h, a) the host opens it (HandOpen), publishes a seal of every position
(DeckSealed, which every seat present signs), delivers cards with their openings and opens played cards. The
host's key ``k_H`` is revealed once, when the match is over for good. So nobody chooses a deck, who is present
never changes one, and the host has nothing to grind.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from watten_net.engine import Card, Rules, canonical_deck
from watten_net.engine.event_data import event_data
from watten_net.engine.events import Event, EventKind
from watten_net.refusal import Code, Reason
from watten_net.v1 import watten_pb2 as pb

from .commitments import seal_deck_with_salts
from .dealing import Dealing, Post, ReadyDeck
from .deck import deck_permutation
from .keys import all_seeds, cut_position, deck_key, first_dealer, host_seed, key_set_hash, seat_key_commitment
from .protocol import ProtocolError, Signed, event_to_pb
from .steps import DealStep

HeadAt = Callable[[int], bytes | None]  # chain seq -> hash of the host envelope there (None: no such envelope)


@dataclass
class Attempt:
    """One deal attempt of Level 1 on the host's side: its secret S(h, a), the deck it makes and who signed the seal."""

    hand: int
    attempt: int
    dealer: int
    secret: bytes  # S(h, a)
    deck: tuple[Card, ...] = ()
    salts: tuple[bytes, ...] = ()  # salt_k of every position, kept from the seal (docs/protocol.md §5.4)
    cuts: tuple[int, ...] = ()  # every seat's committed cut position, from its key
    deck_sealed_hash: bytes = b""
    signers: set[int] = field(default_factory=set)  # the seats present (not stood in for) when it was posted
    seal_signed: set[int] = field(default_factory=set)
    revealed: bool = False


@dataclass(frozen=True)
class PreparedDeal:
    """What an attempt's deal follows from the keys: S(h, a), the deck key, the deck, its seals and their salts."""

    of: tuple[int, int]  # (hand, attempt)
    secret: bytes
    deck_key: bytes
    deck: tuple[Card, ...]
    sealed: list[bytes]
    salts: tuple[bytes, ...]
    cuts: tuple[int, ...]  # each seat's cut position (from its key alone: ready before the last seal signature)


@dataclass
class GameKeys:
    """The key ceremony before the first hand (docs/protocol.md Level 1 steps 2-4)."""

    commits: dict[int, tuple[bytes, bytes]] = field(default_factory=dict)  # seat -> (K_i, KeyCommit envelope)
    key_set: bytes = b""  # Hks
    signed: set[int] = field(default_factory=set)
    last_signature_seq: int = 0  # chain seq of the relay of the last KeySetSignature
    keys: dict[int, bytes] = field(default_factory=dict)  # seat -> k_i, once revealed
    last_host_reveal_seq: int = 0  # chain seq of the relay of the last host-run seat's KeyReveal


class VerifiedDealing(Dealing):
    """The host's side of docs/protocol.md Level 1 (the verified deal): the host knows every card, and every seat can
    check afterwards that the deck came from the committed keys."""

    mode = "verified"
    message_types = frozenset({"KeyCommit", "KeySetSignature", "KeyReveal", "DeckSealedSignature"})

    def __init__(self, rules: Rules, game_id: bytes, post: Post, *, host_key: Callable[[], bytes],
                 header_hash: Callable[[], bytes], host_run: Sequence[bool], head_at: HeadAt,
                 absent: set[int] | None = None) -> None:
        self.rules = rules
        self.n = rules.players
        self.game_id = game_id
        self.post = post
        self._host_key = host_key  # k_H (drawn when the header is made)
        self._header_hash = header_hash
        self.host_run = tuple(host_run)
        self._head_at = head_at
        # Seats a stand-in plays (HostGame's set, shared): their DeckSealed signatures are not waited for.
        self.absent: set[int] = absent if absent is not None else set()
        self.keys = GameKeys()
        self.attempts: list[Attempt] = []
        self.step = DealStep.KEY_COMMIT  # then KEY_SIGN, KEY_REVEAL, (NONE: open), SEAL_SIGN, DEALT
        self._pending: tuple[int, int] | None = None  # the first attempt, opened once every key is in
        self._ready: ReadyDeck | None = None
        self.first_dealer: int | None = None
        self.key_revealed = False
        self._prepared: PreparedDeal | None = None  # the next attempt, derived ahead (see `prepare`)

    @property
    def current(self) -> Attempt:
        return self.attempts[-1]

    @property
    def keys_ready(self) -> bool:
        return len(self.keys.keys) == self.n

    def missing_keys(self) -> tuple[int, ...]:
        return tuple(s for s in range(self.n) if s not in self.keys.keys)

    def salt(self, k: int) -> bytes:
        return self.current.salts[k]

    # ------------------------------------------------------------------ the key ceremony
    def on_message(self, seat: int, signed: Signed) -> list[Any]:
        p = signed.payload
        if p.seat != seat:
            # PERMISSION_DENIED, as documented for `wrong-seat` (FAILED_PRECONDITION `wrong-seat` is no documented
            # answer): the message speaks for a seat that did not sign it.
            raise ProtocolError(Code.PERMISSION, Reason.WRONG_SEAT, "the message names another seat than its sender")
        return self.HANDLERS[signed.type](self, seat, p, signed)

    def _expect(self, step: DealStep, what: str) -> None:
        if self.step != step:
            raise ProtocolError(Code.PRECONDITION, Reason.UNEXPECTED_MESSAGE,
                                f"{what} is not expected now (the deal is at {self.step or 'rest'})")

    def _relay(self, seat: int, signed: Signed) -> Any:
        return self.post(pb.Relay(seat=seat, envelope=signed.raw))

    def _on_key_commit(self, seat: int, p: Any, signed: Signed) -> list[Any]:
        self._expect(DealStep.KEY_COMMIT, "a key commitment")
        if p.header_hash != self._header_hash() or len(p.commitment) != 32:
            raise ProtocolError(Code.PRECONDITION, Reason.WRONG_HASH,
                                "the key commitment does not answer this game's header")
        if seat in self.keys.commits:
            raise ProtocolError(Code.PRECONDITION, Reason.UNEXPECTED_MESSAGE, "you have committed to a key already")
        self.keys.commits[seat] = (bytes(p.commitment), signed.raw)
        if len(self.keys.commits) < self.n:
            return []
        entries = [pb.KeyCommitEntry(seat=s, envelope=self.keys.commits[s][1]) for s in range(self.n)]
        posted = self.post(pb.KeySet(commits=entries))
        self.keys.key_set = key_set_hash(self.game_id, self._header_hash(),
                                         [self.keys.commits[s][0] for s in range(self.n)])
        self.step = DealStep.KEY_SIGN
        return [posted]

    def _on_key_set_signature(self, seat: int, p: Any, signed: Signed) -> list[Any]:
        self._expect(DealStep.KEY_SIGN, "a KeySet signature")
        if p.key_set_hash != self.keys.key_set:
            raise ProtocolError(Code.PRECONDITION, Reason.WRONG_HASH, "the signature is not over this game's KeySet")
        if seat in self.keys.signed:
            raise ProtocolError(Code.PRECONDITION, Reason.UNEXPECTED_MESSAGE, "you have signed the KeySet already")
        self.keys.signed.add(seat)
        posted = self._relay(seat, signed)
        if len(self.keys.signed) == self.n:
            self.keys.last_signature_seq = posted.seq
            self.step = DealStep.KEY_REVEAL
        return [posted]

    def _host_run_revealed(self) -> bool:
        return all(s in self.keys.keys for s in range(self.n) if self.host_run[s])

    def _on_key_reveal(self, seat: int, p: Any, signed: Signed) -> list[Any]:
        self._expect(DealStep.KEY_REVEAL, "a key reveal")
        if seat in self.keys.keys:
            raise ProtocolError(Code.PRECONDITION, Reason.UNEXPECTED_MESSAGE, "you have revealed your key already")
        if not self.host_run[seat] and not self._host_run_revealed():
            raise ProtocolError(Code.PRECONDITION, Reason.UNEXPECTED_MESSAGE,
                                "a person reveals its key only after every host-run seat has revealed")
        needed = self.keys.last_signature_seq if self.host_run[seat] else max(
            self.keys.last_signature_seq, self.keys.last_host_reveal_seq)
        if p.chain_seq < needed or self._head_at(int(p.chain_seq)) != p.chain_head:
            raise ProtocolError(Code.PRECONDITION, Reason.WRONG_HASH,
                                "the reveal does not name a chain head after every signature it must wait for")
        if len(p.key) != 32 or seat_key_commitment(self.game_id, seat, self._header_hash(), bytes(p.key)) != \
                self.keys.commits[seat][0]:
            raise ProtocolError(Code.PRECONDITION, Reason.COMMITMENT_MISMATCH, "the key does not open your KeyCommit")
        self.keys.keys[seat] = bytes(p.key)
        posted = self._relay(seat, signed)
        out = [posted]
        if self.host_run[seat] and self._host_run_revealed():
            self.keys.last_host_reveal_seq = posted.seq
        if self.keys_ready:
            self.step = DealStep.NONE
            if self._pending is not None:
                hand, attempt = self._pending
                self._pending = None
                out += self.open_attempt(hand, attempt, None)
        return out

    # ------------------------------------------------------------------ deals
    def open_attempt(self, hand: int, attempt: int, dealer: int | None) -> list[Any]:
        if not self.keys_ready:
            self._pending = (hand, attempt)  # the first deal waits for every key (nobody is left out)
            return []
        prepared = self._prepared if self._prepared is not None and self._prepared.of == (hand, attempt) else None
        deal = prepared or self._derive(hand, attempt)
        self._prepared = None
        if self.first_dealer is None:
            self.first_dealer = first_dealer(deal.deck_key, self.game_id, self.n)
        att = Attempt(hand, attempt, self.first_dealer if dealer is None else dealer, deal.secret, deal.deck,
                      salts=deal.salts, cuts=deal.cuts)
        self.attempts.append(att)
        out = [self.post(pb.HandOpen(hand=hand, attempt=attempt, dealer=att.dealer))]
        posted = self.post(pb.DeckSealed(hand=hand, attempt=attempt, card_commitments=deal.sealed))
        att.deck_sealed_hash = posted.hash
        att.signers = set(range(self.n)) - self.absent
        self.step = DealStep.SEAL_SIGN
        return [*out, posted, *self._advance()]

    def prepare(self, hand: int, attempt: int) -> None:
        """Derive attempt (hand, attempt)'s deck and seals ahead of its HandOpen, while the table waits for something
        else (the checkpoint signatures): they follow from the keys alone, so `open_attempt` then only posts them.
        Nothing changes for anyone if the attempt opened is another one, or none is prepared: it is derived then."""
        if self.wants(hand, attempt):
            self._prepared = self._derive(hand, attempt)

    def wants(self, hand: int, attempt: int) -> bool:
        """Whether `prepare(hand, attempt)` would derive anything: the keys are in and that attempt is not ready."""
        return self.keys_ready and (self._prepared is None or self._prepared.of != (hand, attempt))

    def _derive(self, hand: int, attempt: int) -> PreparedDeal:
        secret = host_seed(self._host_key(), self.game_id, hand, attempt)
        key_list = [self.keys.keys[s] for s in range(self.n)]
        dk = deck_key(secret, all_seeds(key_list, self.game_id, hand, attempt), self.keys.key_set, self.game_id,
                      hand, attempt)
        canonical = canonical_deck(self.rules.deck)
        deck = tuple(canonical[j] for j in deck_permutation(dk, len(canonical)))
        sealed, salts = seal_deck_with_salts(secret, self.game_id, hand, attempt, [c.text for c in deck])
        cuts = tuple(cut_position(k, self.game_id, hand, attempt, self.rules.deck) for k in key_list)
        return PreparedDeal((hand, attempt), secret, dk, deck, sealed, tuple(salts), cuts)

    def _advance(self) -> list[Any]:
        att = self.current
        if self.step == DealStep.SEAL_SIGN and att.signers - self.absent <= att.seal_signed:
            self.step = DealStep.DEALT
            assert self.first_dealer is not None
            self._ready = ReadyDeck(att.deck, att.cuts, self.first_dealer)
        return []

    def _on_deck_sealed_signature(self, seat: int, p: Any, signed: Signed) -> list[Any]:
        self._expect(DealStep.SEAL_SIGN, "a DeckSealed signature")
        att = self.current
        if p.hand != att.hand or p.attempt != att.attempt:
            raise ProtocolError(Code.PRECONDITION, Reason.WRONG_HAND, "the message is for another hand or attempt")
        if p.deck_sealed_hash != att.deck_sealed_hash:
            raise ProtocolError(Code.PRECONDITION, Reason.WRONG_HASH,
                                "the signature is not over the current DeckSealed")
        if seat in att.seal_signed:
            raise ProtocolError(Code.PRECONDITION, Reason.UNEXPECTED_MESSAGE, "you have signed the DeckSealed already")
        if seat not in att.signers:
            raise ProtocolError(Code.PRECONDITION, Reason.UNEXPECTED_MESSAGE,
                                "a stand-in played your seat when the DeckSealed was posted: it needs no signature")
        att.seal_signed.add(seat)
        return [self._relay(seat, signed), *self._advance()]


    # One handler per type of `message_types`.
    HANDLERS: ClassVar[dict[str, Callable[[VerifiedDealing, int, Any, Signed], list[Any]]]] = {
        "KeyCommit": _on_key_commit, "KeySetSignature": _on_key_set_signature, "KeyReveal": _on_key_reveal,
        "DeckSealedSignature": _on_deck_sealed_signature,
    }

    def on_absent(self) -> list[Any]:
        return self._advance() if self.attempts else []

    def take_forfeit(self) -> int | None:
        return None  # Level 1 version 2 forfeits nothing for an absence: a stand-in plays on

    def take_ready_deck(self) -> ReadyDeck | None:
        ready, self._ready = self._ready, None
        return ready

    def unanswered(self) -> list[bytes]:
        # Key commitments wait for the whole KeySet; every other message is relayed at once.
        if self.step != DealStep.KEY_COMMIT:
            return []
        return [raw for _, raw in (self.keys.commits[s] for s in sorted(self.keys.commits))]

    def waiting(self) -> tuple[DealStep, tuple[int, ...]]:
        keys = self.keys
        if self.step in (DealStep.KEY_COMMIT, DealStep.KEY_SIGN, DealStep.KEY_REVEAL):
            done = {
                DealStep.KEY_COMMIT: set(keys.commits), DealStep.KEY_SIGN: keys.signed,
                DealStep.KEY_REVEAL: set(keys.keys),
            }[self.step]
            seats = [s for s in range(self.n) if s not in done]
            if self.step == DealStep.KEY_REVEAL and not self._host_run_revealed():
                seats = [s for s in seats if self.host_run[s]]
            return self.step, tuple(seats)
        if self.step != DealStep.SEAL_SIGN:
            return self.step, ()
        att = self.current
        return self.step, tuple(sorted(att.signers - att.seal_signed - self.absent))

    # ------------------------------------------------------------------ cards
    def opening(self, position: int, card: str) -> Any:
        return pb.CardOpening(position=position, card=card, salt=self.salt(position))

    def deliver(self, event: Event) -> list[Any]:
        att = self.current
        if event.kind in (EventKind.DEAL, EventKind.TOOK):
            if event.kind == EventKind.DEAL:
                dealt = event_data(event, EventKind.DEAL)
                cards, positions, packet = dealt["cards"], dealt["positions"], dealt["packet"]
            else:
                took = event_data(event, EventKind.TOOK)
                cards, positions, packet = [took["card"]], [took["position"]], 0
            openings = [self.opening(k, c) for c, k in zip(cards, positions, strict=True)]
            delivery = pb.CardDelivery(hand=att.hand, attempt=att.attempt, seat=event.seat, packet=packet,
                                       cards=openings)
            return [self.post(delivery, (event.seat,))]
        if event.kind == EventKind.SEE:
            seen = event_data(event, EventKind.SEE)
            data = {**seen, "salt": self.salt(seen["position"]).hex()}
            private = pb.PrivateEvent(hand=att.hand, attempt=att.attempt, seat=event.seat,
                                      events=[event_to_pb(event.kind, event.seat, data)])
            return [self.post(private, (event.seat,))]
        return []

    def reveal(self, final: bool) -> list[Any]:
        """At a hand's end (reveal = hand-end): S(h, a) of every attempt so far; when the match is over for good:
        k_H, once, which opens every seed, cut and deck of the match."""
        if final:
            if self.key_revealed:
                return []
            self.key_revealed = True
            return [self.post(pb.HostKeyReveal(key=self._host_key()))]
        out = []
        for att in self.attempts:
            if not att.revealed:
                att.revealed = True
                out.append(self.post(pb.HostSeedReveal(hand=att.hand, attempt=att.attempt, dealer=att.dealer,
                                                       seed=att.secret)))
        return out
