"""A seat's side of docs/protocol.md Level 1 version 2: the key ceremony before the first hand, and the deal checks.

`SeatGame` hands every Level 1 step here. The seat commits to a fresh game key once it holds every roster seat's
signature of the header it signed; signs the KeySet only when its own entry is the commitment it sent and every
other entry is that seat's own, for this game and header; reveals its key only when every roster seat has signed
the KeySet (a person's seat also waits for every host-run seat's key, so a host that withholds one does so blind);
checks every key revealed against its commitment and stops at one that does not open. When the host's key arrives
at the match's end (or a hand's seed with reveal = hand-end) it recomputes every deck and checks every seal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from watten_net.engine import canonical_deck
from watten_net.refusal import Reason
from watten_net.v1 import watten_pb2 as pb

from .commitments import seal_deck
from .deck import deck_permutation
from .keys import all_seeds, deck_key, host_key_commitment, host_seed, key_set_hash, seat_key_commitment
from .protocol import ProtocolError, Signed, check_signature

if TYPE_CHECKING:
    from .seat import SeatGame

GAME_KEY = "game-key"  # the name of the seat's game key among its kept secrets


@dataclass
class VerifiedSeat:
    """One seat's side of Level 1: it commits to its game key, signs the KeySet, reveals its key, and checks every key
    revealed and, at the end, every deck and seal (see this module's docstring)."""

    game: SeatGame
    host_run: tuple[bool, ...] = ()
    header_signed: set[int] = field(default_factory=set)
    my_key: bytes = b""
    commitments: list[bytes] = field(default_factory=list)  # K_0..K_(n-1), from the KeySet
    key_set: bytes = b""  # Hks
    key_set_signed: set[int] = field(default_factory=set)
    keys: dict[int, bytes] = field(default_factory=dict)  # every key revealed so far
    revealed: bool = False
    host_key: bytes = b""  # k_H, once revealed
    sealed: dict[tuple[int, int], list[bytes]] = field(default_factory=dict)  # (h, a) -> DeckSealed list
    seeds_seen: dict[tuple[int, int], bytes] = field(default_factory=dict)  # S(h, a) revealed at a hand's end
    decks_checked: int = 0
    # The last Checkpoint until every seat present has signed it (each relayed signature, each StandIn): no card of a
    # new deal may be shown before (docs/protocol.md 5.5 item 6; with next_deal = with-checkpoint the next HandOpen and
    # DeckSealed come with the Checkpoint, so a host could try to deal on before a fork would be found)
    checkpoint_open: bool = False
    checkpoint_signers: set[int] = field(default_factory=set)
    # The current DeckSealed until every seat that was to sign it has (each relayed signature, over the DeckSealed this
    # seat holds) or is stood in for, as the host waits (VerifiedDealing: the seats not away at the DeckSealed): no
    # card of the deal before. A host that shows one seat another DeckSealed (a fork after the checkpoint, which the
    # keys reveal only at the end) cannot show it the other seats' signatures of that one.
    seal_open: bool = False
    seal_signers: set[int] = field(default_factory=set)
    seal_expected: set[int] = field(default_factory=set)
    # The deal attempt the rules give next (hand, attempt): the host knows every deck of the match once the keys are
    # in, so an opening of any other (h, a) would be a deck of its choice; a redeal only after a `bessere?` that
    # forces one (bessere = redeal-penalty) in this attempt
    next_attempt: tuple[int, int] = (0, 0)
    redeal_called: bool = False

    @property
    def n(self) -> int:
        return len(self.game.roster_keys)

    def start(self, header: Any) -> None:
        self.host_run = tuple(bool(r.host_run) for r in header.roster)

    def on_relay(self, inner: Signed, seat: int) -> None:
        p = inner.payload
        if inner.type == "HeaderSignature" and p.header_hash == self.game.header_hash:
            self.header_signed.add(seat)
            if len(self.header_signed) == self.n and not self.my_key:
                self._commit()
        elif inner.type == "KeySetSignature":
            if p.key_set_hash != self.key_set:
                raise self.game.fault(Reason.FORK, f"seat {seat} signed another KeySet than this seat holds: the host "
                                      "shows the seats different key sets")
            self.key_set_signed.add(seat)
            self._maybe_reveal()
        elif inner.type == "KeyReveal":
            self._on_reveal(seat, bytes(p.key))
        elif inner.type == "CheckpointSignature":  # (SeatGame checked it is over the checkpoint this seat holds)
            self.checkpoint_signers.add(seat)
            self.settle_checkpoint()
        elif inner.type == "DeckSealedSignature":  # (and this one over the DeckSealed this seat holds)
            self.seal_signers.add(seat)
            self.settle_seal()

    def on_checkpoint(self) -> None:
        self.checkpoint_open = True
        self.checkpoint_signers = set()

    def settle_checkpoint(self) -> None:
        """The checkpoint is complete once every seat has signed it or is played by a stand-in (as the host waits)."""
        if self.checkpoint_open and len(self.checkpoint_signers | self.game.stood_in) >= self.n:
            self.checkpoint_open = False

    def settle_seal(self) -> None:
        """The DeckSealed is signed once every seat expected at it has, or is played by a stand-in now (as the host
        decides: once, at a signature or a seat going away)."""
        if self.seal_open and self.seal_expected - self.game.stood_in <= self.seal_signers:
            self.seal_open = False

    def on_stand_in(self) -> None:
        """A seat is played by a stand-in now: the host no longer waits for its signatures."""
        self.settle_checkpoint()
        self.settle_seal()

    def check_checkpoint_complete(self, what: str) -> None:
        """`what` shows a card of a deal: the checkpoint before it and the deal's DeckSealed must be signed."""
        if self.checkpoint_open:
            raise self.game.fault(Reason.BAD_CHECKPOINT, f"{what} came before every seat present had signed the "
                                  "last checkpoint: the host dealt on without it")
        if self.seal_open:
            raise self.game.fault(Reason.BAD_DECK_SEALED, f"{what} came before every seat present had signed the "
                                  "DeckSealed: the host may show the seats different decks")

    def on_hand_open(self, h: int, a: int) -> None:
        if (h, a) != self.next_attempt:
            want_h, want_a = self.next_attempt
            raise self.game.fault(Reason.BAD_DEAL_OPEN, f"the host opens hand {h} attempt {a}, but the rules give hand "
                                  f"{want_h} attempt {want_a} next: it may be choosing a deck among those it knows")
        self.redeal_called = False

    def on_action(self, action: str) -> None:
        if action == "bessere?":
            self.redeal_called = True

    def on_hand_end(self) -> None:
        self.next_attempt = (self.game.hand[0] + 1, 0)

    def on_attempt_aborted(self, p: Any) -> None:
        """A redeal moves to the next attempt's deck: only after a `bessere?` of this attempt that forces one."""
        rules = self.game.rules
        assert rules is not None
        if ((int(p.hand), int(p.attempt)) != self.game.hand or p.reason != "bessere-redeal"
                or rules.bessere != "redeal-penalty" or not self.redeal_called):
            raise self.game.fault(Reason.BAD_ABORT, "the host ends the deal attempt without a redeal the rules give: "
                                  "it may be moving on to a deck it likes better")
        self.next_attempt = (int(p.hand), int(p.attempt) + 1)

    def _commit(self) -> None:
        game = self.game
        kept = game.kept_secret(GAME_KEY)
        # A key is drawn once per game and written to disk before its commitment leaves (a restart keeps it).
        self.my_key = kept[0] if kept is not None else game.random_bytes(32)
        if kept is None:
            game.keep_secret(GAME_KEY, self.my_key, b"")
        commitment = seat_key_commitment(game.game_id, game.seat, game.header_hash, self.my_key)
        game.send(pb.KeyCommit(seat=game.seat, header_hash=game.header_hash, commitment=commitment))

    def on_key_set(self, signed: Signed) -> None:
        game = self.game
        entries = list(signed.payload.commits)
        if self.key_set or len(entries) != self.n or [int(e.seat) for e in entries] != list(range(self.n)):
            raise game.fault(Reason.BAD_KEY_SET, "the KeySet does not hold one entry per roster seat, in seat order")
        commitments = []
        for entry in entries:
            seat = int(entry.seat)
            raw = bytes(entry.envelope)
            try:
                inner = game.parsed(raw)  # (its own: as made, not parsed again)
            except ProtocolError:
                raise game.fault(Reason.BAD_KEY_SET, f"the KeySet's entry for seat {seat} does not parse") from None
            q = inner.payload
            if (inner.type != "KeyCommit" or inner.sender != seat or q.seat != seat
                    or inner.envelope.game_id != game.game_id or q.header_hash != game.header_hash
                    or len(q.commitment) != 32
                    or not (game.made_here(raw) or check_signature(inner, game.roster_keys[seat]))):
                raise game.fault(Reason.BAD_KEY_SET,
                                 f"the KeySet's entry for seat {seat} is not that seat's commitment "
                                 "for this game and header")
            commitments.append(bytes(q.commitment))
        mine = seat_key_commitment(game.game_id, game.seat, game.header_hash, self.my_key) if self.my_key else b""
        if commitments[game.seat] != mine and not game.observer:
            raise game.fault(Reason.BAD_KEY_SET, "the KeySet does not hold the key commitment this seat sent")
        game.take_embedded(bytes(entries[game.seat].envelope))
        self.commitments = commitments
        self.key_set = key_set_hash(game.game_id, game.header_hash, commitments)
        game.send(pb.KeySetSignature(seat=game.seat, key_set_hash=self.key_set))

    def _maybe_reveal(self) -> None:
        if self.revealed or len(self.key_set_signed) < self.n:
            return
        host_run_in = all(s in self.keys for s in range(self.n) if self.host_run[s])
        if not self.host_run[self.game.seat] and not host_run_in:
            return  # a person reveals only once every host-run seat has: the host's veto is then blind
        self.revealed = True
        game = self.game
        game.send(pb.KeyReveal(seat=game.seat, key=self.my_key, chain_seq=game.chain_seq,
                                chain_head=game.chain_head))

    def _on_reveal(self, seat: int, key: bytes) -> None:
        game = self.game
        if not self.commitments or len(key) != 32 or seat_key_commitment(
                game.game_id, seat, game.header_hash, key) != self.commitments[seat]:
            raise game.fault(Reason.BAD_KEY_REVEAL,
                             f"seat {seat}'s game key does not open its commitment in the KeySet")
        self.keys[seat] = key
        self._maybe_reveal()

    # ------------------------------------------------------------------ the deals, checked once S or k_H is known
    def on_deck_sealed(self, hand: tuple[int, int], commitments: list[bytes]) -> None:
        self.sealed[hand] = commitments
        self.seal_open, self.seal_signers = True, set()
        self.seal_expected = set(range(self.n)) - self.game.stood_in
        self.settle_seal()

    def on_hand_seed(self, signed: Signed) -> None:
        p = signed.payload
        hand = (int(p.hand), int(p.attempt))
        if hand not in self.sealed:
            raise self.game.fault(Reason.BAD_REVEAL, "a seed reveal for a hand that was never opened")
        self.seeds_seen[hand] = bytes(p.seed)
        self._check_deck(hand, bytes(p.seed))

    def on_host_key(self, signed: Signed) -> None:
        game = self.game
        key = bytes(signed.payload.key)
        if self.host_key:
            raise game.fault(Reason.BAD_REVEAL, "the host revealed its game key twice")
        if len(key) != 32 or host_key_commitment(game.game_id, key) != bytes(game.header.host_key_commitment):
            raise game.fault(Reason.HOST_KEY_MISMATCH, "the host's game key does not open K_H in the header")
        self.host_key = key
        for hand in sorted(self.sealed):
            secret = host_seed(key, game.game_id, *hand)
            if hand in self.seeds_seen and self.seeds_seen[hand] != secret:
                raise game.fault(Reason.SEED_MISMATCH, f"the seed revealed for hand {hand[0]} attempt {hand[1]} is not "
                                 "the one the host's key gives")
            self._check_deck(hand, secret)

    def _check_deck(self, hand: tuple[int, int], secret: bytes) -> None:
        game = self.game
        assert game.rules is not None
        # Unreachable as a refusal: a deck is only sealed (and so only checked) after a HandOpen, which SeatGame
        # refuses until every game key is in (seat.py, _on_HandOpen, "unexpected-message").
        assert len(self.keys) == self.n, "a deal was checked before every game key was revealed"
        h, a = hand
        keys = [self.keys[s] for s in range(self.n)]
        dk = deck_key(secret, all_seeds(keys, game.game_id, h, a), self.key_set, game.game_id, h, a)
        canonical = canonical_deck(game.rules.deck)
        deck = [canonical[j].text for j in deck_permutation(dk, len(canonical))]
        if seal_deck(secret, game.game_id, h, a, deck) != self.sealed[hand]:
            raise game.fault(Reason.DEAL_MISMATCH, f"the deck of hand {h} attempt {a} does not follow from every "
                             "seat's game key and the host's")
        self.decks_checked += 1
