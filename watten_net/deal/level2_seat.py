"""A seat's side of a trustless game (docs/protocol.md Level 2), used by `SeatGame` when the header says so.

The seat keeps its own replay of the rules engine (`PublicMatch`, fed with exactly what the host's engine is fed:
every accepted action with its openings, every forfeit) and its own `SeatDeal` per deck. Decks are prepared ahead
(DeckPrepare): the key share and the shuffle of the next deck go out by themselves while the current hand is played,
queued in the outbox like every automatic answer, so they never hold up the seat's game moves. With them it checks
everything on arrival: every key share, shuffle and decryption share proof; that every ShareRequest asks only for a
position the engine shows or deals to its recipient *now* (so a second-packet share is never given before the trump
is in the chain, and never a share of one of its own cards); that every opened card decrypts to the card claimed;
that the host's events and scores are the engine's. It answers the protocol by itself (key share, shuffle, shares,
the Maschine claim, hand-end openings) into the SeatGame's outbox, and keeps its cards in `SeatGame.cards`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat
from nacl.bindings import (
    crypto_box,
    crypto_box_seal_open,
    crypto_box_seed_keypair,
    crypto_sign_ed25519_pk_to_curve25519,
    crypto_sign_ed25519_sk_to_curve25519,
    crypto_sign_seed_keypair,
)
from nacl.exceptions import CryptoError

from watten_net.engine import Card, RuleViolation, canonical_deck
from watten_net.engine.event_data import event_data
from watten_net.engine.events import Event, EventKind
from watten_net.engine.notation import Phase as MatchPhase
from watten_net.engine.notation import Verb
from watten_net.engine.public import PublicMatch
from watten_net.refusal import Code, HostBrokeProtocol, Reason
from watten_net.trustless import DealStateError, Phase, SeatDeal, TrustlessError
from watten_net.trustless.messages import DecryptionShareMessage, KeyShareMessage, ShuffleMessage
from watten_net.v1 import watten_pb2 as pb

from .level2 import (
    ShareWhy,
    deck_setup,
    deck_shuffle_order,
    engine_step,
    first_dealer,
    forfeit_for_absence,
    is_sealed,
    no_openings,
)
from .protocol import ProtocolError, Signed, event_to_pb, parse_envelope
from .share_asks import ShareAsks

if TYPE_CHECKING:
    from .seat import SeatGame

SECRET_LEN = 64  # bytes drawn for a SeatDeal's secret scalar (group.random_scalar)


def seal_share(data: bytes, recipient_key: bytes, ephemeral_seed: bytes) -> bytes:
    """A decryption share only `recipient_key`'s holder can read: libsodium's sealed box to its Ed25519 key as
    X25519 (`ephemeral pk || crypto_box(data, nonce = BLAKE2b-192(epk || rpk), esk, rpk)`, opened by
    `crypto_box_seal_open`), built here with the ephemeral key drawn from the seat's own randomness, so that a
    host bot's sealed share is rebuilt byte for byte from the host's journal after a crash."""
    recipient = crypto_sign_ed25519_pk_to_curve25519(recipient_key)
    ephemeral_public, ephemeral_secret = crypto_box_seed_keypair(ephemeral_seed)
    nonce = hashlib.blake2b(ephemeral_public + recipient, digest_size=24).digest()
    return bytes(ephemeral_public + crypto_box(data, nonce, recipient, ephemeral_secret))


def open_sealed(box: bytes, seed: bytes) -> bytes:
    public, secret = crypto_sign_seed_keypair(seed)
    return bytes(crypto_box_seal_open(box, crypto_sign_ed25519_pk_to_curve25519(public),
                                      crypto_sign_ed25519_sk_to_curve25519(secret)))


class TrustlessSeat:
    """The trustless half of one SeatGame (created when the GameHeader says deal = "trustless")."""

    def __init__(self, game: SeatGame) -> None:
        self.game = game
        rules = game.rules
        assert rules is not None
        self.rules = rules
        self.me = game.seat
        self.n = rules.players
        self.canonical = canonical_deck(rules.deck)
        self.kritische = frozenset(rules.kritische_cards)
        self.match = PublicMatch.new(rules, first_dealer=first_dealer(game.game_id, self.n))
        self.deal: SeatDeal | None = None  # the deck of the current attempt
        self.deck_no = -1  # its number
        # Decks prepared (or being prepared) and not given up, by number: the current attempt's and the next one.
        self.decks: dict[int, SeatDeal] = {}
        self.prepared = 0  # DeckPrepare envelopes seen: the next one must be for this deck number
        self.opened = 0  # TrustlessDealOpen envelopes seen: the next attempt must use this deck number
        self.known: dict[int, str] = {}  # every position this seat has decrypted this attempt
        self.sealed_in: dict[int, list[bytes]] = {}  # position -> shares other seats sealed to this seat (clear)
        self.seeing: tuple[int, int] | None = None  # (seat, position) of the card shown at Schlecken now
        self.claimed = False  # the Maschine of this attempt is claimed
        self.opened_for: bytes = b""  # the ShareRequest (why "open") this seat has answered
        # ShareRequests of this attempt that the chain shows answered by this seat (a Relay of its own shares).
        self.answered: set[bytes] = set()
        self.asks = ShareAsks()  # the attempt's open ShareRequests (why deal or see), as the host keeps them

    # ------------------------------------------------------------------ helpers
    def fault(self, reason: Reason, message: str, seat: int | None = None) -> HostBrokeProtocol:
        return self.game.fault(reason, message, seat)

    def _attempt_matches(self, p: Any) -> bool:
        return (int(p.hand), int(p.attempt)) == (self.match.hand_number, self.match.attempt)

    def _draw(self, deck: int) -> Callable[[int], bytes]:
        """Randomness for a deck's SeatDeal, all from the SeatGame's `random_bytes` (which a host journals for its
        bots): the secret is kept (secrets_dir) so that a restarted seat can still give its shares; everything else
        is fresh."""
        key = f"deck:{deck}"
        kept = self.game.kept_secret(key)
        material = kept[0] if kept is not None else self.game.random_bytes(SECRET_LEN)
        if kept is None:
            self.game.keep_secret(key, material, b"")
        first = [material]

        def draw(size: int) -> bytes:
            if first and size == SECRET_LEN:
                return first.pop()
            return self.game.random_bytes(size)

        return draw

    def _step(self, seat: int, action: str, openings: dict[int, str]) -> list[Event]:
        try:
            self.match, events = engine_step(self.match, seat, action, openings)
        except RuleViolation as err:
            raise self.fault(Reason.REPLAY_MISMATCH, f"the host accepted {action!r} of seat {seat}, which the rules "
                             f"refuse ({err.reason})") from None
        return events

    def _absorb(self, events: list[Event]) -> None:
        for e in events:
            if e.kind == EventKind.SEE:
                self.seeing = (e.seat, int(event_data(e, EventKind.SEE)["position"]))
            elif e.kind in (EventKind.TAKE, EventKind.KEEP, EventKind.DEAL):
                self.seeing = None

    # ------------------------------------------------------------------ host messages
    def on_deck_prepare(self, signed: Signed) -> None:
        """A deck is to be prepared: its number is the next attempt's (the host opens it when the attempt before has
        its first cards out, or right before the attempt), its order follows from the number. Send our key share at
        once (queued even while the host stands us in: it goes out when we are back; the deck waits for us)."""
        p = signed.payload
        d = int(p.deck)
        expected = deck_shuffle_order(self.game.game_id, d, self.n)
        if d != self.prepared or d != self.opened or p.deck_size != self.rules.deck \
                or tuple(p.shuffle_order) != expected:
            raise self.fault(Reason.BAD_DECK_PREPARE,
                             f"the preparation of deck {d} (order {list(p.shuffle_order)}) is not "
                             f"the one the protocol gives (deck {self.opened}, order {list(expected)})")
        self.prepared += 1
        deal = SeatDeal(deck_setup(self.game.game_id, d, self.rules), self.me, self._draw(d))
        self.decks[d] = deal
        message = deal.key_share_message()
        self.game.send(pb.KeyShare(deck=d, seat=self.me, message=message.to_bytes()))

    def on_deal_open(self, signed: Signed) -> None:
        p = signed.payload
        m = self.match
        d = self.opened
        if not self._attempt_matches(p) or m.phase != MatchPhase.DEAL or p.dealer != m.dealer \
                or p.deck_size != self.rules.deck or p.deck != d or d not in self.decks:
            raise self.fault(Reason.BAD_DEAL_OPEN,
                             f"the deal opening (hand {p.hand}.{p.attempt}, dealer {p.dealer}, deck "
                             f"{p.deck}) is not the one the rules give (hand {m.hand_number}.{m.attempt}, dealer "
                             f"{m.dealer}, deck {d}{'' if d in self.decks else ' prepared first'})")
        self.opened += 1
        self.deck_no = d
        self.deal = self.decks[d]
        self.known, self.sealed_in, self.seeing, self.claimed, self.opened_for = {}, {}, None, False, b""
        self.answered = set()
        self.asks = ShareAsks()
        self.game.cards = {}
        self.game.my_positions = set()
        self.game.played_positions = set()
        self.game.hand = (m.hand_number, m.attempt)
        # Shuffled ahead: the engine gets the sealed deck now, as the host's does.
        if is_sealed(self.deal.public):
            self.match = self.match.apply_sealed_deck(self.rules.deck)

    def on_relay(self, inner: Signed, sender: int) -> None:
        kind = inner.type
        if kind not in ("KeyShare", "Shuffle", "DecryptionShares"):
            return
        p = inner.payload
        d = int(p.deck) if kind != "DecryptionShares" else self.deck_no
        deal = self.decks.get(d) if kind != "DecryptionShares" else self.deal
        if kind == "DecryptionShares":
            if deal is None or not self._attempt_matches(p) or p.seat != sender:
                raise self.fault(Reason.BAD_RELAY,
                                 f"relayed shares of seat {sender} are not for this deal attempt", sender)
        else:
            if deal is None or p.seat != sender:
                raise self.fault(Reason.BAD_RELAY,
                                 f"a relayed {kind} of seat {sender} is for deck {d}, which is not being "
                                 "prepared", sender)
        try:
            if kind == "KeyShare":
                deal.public.accept_key_share(sender, KeyShareMessage.from_bytes(bytes(p.message)))
            elif kind == "Shuffle":
                deal.public.accept_shuffle(sender, ShuffleMessage.from_bytes(bytes(p.message)))
            else:
                self._on_shares(sender, p)
                if sender == self.me:
                    self.answered.add(bytes(p.request_hash))
        except TrustlessError as err:
            raise self.fault(err.reason, f"seat {sender}'s {kind}: {err}", sender) from None
        if kind != "DecryptionShares":
            self._after_keys_or_shuffle(d, deal)

    def _after_keys_or_shuffle(self, d: int, deal: SeatDeal) -> None:
        public = deal.public
        if public.phase is Phase.SHUFFLING and public.next_shuffler() == self.me:
            message = deal.shuffle_message()  # (queued even while stood in, like the key share)
            self.game.send(pb.Shuffle(deck=d, seat=self.me, message=message.to_bytes()))
        elif public.phase is Phase.CUTTING:
            public.apply_cut(0)  # positions stay the engine's; the engine cuts
            if deal is self.deal and self.match.phase == MatchPhase.DEAL:  # its attempt was waiting for it
                self.match = self.match.apply_sealed_deck(self.rules.deck)

    def give_up_deck(self) -> None:
        """The current attempt is over (hand end, redeal, forfeit): its deck is never used again."""
        self.decks.pop(self.deck_no, None)

    def on_match_end(self) -> None:
        """The deck prepared ahead, if any, is abandoned: nothing of it is sent any more."""
        self.decks.clear()

    def live_deck(self, payload: Any) -> bool:
        """A KeyShare or Shuffle of ours that still has a deck to go to."""
        return int(payload.deck) in self.decks

    def still_owed(self, signed: Signed) -> bool:
        """An envelope of ours, queued and not in the chain, that the host still waits for (or still takes) now that
        the seat has caught up with the chain: the key share or shuffle of a deck being prepared, the shares that
        answer a ShareRequest of this attempt (the chain shows no answer of ours to it), this seat's hand-end
        opening while the rules still want it, and its Maschine claim while the rules still allow it. The host
        asks for none of them again, so one dropped here is a step the table waits on for ever."""
        p = signed.payload
        if signed.type in ("KeyShare", "Shuffle"):
            return self.live_deck(p)
        if signed.type == "DecryptionShares":
            return self.deal is not None and self._attempt_matches(p) and bytes(p.request_hash) not in self.answered
        if signed.type == "ActionRequest":
            verb = str(p.action).split(" ", 1)[0]
            if verb == Verb.OPEN:
                return self.me in self.match.openings_wanted and self.match.phase == MatchPhase.SETTLE
            if verb == Verb.MASCHINE:
                return "maschine" in self.match.legal_actions(self.me)
        return False

    def _on_shares(self, sender: int, p: Any) -> None:
        deal = self.deal
        assert deal is not None
        public = [DecryptionShareMessage.from_bytes(bytes(data)) for data in p.shares]
        # (Our own answer is ours as we made it: our shares are public to us before the host relays them.)
        problem = "" if sender == self.me else self.asks.refusal(sender, p, [m.position for m in public],
                                                                 deal.public.shares_at)
        if problem:
            # Shares the honest host refuses (they answer nothing open, or give what was not asked): relayed, they
            # would publish a share nobody was owed.
            raise self.fault(Reason.BAD_RELAY, f"seat {sender}'s shares {problem}", sender)
        for message in public:
            deal.public.accept_decryption_share(sender, message)
        for entry in p.sealed:
            if entry.recipient != self.me:
                continue
            try:
                data = open_sealed(bytes(entry.box), self.game.key.private_bytes(
                    Encoding.Raw, PrivateFormat.Raw, NoEncryption()))
                message = DecryptionShareMessage.from_bytes(data)
            except (CryptoError, ValueError, TrustlessError):
                raise self.fault(Reason.BAD_SEALED_SHARE, f"seat {sender}'s sealed share of {entry.position} does not "
                                 "open", sender) from None
            if message.seat != sender or message.position != entry.position:
                raise self.fault(Reason.BAD_SEALED_SHARE,
                                 f"seat {sender}'s sealed share is for another position", sender)
            deal.public.accept_decryption_share(sender, message)
            self.sealed_in.setdefault(int(entry.position), []).append(data)
        self.asks.answered(sender, p, deal.public.shares_at, self.n)

    def on_share_request(self, signed: Signed) -> None:
        p = signed.payload
        deal = self.deal
        m = self.match
        r, positions, why = int(p.recipient), tuple(int(k) for k in p.positions), str(p.why)
        if deal is None or not self._attempt_matches(p) or deal.public.phase is not Phase.DEALING:
            raise self.fault(Reason.BAD_SHARE_REQUEST, "a share request outside a dealt attempt")
        if why == ShareWhy.OPEN:
            if tuple(sorted(positions)) != tuple(sorted(m.openings_wanted.get(r, ()))):
                raise self.fault(Reason.BAD_SHARE_REQUEST, f"seat {r} is asked to open {positions}, which the rules "
                                 "do not ask for")
            if r == self.me:
                self._open_wanted(signed.hash)
            return
        if not 0 <= r < self.n:
            raise self.fault(Reason.BAD_SHARE_REQUEST, f"there is no seat {r}")
        if why == ShareWhy.SEE:
            due = m.phase == MatchPhase.SCHLECKEN and len(positions) == 1 and self.seeing == (r, positions[0])
        elif why == ShareWhy.DEAL:
            due = bool(positions) and all(k in m.positions_of(r) for k in positions)
        else:
            due = False
        if not due:
            # The host asks for a card its recipient may not see now (a second packet before the trump, a card of
            # another seat, a position never dealt): a share would give it away. Refuse, and say so.
            raise self.fault(Reason.SHARE_NOT_DUE, f"the host asks for {why} shares of {list(positions)} for seat {r}, "
                             "which the rules do not give that seat now")
        self.asks.open(signed.hash, r, positions, deal.public.shares_at, self.n)
        if r == self.me:
            return
        shares: list[bytes] = []
        sealed: list[Any] = []
        for k in positions:
            if self.me in deal.public.shares_at(k):
                continue  # public already (given to another seat earlier, or at the Schlecken)
            message = deal.delivery_share(k, r) if k not in self.known else None
            if message is None:
                # This seat knows the card (it saw it at Schlecken): every other share is public, so a public share
                # from us would open it to everyone. Seal it to the recipient instead.
                message = deal.sealed_share(k)
                sealed.append(pb.SealedShare(position=k, recipient=r,
                                             box=seal_share(message.to_bytes(), self.game.roster_keys[r],
                                                            self.game.random_bytes(32))))
            else:
                shares.append(message.to_bytes())
        if shares or sealed:
            self.game.send(pb.DecryptionShares(hand=p.hand, attempt=p.attempt, seat=self.me,
                                                request_hash=signed.hash, shares=shares, sealed=sealed))

    def opening(self, position: int) -> Any:
        """The TrustlessOpening of one of this seat's positions: its own share, and any share sealed to it."""
        deal = self.deal
        assert deal is not None
        own = deal.opening_share(position)
        return pb.TrustlessOpening(position=position, card=self.known[position],
                                   shares=[own.to_bytes(), *self.sealed_in.get(position, [])])

    def _open_wanted(self, request_hash: bytes) -> None:
        if self.opened_for == request_hash:
            return
        self.opened_for = request_hash
        wanted = self.match.openings_wanted.get(self.me, ())
        self.game.send(self._request("open", [self.opening(k) for k in wanted]))

    def _request(self, action: str, openings: list[Any]) -> Any:
        return pb.ActionRequest(action=action, chain_seq=self.game.chain_seq, chain_head=self.game.chain_head,
                                openings=openings)

    def on_action_accepted(self, signed: Signed, inner: Signed | None = None, proven: bool = False) -> None:
        """`inner`: the embedded action envelope, where the caller parsed it already; `proven`: the caller found it
        proven its sender's already (this seat's own as it made it, or its signature checked just now)."""
        p = signed.payload
        if p.actor or not p.action_envelope:
            raise self.fault(Reason.REPLAY_MISMATCH, "nobody may act for a seat in a trustless game")
        if inner is None:
            inner = parse_envelope(bytes(p.action_envelope), host=False)
        if inner.sender != p.seat or inner.type != "ActionRequest" or not (
                proven or self.game.check_seat_signature(inner)):
            raise self.fault(Reason.BAD_SIGNATURE, f"the action of seat {p.seat} is not signed by that seat")
        request = inner.payload
        deal = self.deal
        openings: dict[int, str] = {}
        for opening in request.openings:
            k = int(opening.position)
            if deal is None:
                raise self.fault(Reason.REPLAY_MISMATCH, "an opening before any deal")
            try:
                for data in opening.shares:
                    message = DecryptionShareMessage.from_bytes(bytes(data))
                    if message.position != k:
                        raise self.fault(Reason.BAD_OPENING, f"a share in the opening of {k} is for another position",
                                         inner.sender)
                    deal.public.accept_decryption_share(message.seat, message)
                card = self.canonical[deal.public.open_card(k)].text
            except TrustlessError as err:
                raise self.fault(err.reason, f"seat {inner.sender}'s opening of {k}: {err}",
                                 inner.sender) from None
            except DealStateError as err:  # a share is missing: the host opened a card nobody could open
                raise self.fault(Reason.BAD_OPENING, f"the opening of {k} cannot be decrypted: {err}",
                                 inner.sender) from None
            if card != opening.card:
                raise self.fault(Reason.OPENING_MISMATCH,
                                 f"seat {inner.sender} claims {opening.card} at {k}, it is {card}",
                                 inner.sender)
            openings[k] = card
        shown = {int(o.position): str(o.card) for o in p.openings}
        if shown != openings:
            raise self.fault(Reason.REPLAY_MISMATCH, "the host shows other cards than the openings give")
        before = self.match
        events = self._step(int(p.seat), str(p.action), openings)
        expected = [event_to_pb(e.kind, e.seat, e.data) for e in events if e.to is None]
        if list(p.events) != expected or (p.hand, p.attempt) != (before.hand_number, before.attempt):
            raise self.fault(Reason.REPLAY_MISMATCH, f"the events of {p.action!r} differ from the rules' replay")
        self._absorb(events)
        self.game.played_positions.update(openings)

    def on_attempt_aborted(self, signed: Signed) -> None:
        p = signed.payload
        if p.reason != "away" and not self._redealt(p):
            # Unchecked, a host could end any attempt (and make the seat drop what it owes for it) at will.
            raise self.fault(Reason.BAD_ABORT, "the host ends the deal attempt without a redeal the rules give "
                             f"(hand {p.hand}.{p.attempt}, reason {p.reason!r})")
        if p.reason == "away":
            seat = int(p.seat)
            if seat not in self.game.stood_in or not self._attempt_matches(p):
                raise self.fault(Reason.BAD_ABORT, f"the attempt is forfeited for seat {seat}, which is not away")
            try:
                self.match, _ = forfeit_for_absence(self.match, seat, self.game.stood_in)
            except RuleViolation as err:
                raise self.fault(Reason.REPLAY_MISMATCH, f"the forfeit cannot be replayed ({err.reason})") from None
        self.give_up_deck()
        self.deal = None if p.reason == "away" else self.deal

    def _redealt(self, p: Any) -> bool:
        """A `bessere-redeal` abort stands right after the action that forced it: the rules have moved this hand on
        to its next attempt (waiting for a deal), and the attempt it names is the one open, its deck not given up."""
        m = self.match
        return (p.reason == "bessere-redeal" and self.game.hand == (int(p.hand), int(p.attempt))
                and (m.hand_number, m.attempt) == (int(p.hand), int(p.attempt) + 1) and m.phase == MatchPhase.DEAL
                and self.deck_no in self.decks)

    def on_stand_in(self) -> None:
        if self.match.phase == MatchPhase.SETTLE:
            self.match, _ = no_openings(self.match, self.game.stood_in)

    def on_hand_end(self, signed: Signed) -> None:
        p = signed.payload
        if [int(x) for x in p.scores] != list(self.match.scores):
            raise self.fault(Reason.SCORE_MISMATCH,
                             f"the host scores {list(p.scores)}, the rules {list(self.match.scores)}")
        self.give_up_deck()

    # ------------------------------------------------------------------ after every entry
    def tick(self) -> None:
        """Finish the decryption of every card now owed to this seat; claim a Maschine when it holds one."""
        deal = self.deal
        m = self.match
        if deal is None or deal.public.phase is not Phase.DEALING:
            return
        mine = list(m.positions_of(self.me))
        if self.seeing is not None and self.seeing[0] == self.me:
            mine.append(self.seeing[1])
        for k in mine:
            if k in self.known:
                continue
            shares = deal.public.shares_at(k)
            if all(s in shares for s in range(self.n) if s != self.me):
                self.known[k] = self.canonical[deal.receive_card(k)].text
        held = {k: self.known[k] for k in m.positions_of(self.me) if k in self.known}
        self.game.cards = held
        self.game.my_positions = set(m.positions_of(self.me))
        if not self.claimed and "maschine" in m.legal_actions(self.me):
            mine_kritische = {k: c for k, c in held.items() if Card.parse(c) in self.kritische}
            if len(mine_kritische) == len(self.kritische):
                self.claimed = True
                self.game.send(self._request("maschine", [self.opening(k) for k in mine_kritische]))

    # ------------------------------------------------------------------ what the seat may do
    def complete(self) -> bool:
        """Every card of this seat's hand is decrypted."""
        return all(k in self.known for k in self.match.positions_of(self.me))

    def legal_actions(self) -> list[str]:
        """Exactly what `Match` would allow this seat now, worked out from the public engine and its own cards
        ("maschine" and "open" are not offered: the seat sends them by itself)."""
        m = self.match
        out: list[str] = []
        for action in m.legal_actions(self.me):
            if action == Verb.PLAY:
                if self.complete():
                    hand = {k: self.known[k] for k in m.positions_of(self.me)}
                    out += [f"play {c.text}" for _, c in m.legal_plays(self.me, hand)]
            elif action in (Verb.MASCHINE, Verb.OPEN):
                continue
            elif action == Verb.TAKE:
                seen = self.known.get(self.seeing[1]) if self.seeing and self.seeing[0] == self.me else None
                bluff = self.rules.schlecken_bluff and self.me == m.cutter
                if seen is not None and (Card.parse(seen) in self.kritische or bluff):
                    out.append(action)
            elif action == Verb.SCHADET_ASK:
                ranking = m.ranking
                held = {Card.parse(c) for k, c in self.known.items() if k in m.positions_of(self.me)}
                if ranking is not None and ranking.hauptschlag in held:
                    out.append(action)
            else:
                out.append(action)
        return out

    def action(self, text: str) -> Any:
        """The ActionRequest payload for `text`; a played card gets its opening (only when the play is legal: the
        share would show the card to the host even if it refused the action)."""
        verb, _, arg = text.strip().partition(" ")
        if verb.lower() != "play":
            return self._request(text, [])
        card = Card.parse(arg).text
        position = next((k for k, c in self.known.items() if c == card and k in self.match.positions_of(self.me)),
                        None)
        if position is None or f"play {card}" not in self.legal_actions():
            raise ProtocolError(Code.PRECONDITION, Reason.CARD_NOT_IN_HAND, f"{card} is not a card you may play now")
        return self._request(f"play {card}", [self.opening(position)])
