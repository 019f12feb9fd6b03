"""The trustless deal as a sans-I/O session: what every party checks, and what one seat does with its secret.

One deal (hand, attempt) runs in four phases:

1. **keys**: every seat publishes ``X_i`` with a Schnorr proof; the joint key is ``Σ X_i`` and
   the canonical deck is its trivial encryption (card j at position j, public randomness 1);
2. **shuffling**: the seats, in ``shuffle_order``, each publish a permuted re-encryption of the
   current deck with a shuffle proof that all others verify;
3. **cutting**: the cut is a public rotation (position k of the cut deck is position
   ``(k + offset) mod N`` of the shuffled deck): harmless, because nobody knows the order;
4. **dealing**: a position goes to seat s when every other seat publishes its decryption share
   with a Chaum-Pedersen proof; only s, holding the last secret, learns the card. A card is
   opened when its owner publishes its own share too: then anybody can decrypt it.

:class:`PublicDeal` holds and checks the public state (the host and any observer use it alone);
:class:`SeatDeal` adds one seat's secret. Nothing here sends or receives: the caller passes each
message with the seat that signed its envelope, and every refusal is a :class:`TrustlessError`
whose ``seat`` is that sender. Messages from one's own seat are recorded, not re-verified.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from enum import Enum

from watten_net.trustless.context import DealId
from watten_net.trustless.elgamal import (
    Ciphertext,
    card_index,
    decryption_share,
    finish_decryption,
    initial_deck,
)
from watten_net.trustless.errors import DealStateError, Reason, TrustlessError
from watten_net.trustless.group import IDENTITY, Draw, Point, base_mul, point_sum, random_scalar
from watten_net.trustless.messages import (
    DecryptionShareMessage,
    KeyShareMessage,
    Message,
    ShuffleMessage,
    decode_message,
)
from watten_net.trustless.proofs import ShareStatement, check_key, check_share, prove_key, prove_share
from watten_net.trustless.shuffle import ShuffleStatement, failed_shuffle_checks, prove_shuffle, shuffle

SEAT_COUNTS = (2, 3, 4, 6)
DECK_SIZES = (32, 33)
KEY_PURPOSE = "deal-key"
"""The purpose bound into the key-share Schnorr proofs."""


class Phase(Enum):
    """The phases of one trustless deal, in order: key shares, shuffles, the cut, the dealing of cards."""

    KEYS = "keys"
    SHUFFLING = "shuffling"
    CUTTING = "cutting"
    DEALING = "dealing"


@dataclass(frozen=True, slots=True)
class DealSetup:
    """The public parameters of one deal. ``shuffle_order`` lists every seat once (default: 0, 1, ..., n-1)."""

    deal: DealId
    n_seats: int
    n_cards: int
    shuffle_order: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if self.n_seats not in SEAT_COUNTS:
            raise ValueError(f"{self.n_seats} seats; the trustless deal supports {SEAT_COUNTS}")
        if self.n_cards not in DECK_SIZES:
            raise ValueError(f"a deck of {self.n_cards} cards; the trustless deal supports {DECK_SIZES}")
        if self.shuffle_order is not None and sorted(self.shuffle_order) != list(range(self.n_seats)):
            raise ValueError(f"shuffle order {self.shuffle_order} must list each of the {self.n_seats} seats once")

    @property
    def shufflers(self) -> tuple[int, ...]:
        return self.shuffle_order if self.shuffle_order is not None else tuple(range(self.n_seats))


@contextmanager
def _blaming(seat: int) -> Iterator[None]:
    """Attribute any unattributed TrustlessError raised inside to ``seat``, the sender being checked."""
    try:
        yield
    except TrustlessError as exc:
        if exc.seat is None:
            raise exc.blaming(seat) from exc
        raise  # (an error that names its seat already keeps it; no check inside a `_blaming` block names one today)


class PublicDeal:
    """The public state of one deal and every check on it; holds no secret."""

    def __init__(self, setup: DealSetup) -> None:
        self.setup = setup
        self.key_shares: dict[int, Point] = {}
        self._joint_key: Point | None = None
        self._shuffles: list[tuple[int, tuple[Ciphertext, ...]]] = []
        self._initial: tuple[Ciphertext, ...] = ()
        self.cut_offset: int | None = None
        self._dealt: tuple[Ciphertext, ...] = ()
        self._shares: dict[int, dict[int, Point]] = {}

    # --- state ------------------------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        if self._joint_key is None:
            return Phase.KEYS
        if len(self._shuffles) < self.setup.n_seats:
            return Phase.SHUFFLING
        return Phase.CUTTING if self.cut_offset is None else Phase.DEALING

    @property
    def joint_key(self) -> Point:
        if self._joint_key is None:
            raise DealStateError("the joint key needs every seat's key share")
        return self._joint_key

    @property
    def deck(self) -> tuple[Ciphertext, ...]:
        """The current deck: canonical, then after each shuffle, then cut (positions as dealt)."""
        if self.phase is Phase.KEYS:
            raise DealStateError("no deck before every key share is in")
        if self._dealt:
            return self._dealt
        return self._shuffles[-1][1] if self._shuffles else self._initial

    @property
    def sealed_deck(self) -> tuple[Ciphertext, ...]:
        """The deck after the last shuffle and before the cut: what every seat can co-sign as the sealed deck."""
        if self.phase not in (Phase.CUTTING, Phase.DEALING):
            raise DealStateError("the deck is sealed only once every seat has shuffled")
        return self._shuffles[-1][1]

    def next_shuffler(self) -> int | None:
        """The seat whose shuffle comes next (None once all have shuffled)."""
        done = len(self._shuffles)
        return self.setup.shufflers[done] if done < self.setup.n_seats else None

    def shares_at(self, position: int) -> Mapping[int, Point]:
        """The verified decryption shares published for ``position``, by seat."""
        return dict(self._shares.get(position, {}))

    # --- receiving ------------------------------------------------------------------------------------

    def accept(self, sender: int, data: bytes) -> Message:
        """Decode a message from ``sender`` (the envelope's signer), check it and record it."""
        self._check_sender(sender)
        with _blaming(sender):
            message = decode_message(data)
        if isinstance(message, KeyShareMessage):
            self.accept_key_share(sender, message)
        elif isinstance(message, ShuffleMessage):
            self.accept_shuffle(sender, message)
        else:
            self.accept_decryption_share(sender, message)
        return message

    def accept_key_share(self, sender: int, message: KeyShareMessage) -> None:
        """Check and record a key share; the last one fixes the joint key and the canonical deck."""
        self._check_sender(sender)
        with _blaming(sender):
            self._check_context(message.deal, message.seat, sender)
            known = self.key_shares.get(sender)
            if known is not None:
                if known != message.public_key:
                    raise TrustlessError(Reason.CONFLICTING_MESSAGE, "a second, different key share")
                return  # a repeat of an accepted share
            if not check_key(message.proof, message.public_key, self.setup.deal, sender, KEY_PURPOSE):
                raise TrustlessError(Reason.BAD_KEY_PROOF, "the Schnorr proof does not verify")
            self._record_key_share(sender, message.public_key)

    def accept_shuffle(self, sender: int, message: ShuffleMessage) -> None:
        """Check a shuffle against the current deck and make its output the current deck."""
        self._check_sender(sender)
        with _blaming(sender):
            self._check_context(message.deal, message.seat, sender)
            if any(seat == sender and deck == message.deck for seat, deck in self._shuffles):
                return  # a repeat of an accepted shuffle
            if self.phase is not Phase.SHUFFLING or self.next_shuffler() != sender:
                raise TrustlessError(Reason.OUT_OF_TURN, f"shuffle in phase {self.phase.value}, "
                                                         f"next shuffler {self.next_shuffler()}")
            if len(message.deck) != self.setup.n_cards:
                raise TrustlessError(Reason.MALFORMED, f"a deck of {len(message.deck)} cards")
            statement = ShuffleStatement(self.setup.deal, sender, self.joint_key, self.deck, message.deck)
            failures = failed_shuffle_checks(statement, message.proof)
            if failures:
                shown = ", ".join(failures[:6]) + (", ..." if len(failures) > 6 else "")
                raise TrustlessError(Reason.BAD_SHUFFLE_PROOF, f"failed equations: {shown}")
            self._record_shuffle(sender, message.deck)

    def apply_cut(self, offset: int, cutter: int | None = None) -> None:
        """Rotate the shuffled deck: the top ``offset`` cards go to the bottom (``cutter`` is blamed if invalid)."""
        if self.phase is not Phase.CUTTING:
            raise TrustlessError(Reason.OUT_OF_TURN, f"cut in phase {self.phase.value}", cutter)
        if type(offset) is not int or not 0 <= offset < self.setup.n_cards:
            raise TrustlessError(Reason.MALFORMED, f"cut offset {offset!r}", cutter)
        shuffled = self.deck
        self.cut_offset = offset
        self._dealt = shuffled[offset:] + shuffled[:offset]

    def accept_decryption_share(self, sender: int, message: DecryptionShareMessage) -> None:
        """Check a decryption share (Chaum-Pedersen against the sender's key share) and record it."""
        self.check_decryption_share(sender, message)
        self._shares.setdefault(message.position, {})[sender] = message.share

    def check_decryption_share(self, sender: int, message: DecryptionShareMessage) -> None:
        """Every check of :meth:`accept_decryption_share`, without recording the share (a caller that must refuse
        a whole request when any part of it fails checks all parts first)."""
        self._check_sender(sender)
        with _blaming(sender):
            self._check_context(message.deal, message.seat, sender)
            if self.phase is not Phase.DEALING:
                raise TrustlessError(Reason.OUT_OF_TURN, f"decryption share in phase {self.phase.value}")
            if not 0 <= message.position < self.setup.n_cards:
                raise TrustlessError(Reason.MALFORMED, f"position {message.position}")
            if self._shares.get(message.position, {}).get(sender) == message.share:
                return  # a repeat of an accepted share (a share is unique, whatever its proof)
            statement = self._share_statement(message.position, sender, message.share)
            if not check_share(message.proof, statement):
                raise TrustlessError(Reason.BAD_DECRYPTION_PROOF, f"position {message.position}")

    def card_with(self, position: int, extra: Mapping[int, Point]) -> int:
        """The card at ``position`` from the recorded shares plus ``extra`` (seat -> share, already checked with
        :meth:`check_decryption_share`), recording nothing. Raises DealStateError while a seat's share is missing."""
        shares = {**self._shares.get(position, {}), **extra}
        missing = [s for s in range(self.setup.n_seats) if s not in shares]
        if missing:
            raise DealStateError(f"position {position} lacks the shares of seats {missing}")
        return card_index(finish_decryption(self.deck[position], shares.values()), self.setup.n_cards)

    def open_card(self, position: int) -> int:
        """The card at ``position`` once every seat's share is in (the owner's share opens it)."""
        shares = self._shares.get(position, {})
        missing = [s for s in range(self.setup.n_seats) if s not in shares]
        if missing:
            raise DealStateError(f"position {position} lacks the shares of seats {missing}")
        return card_index(finish_decryption(self.deck[position], shares.values()), self.setup.n_cards)

    # --- internals -----------------------------------------------------------------------------------

    def _check_sender(self, sender: int) -> None:
        if type(sender) is not int or not 0 <= sender < self.setup.n_seats:
            raise ValueError(f"sender {sender!r} is no seat of a {self.setup.n_seats}-seat deal")

    def _check_context(self, deal: DealId, seat: int, sender: int) -> None:
        if deal != self.setup.deal:
            expected = self.setup.deal
            raise TrustlessError(Reason.WRONG_CONTEXT, f"message for {deal.describe()} of game "
                                 f"{deal.game_id.hex()[:16]}, expected {expected.describe()} "
                                 f"of {expected.game_id.hex()[:16]}")
        if seat != sender:
            raise TrustlessError(Reason.WRONG_CONTEXT, f"message names seat {seat} but was sent by seat {sender}")

    def _share_statement(self, position: int, seat: int, share: Point) -> ShareStatement:
        return ShareStatement(self.setup.deal, position, seat, self.key_shares[seat], self.deck[position], share)

    def _record_key_share(self, seat: int, public_key: Point) -> None:
        self.key_shares[seat] = public_key
        if len(self.key_shares) == self.setup.n_seats:
            joint = point_sum(self.key_shares[s] for s in range(self.setup.n_seats))
            if joint == IDENTITY:
                raise TrustlessError(Reason.DEGENERATE_KEY, "the key shares cancel out")
            self._joint_key = joint
            self._initial = initial_deck(self.setup.n_cards, joint)

    def _record_shuffle(self, seat: int, deck: tuple[Ciphertext, ...]) -> None:
        self._shuffles.append((seat, deck))

    def _record_share(self, position: int, seat: int, share: Point) -> None:
        self._shares.setdefault(position, {})[seat] = share


class SeatDeal:
    """One seat's side of a deal: its key share secret, its messages, and the cards it receives.

    ``public`` is this seat's own :class:`PublicDeal`; pass every other seat's message to it (or
    to :meth:`accept`). ``draw`` supplies all randomness (the secret is drawn first).
    """

    def __init__(self, setup: DealSetup, seat: int, draw: Draw = secrets.token_bytes) -> None:
        if not 0 <= seat < setup.n_seats:
            raise ValueError(f"seat {seat} is no seat of a {setup.n_seats}-seat deal")
        self.setup = setup
        self.seat = seat
        self.public = PublicDeal(setup)
        self._draw = draw
        self._secret = random_scalar(draw)
        self.public_key = base_mul(self._secret)
        self.cards: dict[int, int] = {}
        """Position → card index, for every position this seat has received."""

    def accept(self, sender: int, data: bytes) -> Message:
        """Check and record another seat's message (see :meth:`PublicDeal.accept`)."""
        return self.public.accept(sender, data)

    def key_share_message(self) -> KeyShareMessage:
        """This seat's key share with its proof (recorded in ``public``)."""
        proof = prove_key(self._secret, self.public_key, self.setup.deal, self.seat, KEY_PURPOSE, self._draw)
        if self.seat not in self.public.key_shares:
            self.public._record_key_share(self.seat, self.public_key)
        return KeyShareMessage(self.setup.deal, self.seat, self.public_key, proof)

    def shuffle_message(self) -> ShuffleMessage:
        """Shuffle the current deck and prove it; only on this seat's turn (recorded in ``public``)."""
        if self.public.phase is not Phase.SHUFFLING or self.public.next_shuffler() != self.seat:
            raise DealStateError(f"seat {self.seat} may not shuffle now (next: {self.public.next_shuffler()})")
        inputs = self.public.deck
        outputs, witness = shuffle(inputs, self.public.joint_key, self._draw)
        statement = ShuffleStatement(self.setup.deal, self.seat, self.public.joint_key, inputs, outputs)
        proof = prove_shuffle(statement, witness, self._draw)
        self.public._record_shuffle(self.seat, outputs)
        return ShuffleMessage(self.setup.deal, self.seat, outputs, proof)

    def delivery_share(self, position: int, recipient: int) -> DecryptionShareMessage:
        """This seat's share of ``position`` for delivering it to another seat, ``recipient``.

        Refuses ``recipient == seat``: publishing one's own share of one's own card opens it.
        """
        if recipient == self.seat:
            raise DealStateError("a seat's own share of its own card opens it; use opening_share")
        return self._share_message(position)

    def opening_share(self, position: int) -> DecryptionShareMessage:
        """This seat's own share of one of its positions: publishing it opens the card to everybody."""
        return self._share_message(position)

    def sealed_share(self, position: int) -> DecryptionShareMessage:
        """This seat's share of ``position`` for one recipient only (it travels encrypted to it): not recorded in
        ``public``, because it is not public. Used for a position this seat has received itself before."""
        return self._share_message(position, record=False)

    def receive_card(self, position: int) -> int:
        """The card at ``position``, from every other seat's (verified) share and this seat's secret."""
        shares = self.public.shares_at(position)
        missing = [s for s in range(self.setup.n_seats) if s != self.seat and s not in shares]
        if missing:
            raise DealStateError(f"position {position} lacks the shares of seats {missing}")
        ciphertext = self.public.deck[position]
        others = [share for seat, share in shares.items() if seat != self.seat]
        own = decryption_share(ciphertext, self._secret)
        card = card_index(finish_decryption(ciphertext, [*others, own]), self.setup.n_cards)
        self.cards[position] = card
        return card

    def _share_message(self, position: int, record: bool = True) -> DecryptionShareMessage:
        if self.public.phase is not Phase.DEALING:
            raise DealStateError("no decryption shares before the deck is cut")
        if not 0 <= position < self.setup.n_cards:
            # (every caller checks the position against the engine's deal map first; kept against misuse)
            raise ValueError(f"position {position} outside the {self.setup.n_cards}-card deck")
        ciphertext: Ciphertext = self.public.deck[position]
        share = decryption_share(ciphertext, self._secret)
        statement = ShareStatement(self.setup.deal, position, self.seat, self.public_key, ciphertext, share)
        proof = prove_share(statement, self._secret, self._draw)
        if record:
            self.public._record_share(position, self.seat, share)
        return DecryptionShareMessage(self.setup.deal, position, self.seat, share, proof)
