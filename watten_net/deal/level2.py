"""Level 2 of docs/protocol.md: the trustless deal, as the host runs it (nobody, the host included, sees a hidden card).

Decks are shuffled ahead (docs/protocol.md Level 2 step 2). Deck d is the deck of the game's d-th deal attempt, whatever
its hand: DeckPrepare(d); every seat's KeyShare; every seat's Shuffle in the deck's order, each checked against the
deck before it; then the deck is sealed. The preparation of deck d + 1 opens as soon as attempt d's first cards are
all delivered, so it runs while that hand is played, and the next attempt (a new hand, a redeal or the attempt after
a forfeit) finds its deck sealed. An attempt (h, a): TrustlessDealOpen naming its deck; once that deck is sealed the
engine (`PublicMatch`) takes over: the cutter's live cut, and for every card the engine shows a seat (Schlecken) or
deals it, a ShareRequest that every other seat answers with its DecryptionShares, so that only the recipient can
finish the decryption. Played cards, Maschine claims and hand-end openings come with their owner's share in the
ActionRequest (see `open_cards`).

Why this implements the `Dealing` seam rather than a second one: the seam's questions are still the right ones
(open an attempt, take the seats' dealing messages, say when the deck is ready, turn the engine's card events into
deliveries, react to people away, forfeit), so HostGame keeps one flow for both levels. What does not carry over
is said where it differs: `ReadyDeck.cards` is empty (nobody knows the order; the engine gets only its size), the
cut is the cutter's live action instead of a committed one, `opening()` is never used (the owner opens its card
with its own share, checked by `open_cards`), `deliver()` gets the engine's *public* deal, see and open? events and
answers with ShareRequests, and there is nothing to `reveal()`.

Host-side state holds no secret of any seat: `PublicDeal` keeps only public keys, ciphertexts and published shares.
A card is opened here only when its owner publishes its own share.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar

from watten_net.engine import Card, Rules, RuleViolation, canonical_deck
from watten_net.engine.errors import no_card
from watten_net.engine.event_data import event_data
from watten_net.engine.events import Event, EventKind
from watten_net.engine.notation import Phase as MatchPhase
from watten_net.engine.notation import Verb
from watten_net.engine.public import PublicMatch
from watten_net.hashing import H
from watten_net.refusal import Code, Reason
from watten_net.trustless import DealId, DealSetup, DealStateError, Phase, PublicDeal, TrustlessError
from watten_net.trustless.messages import DecryptionShareMessage, KeyShareMessage, ShuffleMessage
from watten_net.v1 import watten_pb2 as pb

from .dealing import Dealing, Post, ReadyDeck
from .protocol import ProtocolError, Signed
from .steps import DealStep, Stage

# Reasons of the trustless deal that say a message was malformed rather than against the protocol.
_MALFORMED = {Reason.MALFORMED, Reason.INVALID_POINT, Reason.NON_CANONICAL_SCALAR}
# Engine refusals of a card opening that prove the sender cheated (not a mere out-of-turn or stale action).
CHEAT_REASONS = frozenset({
    Reason.NOT_YOUR_POSITION, Reason.POSITION_PLAYED, Reason.POSITION_ASIDE, Reason.CARD_SEEN_TWICE,
    Reason.OPENING_MISMATCH, Reason.NOT_IN_DECK, Reason.NOT_A_MASCHINE, Reason.WRONG_POSITIONS,
})


class ShareWhy(StrEnum):
    """What the shares a ShareRequest asks for open (`ShareRequest.why`)."""

    DEAL = "deal"  # cards dealt to the recipient
    SEE = "see"  # the card the recipient is shown at the Schlecken
    OPEN = "open"  # the recipient's cards that a decided hand's obligations need opened


# ---------------------------------------------------------------------------------------------- shared rules


def first_dealer(game_id: bytes, n: int) -> int:
    """The first dealer of a trustless game: chosen by nobody alone (the game id mixes the host's nonce and every
    seat's join nonce). There is no deck key to take it from, as Level 1 does."""
    return int.from_bytes(H("trustless-first-dealer", game_id)[:4], "big") % n


def shuffle_order(dealer: int, n: int) -> tuple[int, ...]:
    """Every seat shuffles once, starting left of the dealer; the dealer shuffles last, as at a real table."""
    return tuple((dealer + 1 + i) % n for i in range(n))


def deck_shuffle_order(game_id: bytes, deck: int, n: int) -> tuple[int, ...]:
    """The shuffle order of deck `deck`: fixed by its number alone, because a deck is prepared before anybody knows
    which attempt (and so which dealer) will use it. It is the order of hand `deck` when no attempt was repeated
    (starting left of that hand's dealer, who shuffles last); one honest shuffle suffices, so only fixing it matters."""
    return shuffle_order((first_dealer(game_id, n) + deck) % n, n)


def deck_setup(game_id: bytes, deck: int, rules: Rules) -> DealSetup:
    """The public parameters of deck `deck`: its proofs are bound to the deck number (`DealId.prepared`), not to a
    hand and attempt, so neither a redeal nor a forfeit can make a prepared deck unusable."""
    return DealSetup(DealId.prepared(game_id, deck), rules.players, rules.deck,
                     deck_shuffle_order(game_id, deck, rules.players))


def is_sealed(deal: PublicDeal) -> bool:
    """Every seat has shuffled the deck (its cut, always 0 here, is applied at once)."""
    return deal.phase is Phase.DEALING


def can_forfeit(absent: set[int], n: int) -> bool:
    """A hand can be forfeited for absence: a seat is away (every trustless hand needs every seat), and somebody is
    there (while nobody at all is there, the table just waits)."""
    return bool(absent) and len(absent) < n


def trustless_error(err: TrustlessError, what: str) -> ProtocolError:
    """The one place the trustless maths' failure becomes a refusal: its reason as it is, the code by the reason."""
    code = Code.INVALID if err.reason in _MALFORMED else Code.PRECONDITION
    return ProtocolError(code, err.reason, f"{what}: {err}", err.seat)


def forfeit_hand(match: PublicMatch, seat: int) -> tuple[PublicMatch, list[Event]]:
    """`seat`'s side loses the current hand at its current value, at any moment of it.

    Level 1 forfeits only while the deck is being made; a trustless hand also stops when a seat goes away after
    the deal, because nobody can give its shares or play its cards. The same ending (obligations still settle).
    """
    return match.forfeit(seat, after_the_deal=True)


def no_openings(match: PublicMatch, absent: set[int]) -> tuple[PublicMatch, list[Event]]:
    """While a hand settles: every seat away that still owes openings has not opened them (the engine's rule)."""
    events: list[Event] = []
    for seat in sorted(absent):
        if match.phase == MatchPhase.SETTLE and seat in match.openings_wanted:
            match, more = match.no_opening(seat)
            events += more
    return match, events


def forfeit_for_absence(match: PublicMatch, seat: int, absent: set[int]) -> tuple[PublicMatch, list[Event]]:
    """A seat the hand needs is away: its side forfeits the hand; then seats away owe no openings."""
    match, events = forfeit_hand(match, seat)
    match, more = no_openings(match, absent)
    return match, events + more


# ---------------------------------------------------------------------------------------------- the host


@dataclass
class ShareAsk:
    """An open ShareRequest (why "deal" or "see"): every seat but `recipient` owes its share of each position."""

    hash: bytes
    recipient: int
    positions: tuple[int, ...]
    why: ShareWhy


@dataclass
class TrustlessAttempt:
    """One deal attempt of Level 2 on the host's side: its public deal and the shares asked for and given so far."""

    hand: int
    attempt: int
    dealer: int
    deal: PublicDeal
    deck: int  # the number of the deck it uses (its DeckPrepare came before its TrustlessDealOpen)
    closed: bool = False  # ended (hand end, redeal, forfeit): nothing more is accepted for it
    dealt: bool = False  # a ShareRequest why "deal" of it is complete (its first cards are out)
    asks: list[ShareAsk] = field(default_factory=list)
    # Who has learnt each position (recipients of completed asks): such a seat shares that position only sealed.
    learnt: dict[int, set[int]] = field(default_factory=dict)
    # Sealed shares given: (position, recipient) -> the seats that sealed theirs to the recipient.
    sealed: dict[tuple[int, int], set[int]] = field(default_factory=dict)


class TrustlessDealing(Dealing):
    """The host's side of docs/protocol.md Level 2 (the trustless deal): the seats shuffle and open the cards among
    themselves, so the host knows no card; it checks their messages and asks for the shares each card needs."""

    mode = "trustless"
    message_types = frozenset({"KeyShare", "Shuffle", "DecryptionShares"})
    # Shares are asked for while the hand is played; the next deck is prepared while a hand is played and between
    # hands (until the checkpoint is signed).
    phases = (Stage.DEAL, Stage.PLAY, Stage.CHECKPOINT)

    def __init__(self, rules: Rules, game_id: bytes, post: Post, absent: set[int]) -> None:
        self.rules = rules
        self.n = rules.players
        self.game_id = game_id
        self.post = post
        self.absent = absent  # HostGame's set (shared)
        self.canonical = canonical_deck(rules.deck)
        self.attempts: list[TrustlessAttempt] = []
        # Decks being prepared or sealed and not given up, by number; deck d is attempt d's (`attempts[d]`). A deck
        # leaves when its attempt ends (used, or never sealed) and when the match ends (abandoned, never revealed).
        self.decks: dict[int, PublicDeal] = {}
        self.prepared = 0  # how many DeckPrepare were posted: the next one is for this deck number
        self._ready: ReadyDeck | None = None
        self._forfeit: int | None = None

    @property
    def current(self) -> TrustlessAttempt:
        return self.attempts[-1]

    @property
    def dealing(self) -> bool:
        """Cards are on their way (an ask is incomplete): the host accepts no game action but a Maschine or an
        opening until every share is in, so nobody acts before the cards they are owed have reached them."""
        return bool(self.attempts) and bool(self.current.asks)

    # ------------------------------------------------------------------ the deal
    def _prepare(self, deck: int) -> list[Any]:
        """Open the preparation of deck `deck` (the next number): the seats' key shares and shuffles follow."""
        assert deck == self.prepared, (deck, self.prepared)
        setup = deck_setup(self.game_id, deck, self.rules)
        self.decks[deck] = PublicDeal(setup)
        self.prepared += 1
        return [self.post(pb.DeckPrepare(deck=deck, deck_size=self.rules.deck, shuffle_order=list(setup.shufflers)))]

    def open_attempt(self, hand: int, attempt: int, dealer: int | None) -> list[Any]:
        """Attempt number len(attempts) uses the deck of that number: prepared ahead (sealed, or still being
        shuffled), or, when the attempt before ended before its first cards were out, prepared from now on."""
        assert dealer is not None, "a trustless game knows its dealer from the start"
        deck = len(self.attempts)
        out = self._prepare(deck) if deck == self.prepared else []
        deal = self.decks[deck]
        self.attempts.append(TrustlessAttempt(hand, attempt, dealer, deal, deck))
        out.append(self.post(pb.TrustlessDealOpen(hand=hand, attempt=attempt, dealer=dealer, deck_size=self.rules.deck,
                                                  deck=deck)))
        # A seat away does not forfeit an attempt that opens now: the table waits for it (the host forfeits the hand
        # only after waiting a grace period more, `HostGame.forfeit_away`), so a person back soon loses nothing.
        if is_sealed(deal):
            self._ready = ReadyDeck((), (), dealer)  # shuffled ahead: dealing starts at once
        return out

    def on_message(self, seat: int, signed: Signed) -> list[Any]:
        p = signed.payload
        if p.seat != seat:
            # The same fault, and the same answer, as Level 1's KeyCommit naming another seat (docs/trustless.md §T5).
            raise ProtocolError(Code.PERMISSION, Reason.WRONG_SEAT, "the message names another seat than its sender")
        deck_handler = self.DECK_HANDLERS.get(signed.type)
        if deck_handler is not None:
            deal = self.decks.get(int(p.deck))
            if deal is None:
                raise ProtocolError(Code.PRECONDITION, Reason.UNEXPECTED_MESSAGE,
                                    f"{signed.type}: deck {p.deck} is not being prepared (used, given up or not yet "
                                    "opened)")
            return deck_handler(self, seat, p, signed, deal)
        if not self.attempts or self.current.closed:
            raise ProtocolError(Code.PRECONDITION, Reason.UNEXPECTED_MESSAGE, f"{signed.type}: no deal attempt is open")
        att = self.current
        if p.hand != att.hand or p.attempt != att.attempt:
            raise ProtocolError(Code.PRECONDITION, Reason.WRONG_HAND, "the message is for another hand or attempt")
        return self._on_DecryptionShares(seat, p, signed)

    def _relay(self, seat: int, signed: Signed) -> Any:
        return self.post(pb.Relay(seat=seat, envelope=signed.raw))

    def _on_KeyShare(self, seat: int, p: Any, signed: Signed, deal: PublicDeal) -> list[Any]:
        if seat in deal.key_shares:
            raise ProtocolError(Code.PRECONDITION, Reason.UNEXPECTED_MESSAGE, "you have sent your key share already")
        try:
            deal.accept_key_share(seat, KeyShareMessage.from_bytes(bytes(p.message)))
        except TrustlessError as err:
            raise trustless_error(err.blaming(seat) if err.seat is None else err, "key share refused") from None
        return [self._relay(seat, signed)]

    def _on_Shuffle(self, seat: int, p: Any, signed: Signed, deal: PublicDeal) -> list[Any]:
        if deal.next_shuffler() != seat or len(deal.key_shares) < self.n:
            raise ProtocolError(Code.PRECONDITION, Reason.OUT_OF_TURN,
                                f"not your turn to shuffle (waiting for seat {deal.next_shuffler()})")
        try:
            deal.accept_shuffle(seat, ShuffleMessage.from_bytes(bytes(p.message)))
        except TrustlessError as err:
            raise trustless_error(err.blaming(seat) if err.seat is None else err, "shuffle refused") from None
        out = [self._relay(seat, signed)]
        if deal.next_shuffler() is None:
            # Every seat has shuffled: the deck is sealed. Positions are the engine's (before the cut), so the deal's
            # own rotation stays 0 and the engine's live "cut N" decides who gets which position.
            deal.apply_cut(0)
            if self.attempts and self.current.deal is deal and not self.current.closed:
                self._ready = ReadyDeck((), (), self.current.dealer)  # its attempt was waiting for it
        return out

    # The messages that prepare a deck (the rest, DecryptionShares, belong to the open deal attempt).
    DECK_HANDLERS: ClassVar[dict[str, Callable[[TrustlessDealing, int, Any, Signed, PublicDeal], list[Any]]]] = {
        "KeyShare": _on_KeyShare, "Shuffle": _on_Shuffle,
    }

    def _on_DecryptionShares(self, seat: int, p: Any, signed: Signed) -> list[Any]:
        att = self.current
        ask = next((a for a in att.asks if a.hash == p.request_hash), None)
        if ask is None:
            raise ProtocolError(Code.PRECONDITION, Reason.UNEXPECTED_MESSAGE, "the shares answer no open share request")
        if seat == ask.recipient:
            raise ProtocolError(Code.PRECONDITION, Reason.OWN_CARD,
                                "a seat never shares the cards dealt to itself", seat)
        if not p.shares and not p.sealed:
            raise ProtocolError(Code.INVALID, Reason.BAD_PAYLOAD, "no shares in the answer")
        deal = att.deal
        public: list[DecryptionShareMessage] = []
        seen: set[int] = set()
        for data in p.shares:
            try:
                message = DecryptionShareMessage.from_bytes(bytes(data))
                k = message.position
                if k not in ask.positions or k in seen:
                    raise ProtocolError(Code.PRECONDITION, Reason.NOT_ASKED,
                                        f"position {k} is not asked for here", seat)
                if seat in att.learnt.get(k, ()):
                    raise ProtocolError(Code.PRECONDITION, Reason.MUST_SEAL,
                                        f"you know the card at {k}: a public share would open it to everyone", seat)
                if seat in deal.shares_at(k):
                    raise ProtocolError(Code.PRECONDITION, Reason.UNEXPECTED_MESSAGE,
                                        f"you have shared position {k} already")
                deal.check_decryption_share(seat, message)
            except TrustlessError as err:
                raise trustless_error(err.blaming(seat) if err.seat is None else err, "share refused") from None
            seen.add(k)
            public.append(message)
        sealed: list[int] = []
        for entry in p.sealed:
            k = int(entry.position)
            if k not in ask.positions or k in seen or entry.recipient != ask.recipient or not entry.box:
                raise ProtocolError(Code.PRECONDITION, Reason.NOT_ASKED,
                                    f"a sealed share for position {k} is not due", seat)
            if seat not in att.learnt.get(k, ()) or seat in att.sealed.get((k, ask.recipient), ()):
                raise ProtocolError(Code.PRECONDITION, Reason.UNEXPECTED_MESSAGE,
                                    f"no sealed share of position {k} is due")
            seen.add(k)
            sealed.append(k)
        for message in public:
            deal.accept_decryption_share(seat, message)
        for k in sealed:
            att.sealed.setdefault((k, ask.recipient), set()).add(seat)
        out = [self._relay(seat, signed)]
        out += self._complete_asks()
        return out

    def _missing(self, ask: ShareAsk) -> dict[int, tuple[int, ...]]:
        """The seats that still owe a share for each position of `ask` (only positions that lack some)."""
        att = self.current
        out = {}
        for k in ask.positions:
            have = set(att.deal.shares_at(k)) | att.sealed.get((k, ask.recipient), set())
            owe = tuple(s for s in range(self.n) if s != ask.recipient and s not in have)
            if owe:
                out[k] = owe
        return out

    def _complete_asks(self) -> list[Any]:
        """Close the asks whose shares are all in. Once the attempt's first cards are all out (no ask open after a
        "deal" one was answered), the next deck's preparation opens: it runs while this hand is played."""
        att = self.current
        for ask in list(att.asks):
            if not self._missing(ask):
                att.asks.remove(ask)
                att.dealt = att.dealt or ask.why == ShareWhy.DEAL
                for k in ask.positions:
                    att.learnt.setdefault(k, set()).add(ask.recipient)
        if att.dealt and not att.asks and not att.closed and self.prepared == att.deck + 1:
            return self._prepare(att.deck + 1)
        return []

    def take_ready_deck(self) -> ReadyDeck | None:
        ready, self._ready = self._ready, None
        return ready

    def waiting(self) -> tuple[DealStep, tuple[int, ...]]:
        if not self.attempts or self.current.closed:
            return DealStep.NONE, ()
        deal = self.current.deal
        if deal.phase is Phase.KEYS:  # (the attempt's deck was not prepared ahead, or not finished)
            return DealStep.KEYS, tuple(s for s in range(self.n) if s not in deal.key_shares and s not in self.absent)
        shuffler = deal.next_shuffler()
        if shuffler is not None:
            return DealStep.SHUFFLE, (shuffler,) if shuffler not in self.absent else ()
        owing: set[int] = set()
        for ask in self.current.asks:
            for seats in self._missing(ask).values():
                owing.update(seats)
        return (DealStep.SHARES, tuple(sorted(owing - self.absent))) if owing else (DealStep.NONE, ())

    # ------------------------------------------------------------------ cards
    def opening(self, position: int, card: str) -> Any:
        # (never called: HostGame asks the Level 1 dealer only; a trustless card is opened by its owner's share)
        raise NotImplementedError("in a trustless deal the owner opens its card itself (open_cards)")

    def deliver(self, event: Event) -> list[Any]:
        """The engine's public deal map, Schlecken card and hand-end openings become ShareRequests."""
        att = self.current
        if event.kind == EventKind.DEAL:
            asks = [(event.seat, tuple(event_data(event, EventKind.DEAL)["positions"]), ShareWhy.DEAL)]
        elif event.kind == EventKind.SEE:
            asks = [(event.seat, (int(event_data(event, EventKind.SEE)["position"]),), ShareWhy.SEE)]
        elif event.kind == EventKind.OPEN_ASK:
            wanted = event_data(event, EventKind.OPEN_ASK)["positions"]
            asks = [(int(s), tuple(p), ShareWhy.OPEN) for s, p in sorted(wanted.items(), key=lambda i: int(i[0]))]
        else:
            return []
        out = []
        for recipient, positions, why in asks:
            posted = self.post(pb.ShareRequest(hand=att.hand, attempt=att.attempt, recipient=recipient,
                                               positions=list(positions), why=why))
            out.append(posted)
            if why != ShareWhy.OPEN:
                att.asks.append(ShareAsk(posted.hash, recipient, positions, why))
        out += self._complete_asks()  # a position shown to its recipient before (a kept Schlecken card) needs nothing
        return out

    def open_cards(self, seat: int, openings: Sequence[Any]) -> dict[int, Card]:
        """Check the openings of an ActionRequest (TrustlessOpening list) of `seat` and decrypt them, recording
        nothing: each share's proof, that the owner's own share is there and any other share is one sealed to it,
        and that the decrypted card is the one claimed. Returns position -> card; `record_openings` commits."""
        att = self.current
        deal = att.deal
        cards: dict[int, Card] = {}
        for opening in openings:
            k = int(opening.position)
            extra: dict[int, Any] = {}
            try:
                for data in opening.shares:
                    message = DecryptionShareMessage.from_bytes(bytes(data))
                    sender = message.seat
                    if message.position != k or sender in extra:
                        raise ProtocolError(Code.INVALID, Reason.BAD_OPENING,
                                            f"a share in the opening of {k} is misplaced",
                                            seat)
                    if sender != seat and sender not in att.sealed.get((k, seat), ()):
                        raise ProtocolError(Code.PRECONDITION, Reason.BAD_OPENING,
                                            f"seat {sender}'s share of position {k} was never sealed to you", seat)
                    deal.check_decryption_share(sender, message)
                    extra[sender] = message.share
                if seat not in extra:
                    raise ProtocolError(Code.INVALID, Reason.NO_OPENING,
                                        f"the opening of {k} lacks your own share", seat)
                card = self.canonical[deal.card_with(k, extra)]
            except TrustlessError as err:
                # A share that does not verify: the seat that put it in the opening answers for it.
                raise trustless_error(err.blaming(seat), "opening refused") from None
            except DealStateError:
                raise ProtocolError(Code.PRECONDITION, Reason.INCOMPLETE_OPENING,
                                    f"position {k} lacks a share: an opening carries the owner's share and every "
                                    "share sealed to it", seat) from None
            if card.text != Card.parse(opening.card).text:
                raise ProtocolError(Code.PRECONDITION, Reason.OPENING_MISMATCH,
                                    f"position {k} holds another card than {opening.card}", seat)
            cards[k] = card
        return cards

    def record_openings(self, openings: Sequence[Any]) -> None:
        deal = self.current.deal
        for opening in openings:
            for data in opening.shares:
                message = DecryptionShareMessage.from_bytes(bytes(data))
                deal.accept_decryption_share(message.seat, message)

    def close_attempt(self) -> None:
        """The hand (or attempt) is over: nothing more is dealt or opened for it, and its deck is never used again
        (a deck it left unsealed is given up: later key shares and shuffles for it are refused)."""
        if self.attempts:
            self.current.closed = True
            self.current.asks.clear()
            self.decks.pop(self.current.deck, None)
        self._ready = None

    def end_match(self) -> None:
        """The match is over: the deck prepared ahead (if any) is abandoned; nothing about it is ever revealed."""
        self.close_attempt()
        self.decks.clear()

    def reveal(self, final: bool) -> list[Any]:
        return []  # nothing to reveal: no secret of a trustless deal was ever the host's

    def on_absent(self) -> list[Any]:
        """A seat the attempt needs is away (and somebody is there): its side forfeits the attempt."""
        if not self.attempts or self.current.closed or not can_forfeit(self.absent, self.n):
            return []
        att = self.current
        seat = min(self.absent)
        self.close_attempt()
        self._forfeit = seat
        return [self.post(pb.AttemptAborted(hand=att.hand, attempt=att.attempt, reason="away", seat=seat))]

    def take_forfeit(self) -> int | None:
        seat, self._forfeit = self._forfeit, None
        return seat


def parse_openings(openings: Sequence[Any]) -> dict[int, str]:
    """TrustlessOpening list -> {position: card text} as the engine takes it (refusing duplicates)."""
    out: dict[int, str] = {}
    for opening in openings:
        k = int(opening.position)
        if k in out:
            raise ProtocolError(Code.INVALID, Reason.BAD_OPENING, f"position {k} is opened twice")
        try:
            out[k] = Card.parse(str(opening.card)).text
        except ValueError:
            raise ProtocolError(Code.INVALID, Reason.BAD_CARD, f"{opening.card!r} is no card") from None
    return out


def engine_step(match: PublicMatch, seat: int, action: str, openings: Mapping[int, str]) -> tuple[PublicMatch,
                                                                                                     list[Event]]:
    """One action on the public engine, its openings passed the way the engine takes them."""
    verb = action.split(" ", 1)[0].lower() if action else ""
    if verb == Verb.PLAY:
        # The card's spelling first, as in Level 1 (`play XX` is `bad-card` at every level), then its one opening.
        _, _, written = action.partition(" ")
        try:
            played = Card.parse(written).text
        except ValueError:
            raise no_card(written, ValueError(f"{action!r} names no card")) from None
        if len(openings) != 1:
            raise RuleViolation(Reason.NO_POSITION, "a played card comes with exactly one opening")
        ((position, card),) = openings.items()
        if played != card:
            raise RuleViolation(Reason.OPENING_MISMATCH, f"the action plays {played} but opens {card}")
        return match.apply(seat, action, position=position)
    if verb in (Verb.MASCHINE, Verb.OPEN):
        return match.apply(seat, verb, openings=dict(openings))
    if openings:
        raise RuleViolation(Reason.MALFORMED, "only a played card, a Maschine and a hand-end opening carry openings")
    return match.apply(seat, action)
