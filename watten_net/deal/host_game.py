"""The host's side of a verifiable game (docs/protocol.md Level 1 and, with deal="trustless", Level 2), without any I/O.

`HostGame` owns the rules engine and the deal secrets. It takes client envelopes (bytes, exactly as
submitted) and answers with the host envelopes they caused, each marked with who may see it. The
gRPC service only moves these bytes; bots in the host process use the same path as remote seats.

Flow per game (Level 1 version 2): GameHeader (with K_H), every seat signs it; every KeyCommit, the KeySet, every
KeySetSignature, every KeyReveal (host-run seats first). Per deal attempt (h, a), all from the keys: HandOpen,
DeckSealed, every DeckSealedSignature of the seats present; then the cut from the cutter's key, Schlecken,
deliveries and play through the engine; HandEnd and a Checkpoint every seat signs. MatchEnd, then k_H and every
withheld envelope are revealed, and a last Checkpoint closes the record. A seat away after the first HandOpen is
played by the reference stand-in (`stand_in.py`), whose every move is a function of its observation.

With deal="trustless" (Level 2, `level2.TrustlessDealing`) the host knows no card: the rules engine is
`PublicMatch` (`self.public`, while `self.match` stays None); decks are prepared ahead (DeckPrepare, every KeyShare,
every Shuffle, interleaved with the previous hand's envelopes), each attempt is TrustlessDealOpen naming its deck,
then, once that deck is sealed, the cutter's live cut and ShareRequests answered by DecryptionShares; actions that
show a card carry its owner's decryption share (`ActionRequest.openings`), and at a hand's end the engine asks for
the openings its obligations need. A seat that is away cannot give its shares: the hand that needs it is forfeited
by its side (docs/protocol-decisions.md).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from watten_net.engine import Match, Rules, RuleViolation
from watten_net.engine.event_data import event_data
from watten_net.engine.events import Event, EventKind
from watten_net.engine.match import normalise_action
from watten_net.engine.notation import Phase, Verb
from watten_net.engine.public import PublicMatch
from watten_net.refusal import Code, Reason
from watten_net.trustless import DECK_SIZES, SEAT_COUNTS
from watten_net.v1 import watten_pb2 as pb

from .dealing import Dealing, ReadyDeck
from .deck import DECK_VERSION
from .envelope import GENESIS_PREV_HASH, envelope_hash
from .identity import game_fingerprint, game_id, public_key_bytes
from .keys import host_key_commitment
from .level1 import VerifiedDealing
from .level2 import (
    CHEAT_REASONS,
    TrustlessDealing,
    engine_step,
    first_dealer,
    forfeit_for_absence,
    no_openings,
    parse_openings,
)
from .protocol import (
    DEAL_MODES,
    HOST_SEAT,
    NEXT_DEAL_MODES,
    PROTOCOL_VERSION,
    REVEAL_MODES,
    WITH_CHECKPOINT,
    ProtocolError,
    SenderChain,
    Signed,
    check_signature,
    event_to_pb,
    header_hash,
    make_envelope,
    parse_envelope,
    roster_problem,
)
from .receipts import make_receipt
from .seat import SeatGame
from .series import FIRST_MATCH, Series, series_problem
from .stand_in import POLICIES, REFERENCE_V1
from .steps import DealStep, Stage
from .table_waits import waited_for

EnvelopeSource = Callable[[int, Any], bytes]  # (chain seq, payload message) -> envelope bytes


@dataclass(frozen=True)
class Seat:
    """A seat of the roster as the host game knows it: its public key, name and join nonce, and who plays it."""

    public_key: bytes
    name: str
    join_nonce: bytes
    bot: bool = False
    host_run: bool = False  # a host bot, or the person the host process seats itself: reveals its key first


@dataclass(frozen=True)
class Posted:
    """A host envelope the game appended to its chain, and who may see it (None = everybody)."""

    raw: bytes
    hash: bytes
    seq: int
    type: str
    visible_to: tuple[int, ...] | None

    def sees(self, seat: int) -> bool:
        return self.visible_to is None or seat in self.visible_to

    def stub(self) -> Any:
        """What a seat that may not see this envelope gets instead: its hash (to follow the chain) and type."""
        return pb.Withheld(envelope_hash=self.hash, type=self.type, visible_to=list(self.visible_to or ()))

    def deliver_to(self, seat: SeatGame) -> None:
        """Hand this envelope to a seat's SeatGame: whole, or as a stub when the seat may not see it."""
        if self.sees(seat.seat):
            seat.receive(self.seq, self.raw)
        else:
            seat.receive(self.seq, withheld=self.stub())


def _check_settings(rules: Rules, seats: Sequence[Seat], reveal: str, deal: str, next_deal: str = "",
                    series: Series = FIRST_MATCH, step_timeout_ms: int = 0) -> None:
    """Refuse a game that cannot be hosted (a ValueError that says why)."""
    if not 0 <= step_timeout_ms < 2**32:
        raise ValueError(f"the step timeout must be 0 to {2**32 - 1} ms, not {step_timeout_ms}")
    if (problem := series_problem(rules, series)) is not None:
        raise ValueError(problem)
    if len(seats) != rules.players:
        raise ValueError(f"{rules.players} seats needed, got {len(seats)}")
    if (problem := roster_problem([s.bot for s in seats], [s.host_run for s in seats])) is not None:
        raise ValueError(problem)
    if reveal not in REVEAL_MODES:
        raise ValueError(f"reveal must be one of {REVEAL_MODES}")
    if deal not in DEAL_MODES:
        raise ValueError(f"deal must be one of {DEAL_MODES}")
    if next_deal not in NEXT_DEAL_MODES:
        raise ValueError(f"next_deal must be one of {NEXT_DEAL_MODES}")
    if deal == "trustless" and next_deal:
        raise ValueError("next_deal is a verified deal's setting: a trustless deal prepares its decks its own way")
    if deal == "trustless" and rules.blind:
        raise ValueError("blind cannot be played with a trustless deal (the host must judge every trick)")
    if deal == "trustless" and (rules.deck not in DECK_SIZES or rules.players not in SEAT_COUNTS):
        raise ValueError(f"a trustless deal supports decks of {DECK_SIZES} cards and {SEAT_COUNTS} players")


class HostGame:
    """Sans-I/O host of one match: `start()`, then `submit(seat, envelope_bytes)` until `finished`."""

    def __init__(
        self,
        rules: Rules,
        seats: Sequence[Seat],
        host_key: Ed25519PrivateKey,
        *,
        reveal: str = "match-end",
        preset: str = "",
        tls_fingerprint: bytes = b"",
        host_nonce: bytes | None = None,
        random_bytes: Callable[[int], bytes] = os.urandom,
        envelope_source: EnvelopeSource | None = None,
        host_public_key: bytes | None = None,
        deal: str = "verified",
        host_game_key: bytes | None = None,
        next_deal: str = "",
        series: Series = FIRST_MATCH, step_timeout_ms: int = 0,  # (GameHeader.step_timeout_ms; 0: no time limit)
    ) -> None:
        _check_settings(rules, seats, reveal, deal, next_deal, series, step_timeout_ms)
        self.next_deal, self.series, self.step_timeout_ms = next_deal, series, step_timeout_ms  # (series: series.py)
        self.rules = rules
        self.seats = list(seats)
        self.n = rules.players
        self.host_key, self.reveal = host_key, reveal
        self.preset = preset
        self.tls_fingerprint = tls_fingerprint
        self.random_bytes = random_bytes
        # Normally the host signs each envelope it posts. The verifier replays a record through this very
        # class and, instead of signing, adopts the record's own envelope at each position after checking
        # that it carries exactly the payload an honest host would send there.
        self.envelope_source = envelope_source
        self.host_public_key = host_public_key if host_public_key is not None else public_key_bytes(host_key)
        self.host_nonce = host_nonce if host_nonce is not None else random_bytes(32)
        self.game_id = game_id(self.host_nonce, [s.join_nonce for s in seats])
        self.chain: list[Posted] = []
        self.seat_chains = [SenderChain() for _ in range(self.n)]
        self.phase: Stage = Stage.NEW  # new, header, deal (the dealing layer's steps), play, checkpoint, over
        self.header_signed: set[int] = set()
        self.match: Match | None = None  # Level 1's engine (the host knows every card)
        self.public: PublicMatch | None = None  # the trustless level's engine (public information only)
        self.trustless = deal == "trustless"
        # Seats of people who are away: a host bot plays for them (`stand_in`, `act_for`), and no step waits for
        # their signatures.
        self.absent: set[int] = set()
        # Level 1: seats called away before the first HandOpen; nobody stands in before it (every key is waited
        # for), so their StandIn is posted right after the first DeckSealed if they are still away then.
        self.away_before_first_deal: set[int] = set()
        # k_H, the host's game key (Level 1): drawn with the header (the verifier passes the revealed one).
        self.host_game_key = host_game_key
        self.stand_in_policy = "" if self.trustless else REFERENCE_V1
        self._make_dealing()
        self.withheld: list[Posted] = []
        self.checkpoint: tuple[int, int, bytes] | None = None  # (hand, chain seq, chain head)
        self.checkpoint_signed: set[int] = set()
        self.deal_waits_for_checkpoint = False  # (with-checkpoint: the next deal is open, its cut waits; `_route`)
        self.fingerprint = ""
        self.header_hash = b""  # SHA-256 of the GameHeader payload bytes: what every seat signs (docs/protocol.md §3)
        self.engine_events: list[Event] = []  # engine events since the last `drain_events()` (for the views)
        self.finished = False
        self.end_reason = ""

    def _make_dealing(self) -> None:
        """Everything about where cards come from: Level 1, or the trustless Level 2 through the same seam."""
        self.dealing: Dealing
        self.trustless_dealing: TrustlessDealing | None = None
        self.verified_dealing: VerifiedDealing | None = None
        if self.trustless:
            self.dealing = self.trustless_dealing = TrustlessDealing(self.rules, self.game_id, self._post, self.absent)
        else:
            self.dealing = self.verified_dealing = VerifiedDealing(
                self.rules, self.game_id, self._post, host_key=self._host_game_key,
                header_hash=lambda: self.header_hash, host_run=[s.host_run for s in self.seats],
                head_at=self._head_at, absent=self.absent)

    # ------------------------------------------------------------------ chain
    def _post(self, payload: Any, visible_to: tuple[int, ...] | None = None) -> Posted:
        seq = len(self.chain) + 1
        prev = self.chain[-1].hash if self.chain else GENESIS_PREV_HASH
        if self.envelope_source is not None:
            raw = self.envelope_source(seq, payload)
        else:
            raw = make_envelope(self.host_key, self.game_id, seq, prev, HOST_SEAT, payload)
        posted = Posted(raw, envelope_hash(raw), seq, payload.DESCRIPTOR.name, visible_to)
        self.chain.append(posted)
        if visible_to is not None:
            self.withheld.append(posted)
        return posted

    @property
    def head(self) -> Posted:
        return self.chain[-1]

    def _head_at(self, seq: int) -> bytes | None:
        return self.chain[seq - 1].hash if 1 <= seq <= len(self.chain) else None

    def refusal_receipt(self, raw: bytes, reason: str) -> Any:
        """The host's signed receipt for a refused envelope, naming the chain head it was judged against."""
        head = self.chain[-1] if self.chain else None
        return make_receipt(self.host_key, self.game_id, envelope_hash(raw), reason, head.seq if head else 0,
                            head.hash if head else GENESIS_PREV_HASH)

    def _host_game_key(self) -> bytes:
        if self.host_game_key is None:
            self.host_game_key = self.random_bytes(32)
        return self.host_game_key

    # ------------------------------------------------------------------ start
    def header_message(self) -> Any:
        return pb.GameHeader(
            protocol_version=PROTOCOL_VERSION,
            stand_in=self.stand_in_policy,
            host_key_commitment=b"" if self.trustless else host_key_commitment(self.game_id, self._host_game_key()),
            deck_version=DECK_VERSION,
            rules_json=self.rules.to_json(),
            preset=self.preset,
            settings=pb.TableSettings(deal=self.dealing.mode, reveal=self.reveal),
            roster=[
                pb.RosterEntry(seat=i, public_key=s.public_key, name=s.name, bot=s.bot, host_run=s.host_run)
                for i, s in enumerate(self.seats)
            ],
            first_dealer_rule="deck-key",
            host_tls_fingerprint=self.tls_fingerprint,
            host_public_key=self.host_public_key,
            host_nonce=self.host_nonce,
            join_nonces=[s.join_nonce for s in self.seats],
            game_id=self.game_id,
            next_deal=self.next_deal,
            previous_game_id=self.series.previous_game_id,
            bummerl_carried=list(self.series.carried),
            step_timeout_ms=self.step_timeout_ms,
        )

    def start(self) -> list[Posted]:
        if self.phase != Stage.NEW:
            raise ProtocolError(Code.PRECONDITION, Reason.GAME_STARTED, "the game has already started")
        out = [self._post(self.header_message())]
        self.fingerprint = game_fingerprint(out[0].raw)
        self.header_hash = header_hash(out[0].raw)
        self.phase = Stage.HEADER
        return out

    # ------------------------------------------------------------------ submissions
    def submit(self, seat: int, raw: bytes) -> list[Posted]:
        """Accept one client envelope from `seat`; returns the host envelopes it caused.

        Raises ProtocolError (nothing changed) for anything malformed, out of turn or against the rules.
        Resubmitting the bytes of an already accepted envelope returns [] (idempotent retries).
        """
        if not 0 <= seat < self.n:
            raise ProtocolError(Code.PERMISSION, Reason.BAD_SEAT, f"there is no seat {seat}")
        signed = parse_envelope(raw, host=False)
        if signed.sender != seat:
            raise ProtocolError(Code.PERMISSION, Reason.WRONG_SEAT, "the envelope names another seat as its sender")
        if signed.envelope.game_id != self.game_id:
            raise ProtocolError(Code.PRECONDITION, Reason.WRONG_GAME, "the envelope belongs to another game")
        if not check_signature(signed, self.seats[seat].public_key):
            raise ProtocolError(Code.INVALID, Reason.BAD_SIGNATURE, "the envelope's signature does not verify")
        chain = self.seat_chains[seat]
        if signed.hash in chain.accepted:
            return []
        if self.finished:
            raise ProtocolError(Code.PRECONDITION, Reason.UNEXPECTED_MESSAGE, "the match is over: nothing more to send")
        if seat in self.absent:
            raise ProtocolError(Code.PRECONDITION, Reason.STOOD_IN,
                                "a bot plays this seat while you are away: reconnect first")
        chain.check_next(signed)
        if signed.type in self.dealing.message_types:
            self._expect(self.phase if self.phase in self.dealing.phases else self.dealing.phases[0], signed)
            first = not self._dealt_once()
            out: list[Posted] = self.dealing.on_message(seat, signed)
            if first and self._dealt_once():
                out += self._first_deal_opened()
            out += self._after_dealing()
        else:
            handler = self.HANDLERS.get(signed.type)
            if handler is None:  # a dealing message of the other level (e.g. a KeyShare in a verified game)
                raise ProtocolError(Code.PRECONDITION, Reason.UNEXPECTED_MESSAGE,
                                    f"{signed.type} has no place in a {self.dealing.mode} game")
            out = handler(self, seat, signed)
        chain.advance(signed)
        return out

    def _expect(self, phase: Stage, signed: Signed) -> None:
        if self.phase != phase:
            raise ProtocolError(
                Code.PRECONDITION, Reason.UNEXPECTED_MESSAGE,
                f"{signed.type} is not expected now (the game is at {self.phase})"
            )

    def _relay(self, seat: int, signed: Signed) -> Posted:
        return self._post(pb.Relay(seat=seat, envelope=signed.raw))

    def _on_HeaderSignature(self, seat: int, signed: Signed) -> list[Posted]:
        self._expect(Stage.HEADER, signed)
        p = signed.payload
        if p.seat != seat or p.header_hash != self.header_hash:
            raise ProtocolError(Code.PRECONDITION, Reason.WRONG_HASH, "the signature is not over this game's header")
        if seat in self.header_signed:
            raise ProtocolError(Code.PRECONDITION, Reason.UNEXPECTED_MESSAGE, "you have signed the header already")
        self.header_signed.add(seat)
        return [self._relay(seat, signed), *self._header_done()]

    def _everyone(self, answered: set[int]) -> bool:
        """Every seat has answered, or is away (a stand-in's seat is not waited for)."""
        return len(answered | self.absent) == self.n

    def _header_done(self) -> list[Posted]:
        return self._open_attempt(0, 0) if self._everyone(self.header_signed) else []

    def _after_dealing(self) -> list[Posted]:
        if self.deal_waits_for_checkpoint:
            return []  # (no card of the next hand before every seat present has signed this hand's checkpoint)
        ready = self.dealing.take_ready_deck()
        if ready is not None:
            return self._begin_play(ready)
        seat = self.dealing.take_forfeit()
        return self._forfeit(seat) if seat is not None else []

    # ------------------------------------------------------------------ people away: a bot stands in
    def stand_in(self, seat: int, active: bool) -> list[Posted]:
        """A host bot takes over `seat` (its person is away), or gives it back. Returns what that posted."""
        if not 0 <= seat < self.n:
            raise ValueError(f"there is no seat {seat}")
        if not self.trustless and not self._dealt_once():
            # Before the first HandOpen nobody stands in, signs or reveals for a seat (docs/protocol.md Level 1 step 4).
            if active:
                self.away_before_first_deal.add(seat)
            else:
                self.away_before_first_deal.discard(seat)
            return []
        if self.phase in (Stage.NEW, Stage.OVER) or active == (seat in self.absent):
            if self.phase == Stage.OVER:
                self.absent.discard(seat)  # the record is closed: nothing to post, but the seat is no longer away
            return []
        if active:
            self.absent.add(seat)
        else:
            self.absent.discard(seat)
        out = [self._post(pb.StandIn(seat=seat, active=active))]
        if self.trustless and self.phase in (Stage.DEAL, Stage.PLAY):
            return out + self._trustless_absence()
        if active:
            if self.phase == Stage.HEADER:
                out += self._header_done()
            elif self.phase == Stage.DEAL:
                out += self.dealing.on_absent()
                out += self._checkpoint_done() if self.deal_waits_for_checkpoint else self._after_dealing()
            elif self.phase == Stage.CHECKPOINT:
                out += self._checkpoint_done()
        return out

    def _dealt_once(self) -> bool:
        return self.verified_dealing is not None and bool(self.verified_dealing.attempts)

    def stand_in_move(self, seat: int) -> str:
        """The reference stand-in's move for `seat` now: a function of that seat's observation alone."""
        assert self.match is not None
        return POLICIES[self.stand_in_policy](self.match.observe(seat, history=False))

    def act_for(self, seat: int, action: str | None = None) -> list[Posted]:
        """The reference stand-in's game action for an absent seat, through the engine like any other. `action`,
        when given (a journal or a record being replayed), must be the reference's own move."""
        if self.trustless:
            raise ProtocolError(Code.PRECONDITION, Reason.NOT_TRUSTLESS,
                                "nobody can act for a seat in a trustless game: a hand that needs it is forfeited")
        if seat not in self.absent:
            raise ProtocolError(Code.PERMISSION, Reason.NOT_AWAY,
                                f"seat {seat} is not away: only its person acts for it")
        if self.phase != Stage.PLAY or self.match is None or seat not in self.match.waiting_for:
            raise ProtocolError(Code.PRECONDITION, Reason.UNEXPECTED_MESSAGE, f"no game action of seat {seat} now")
        move = self.stand_in_move(seat)
        if action is not None and normalise_action(action) != move:
            raise ProtocolError(Code.PRECONDITION, Reason.STAND_IN_MISMATCH,
                                f"the reference stand-in ({self.stand_in_policy}) plays {move!r} here, not {action!r}")
        return self._apply(seat, move, None, actor="bot")

    def forfeit_away(self) -> list[Posted]:
        """The host's decision in a trustless game: the table has waited a grace period more for a seat that is away
        (nobody can act, shuffle or give shares for it), so its side forfeits the hand in progress, and the next
        hand waits for it in turn. Journaled and replayed by `watten-verify` like a StandIn."""
        if not self.trustless or self.phase not in (Stage.DEAL, Stage.PLAY) or not self.absent:
            raise ProtocolError(Code.PRECONDITION, Reason.NOT_AWAY,
                                "no trustless hand is waiting for a seat that is away")
        return self._trustless_absence()

    def _trustless_absence(self) -> list[Posted]:
        """People away in a trustless game (after the StandIn is posted): while a hand settles, what they still owe
        is not opened; otherwise the attempt in progress is forfeited by the side of the first seat away."""
        public = self.public
        if public is not None and public.phase == Phase.SETTLE:
            after, events = no_openings(public, self.absent)
            if not events:
                return []
            self.public = after
            self.engine_events.extend(events)
            return self._route(public, events)
        return list(self.dealing.on_absent()) + self._after_dealing()

    def _forfeit(self, seat: int) -> list[Posted]:
        """`seat` committed to a seed and went away before revealing it: its side loses the hand."""
        if self.trustless:
            # (trustless: `seat` is away while the attempt needs it; at any moment of the hand, see level2)
            public = self.public
            assert public is not None
            self.public, events = forfeit_for_absence(public, seat, self.absent)
            self.engine_events.extend(events)
            self.phase = Stage.PLAY
            return self._route(public, events)
        raise AssertionError("Level 1 forfeits nothing for an absence")

    def _open_attempt(self, hand: int, attempt: int) -> list[Posted]:
        self.phase = Stage.DEAL
        if self.trustless:
            if self.public is None:
                self.public = PublicMatch.new(self.rules, first_dealer=first_dealer(self.game_id, self.n))
            return list(self.dealing.open_attempt(hand, attempt, self.public.dealer)) + self._after_dealing()
        first = not self._dealt_once()
        out = list(self.dealing.open_attempt(hand, attempt, None if self.match is None else self.match.dealer))
        if first and self._dealt_once():
            out += self._first_deal_opened()
        return out + self._after_dealing()

    def _first_deal_opened(self) -> list[Posted]:
        """Seats called away while the keys were being fixed are stood in for now, if still away."""
        out: list[Posted] = []
        for seat in sorted(self.away_before_first_deal):
            out += self.stand_in(seat, True)
        self.away_before_first_deal.clear()
        return out

    def _begin_play(self, ready: ReadyDeck) -> list[Posted]:
        """The deck goes to the engine, and the cutter's committed cut position is applied."""
        if self.trustless:
            # Sealed: the engine gets its size only; the cutter cuts live (docs/protocol.md Level 2 step 3).
            assert self.public is not None
            self.public = self.public.apply_sealed_deck(self.rules.deck)
            self.phase = Stage.PLAY
            return []
        if self.match is None:
            self.match = Match.new(self.rules, first_dealer=ready.first_dealer)
        self.match = self.match.apply_deck(ready.cards)
        cutter = self.match.cutter
        self.phase = Stage.PLAY
        return self._apply(cutter, f"cut {ready.cuts[cutter]}", None, actor="key")

    def _on_ActionRequest(self, seat: int, signed: Signed) -> list[Posted]:
        self._expect(Stage.PLAY, signed)
        p = signed.payload
        if not 1 <= p.chain_seq <= len(self.chain) or self.chain[p.chain_seq - 1].hash != p.chain_head:
            raise ProtocolError(Code.INVALID, Reason.BAD_CHAIN_HEAD,
                                "the action names a chain head this game does not have")
        if self.trustless:
            return self._apply_trustless(seat, p.action, p.openings, signed)
        if p.openings:
            raise ProtocolError(Code.INVALID, Reason.BAD_PAYLOAD, "openings travel only in a trustless game")
        return self._apply(seat, p.action, signed, actor="")

    def _apply_trustless(self, seat: int, action: str, openings: Any, signed: Signed) -> list[Posted]:
        """A trustless action: the engine judges it on public information with the cards it claims to open, then
        the openings' shares are checked and decrypted; only when both hold does anything change."""
        public, dealer = self.public, self.trustless_dealing
        assert public is not None and dealer is not None
        text = normalise_action(action) if isinstance(action, str) else ""
        verb = text.split(" ", 1)[0]
        if dealer.dealing and verb not in (Verb.MASCHINE, Verb.OPEN):
            raise ProtocolError(Code.PRECONDITION, Reason.DEALING,
                                "cards are still being dealt: wait until every decryption share is in")
        claimed = parse_openings(openings)
        try:
            after, events = engine_step(public, seat, text, claimed)
        except RuleViolation as err:
            raise (err.blaming(seat) if err.reason in CHEAT_REASONS else err) from None
        cards = dealer.open_cards(seat, openings) if openings else {}
        dealer.record_openings(openings)
        self.public = after
        self.engine_events.extend(events)
        visible = None
        if verb == Verb.SIGNAL:
            visible = public.t.signal_audience_of[public.dealer][seat]
        accepted = pb.ActionAccepted(
            hand=public.hand_number, attempt=public.attempt, seat=seat, action=text,
            action_envelope_hash=signed.hash, action_envelope=signed.raw, actor="",
            openings=[pb.CardOpening(position=k, card=c.text) for k, c in cards.items()],
            events=[event_to_pb(e.kind, e.seat, e.data) for e in events if e.to is None],
        )
        return [self._post(accepted, visible), *self._route(public, events)]

    # ------------------------------------------------------------------ engine steps
    def _apply(self, seat: int, action: str, signed: Signed | None, *, actor: str) -> list[Posted]:
        assert self.match is not None
        before = self.match
        after, events = before.apply(seat, action)  # a RuleViolation is the refusal as it stands
        self.match = after
        self.engine_events.extend(events)
        last = after.last_action
        text = last[1] if last is not None else action  # the action as the engine spelled it
        openings = []
        public = [e for e in events if e.to is None]
        for e in events:
            if e.kind == EventKind.PLAY and e.seat == seat:
                played = event_data(e, EventKind.PLAY)
                openings.append(self.dealing.opening(played["position"], played["card"]))
        visible = self._action_visibility(before, seat, text)
        accepted = pb.ActionAccepted(
            hand=before.hand_number, attempt=before.attempt, seat=seat, action=text,
            action_envelope_hash=signed.hash if signed else b"", action_envelope=signed.raw if signed else b"",
            actor=actor, openings=openings, events=[event_to_pb(e.kind, e.seat, e.data) for e in public],
        )
        out = [self._post(accepted, visible)]
        out += self._route(before, events)
        return out

    def _action_visibility(self, before: Match, seat: int, action: str) -> tuple[int, ...] | None:
        verb = action.split(" ", 1)[0]
        if verb == Verb.SIGNAL:  # (the seat and its partners this hand, as the trustless path reads them too)
            return before.t.signal_audience_of[before.dealer][seat]
        if self.rules.blind and verb in (Verb.SCHLAG, Verb.TRUMP):
            return tuple(sorted(before.announcers))
        return None

    def _route(self, before: Match | PublicMatch, events: list[Event]) -> list[Posted]:
        """Hidden events become the dealing layer's deliveries; the engine's hand and match ends the protocol's.
        (Trustless: the public deal map, the Schlecken card and the hand-end openings become share requests.)"""
        match = self.public if self.trustless else self.match
        assert match is not None
        out: list[Posted] = []
        hand_ended = redeal = False
        for e in events:
            hidden = e.to is not None and e.kind in (EventKind.DEAL, EventKind.TOOK, EventKind.SEE)
            if hidden or (self.trustless and e.kind in (EventKind.DEAL, EventKind.SEE, EventKind.OPEN_ASK)):
                out += self.dealing.deliver(e)
            elif e.kind == EventKind.HAND_END:
                hand_ended = True
                out.append(self._post(self._hand_end_message(before, e)))
            elif e.kind == EventKind.REDEAL:
                redeal = True
        if self.trustless_dealing is not None and (hand_ended or redeal or match.is_over):
            self.trustless_dealing.close_attempt()
        if match.is_over:
            out += self._finish("target-reached")
        elif hand_ended:
            if self.reveal == "hand-end":
                out += self._reveal_all(final=False)
            elif self.rules.blind:  # (only blind announcements are withheld actions: else nothing to look for)
                out += self._disclose(lambda p: p.type == "ActionAccepted")
            out += self._ask_checkpoint(before.hand_number)
            if self.next_deal == WITH_CHECKPOINT:
                # The next attempt opens now (phase DEAL) while the checkpoint is signed; its deck goes to the engine
                # (the cut, the cards) only once the checkpoint is complete (`_after_dealing`, `_checkpoint_done`).
                self.deal_waits_for_checkpoint = True
                out += self._open_attempt(match.hand_number, match.attempt)
        elif redeal:
            out.append(self._post(pb.AttemptAborted(hand=before.hand_number, attempt=before.attempt,
                                                    reason="bessere-redeal", seat=-1)))
            out += self._open_attempt(match.hand_number, match.attempt)
        return out

    def _hand_end_message(self, before: Match | PublicMatch, e: Event) -> Any:
        match = self.engine
        assert match is not None
        slots = len(match.scores)
        points = [0] * slots
        ended = event_data(e, EventKind.HAND_END)
        for seat in ended["seats"]:
            points[match.t.scorer_of[seat]] = ended["points"]
        return pb.HandEnd(
            hand=before.hand_number, attempt=before.attempt, winner_side=ended["side"], points=points,
            reason=ended["reason"],
            scores=ended["scores"], bummerl=list(match.bummerl),
        )

    @property
    def engine(self) -> Match | PublicMatch | None:
        """The rules engine of either level (`match` in Level 1, `public` in a trustless game)."""
        return self.public if self.trustless else self.match

    def _reveal_all(self, final: bool) -> list[Posted]:
        """The dealing layer reveals its secrets, then every envelope withheld so far is disclosed."""
        return list(self.dealing.reveal(final)) + self._disclose(lambda p: True)

    def _disclose(self, which: Callable[[Posted], bool]) -> list[Posted]:
        chosen = [p for p in self.withheld if which(p)]
        if not chosen:
            return []
        self.withheld = [p for p in self.withheld if not which(p)]
        return [self._post(pb.Disclosure(envelopes=[p.raw for p in chosen]))]

    def _ask_checkpoint(self, hand: int) -> list[Posted]:
        head = self.head
        self.checkpoint = (hand, head.seq, head.hash)
        self.checkpoint_signed = set()
        self.phase = Stage.CHECKPOINT
        return [self._post(pb.Checkpoint(hand=hand, chain_seq=head.seq, chain_head=head.hash))]

    def _on_CheckpointSignature(self, seat: int, signed: Signed) -> list[Posted]:
        if not self.deal_waits_for_checkpoint:
            self._expect(Stage.CHECKPOINT, signed)
        assert self.checkpoint is not None
        p = signed.payload
        hand, seq, head = self.checkpoint
        if p.seat != seat or p.hand != hand or p.chain_seq != seq or p.chain_head != head:
            raise ProtocolError(Code.PRECONDITION, Reason.WRONG_HASH,
                                "the signature is not over the current checkpoint")
        if seat in self.checkpoint_signed:
            raise ProtocolError(Code.PRECONDITION, Reason.UNEXPECTED_MESSAGE, "you have signed this checkpoint already")
        self.checkpoint_signed.add(seat)
        return [self._relay(seat, signed), *self._checkpoint_done()]

    def prepare_next_deal(self) -> None:
        """Derive the next deal's deck and seals ahead (a verified game), while the table waits for something else: the
        HandOpen and DeckSealed then go out without that work. With next_deal = with-checkpoint they go out with the
        checkpoint, so the next hand's first attempt is derived during this hand's play (every deal follows from keys
        fixed before the first hand); else while the seats sign the checkpoint. The same bytes either way, so a
        journal or record replayed without it gives the same chain."""
        ahead = self.next_deal_ahead()
        if ahead is not None:
            assert self.verified_dealing is not None
            self.verified_dealing.prepare(*ahead)

    def next_deal_ahead(self) -> tuple[int, int] | None:
        """The attempt (hand, attempt) `prepare_next_deal` would derive now; None when there is none or it is derived
        already (once per hand: at the start of play with-checkpoint, else at the checkpoint). The host asks after
        every change and schedules the work only then."""
        dealing, match = self.verified_dealing, self.match
        if dealing is None or self.end_reason or match is None:
            return None
        if self.phase == Stage.CHECKPOINT:
            ahead = (match.hand_number, match.attempt)
        elif self.phase == Stage.PLAY and self.next_deal == WITH_CHECKPOINT:
            ahead = (match.hand_number + 1, 0)
        else:
            return None
        return ahead if dealing.wants(*ahead) else None

    def _checkpoint_done(self) -> list[Posted]:
        if not self._everyone(self.checkpoint_signed):
            return []
        if self.end_reason:
            self.phase = Stage.OVER
            self.finished = True
            return []
        if self.deal_waits_for_checkpoint:  # (with-checkpoint: the next deal is open; its cut may come now)
            self.deal_waits_for_checkpoint = False
            return self._after_dealing()
        match = self.engine
        assert match is not None
        return self._open_attempt(match.hand_number, match.attempt)

    # ------------------------------------------------------------------ the end
    def _finish(self, reason: str) -> list[Posted]:
        self.end_reason = reason
        self.deal_waits_for_checkpoint = False  # (abandoned while a paired deal was open: the deal is void)
        if self.trustless_dealing is not None:
            self.trustless_dealing.end_match()
        match = self.engine
        scores = list(match.scores) if match else []
        winners = list(match.winners) if match else []
        winner = winners[0] if len(winners) == 1 else -1
        hand = match.hand_number if match else 0
        missing = self.verified_dealing.missing_keys() if self.verified_dealing is not None else ()
        out = [self._post(pb.MatchEnd(scores=scores, bummerl=list(match.bummerl) if match else [],
                                      winner_side=winner, reason=reason, unanswered=self.dealing.unanswered(),
                                      hand=hand, missing_keys=missing))]
        out += self._reveal_all(final=True)
        out += self._ask_checkpoint(hand)
        return out

    def abandon(self, reason: str = "host-shutdown") -> list[Posted]:
        """End the match early (shutdown, keys that never came): MatchEnd naming any missing keys, then k_H, then a
        closing checkpoint."""
        if self.finished or self.end_reason or self.phase in (Stage.NEW,):
            return []
        return self._finish(reason)

    # ------------------------------------------------------------------ views
    def drain_events(self) -> list[Event]:
        events, self.engine_events = self.engine_events, []
        return events

    def waiting_for(self) -> tuple[DealStep, tuple[int, ...]]:
        """What the game waits for: a protocol step and its seats, or ('play', the seats to act: `to_act`)."""
        if self.phase == Stage.HEADER:
            return DealStep.HEADER, tuple(s for s in range(self.n) if s not in self.header_signed | self.absent)
        if self.phase == Stage.DEAL and self.deal_waits_for_checkpoint:
            # Both co-signatures are owed at once: a seat owes this step until it has given both.
            _, sealing = self.dealing.waiting()
            owing = {s for s in range(self.n) if s not in self.checkpoint_signed | self.absent} | set(sealing)
            return DealStep.CHECKPOINT, tuple(sorted(owing))
        if self.phase == Stage.DEAL:
            return self.dealing.waiting()
        if self.phase == Stage.CHECKPOINT:
            return DealStep.CHECKPOINT, tuple(s for s in range(self.n) if s not in self.checkpoint_signed | self.absent)
        if self.phase == Stage.PLAY and self.trustless and self.public is not None:
            assert self.trustless_dealing is not None
            if self.trustless_dealing.dealing:
                return self.trustless_dealing.waiting()
            return (DealStep.OPEN if self.public.phase == Phase.SETTLE else DealStep.PLAY), self.to_act()
        if self.phase == Stage.PLAY and self.match is not None:
            return DealStep.PLAY, self.to_act()
        return DealStep(self.phase), ()

    def to_act(self) -> tuple[int, ...]:
        """The seats the table waits for to move (every view's `to_act`, the host's bots): those the engine lets move
        but a host bot that leaves the answer to a raise to a person of its side (table_waits.py). What is legal is
        the engine's (`match.waiting_for`): the bot could still answer."""
        match = self.public if self.trustless else self.match
        if self.phase != Stage.PLAY or match is None:
            return ()
        bots = [s for s, seat in enumerate(self.seats) if seat.bot]
        return waited_for(match, match.waiting_for, bots, self.absent)

    # The client envelopes the game itself takes (the dealing layer's own are `dealer.message_types`).
    HANDLERS: ClassVar[dict[str, Callable[[HostGame, int, Signed], list[Posted]]]] = {
        "HeaderSignature": _on_HeaderSignature,
        "ActionRequest": _on_ActionRequest,
        "CheckpointSignature": _on_CheckpointSignature,
    }
