"""Tampering with real game records: every mutation must make `watten-verify` fail, for the right reason.

The records are whole games played by `LocalTable` (host and seats in one process, seeded keys, so every
record and every mutation is the same on each run). A mutation is one of:

- a byte flipped anywhere in the record file (`flip`),
- a host envelope dropped, duplicated or moved, the signatures left alone (`order`),
- a seat's action forged by the host, which then signs its whole chain again (`forged-action`),
- history changed and the chain signed again by the host alone (`resigned-history`),
- a changed game key, commitment or seed, the host's or a seat's, a ground deck, a KeySet not as the seats
  sent it, a version 1 record, a stand-in's move that is not the reference stand-in's (`seed`),
- a card opening that does not open, or opens another card (`opening`),
- a deal that does not follow from the seeds (`deal`),
- a wrong score (`score`),
- a seat's own envelopes that the host's chain does not carry (`own-envelope`),
- a withheld envelope never disclosed (`withheld`),
- an empty or truncated file (`truncated`), another game spliced in (`splice`).

- bytes that no signature covers, or edits a signature cannot see (`unbound`): the record's metadata, a withheld
  stub's type and visible_to, an envelope re-encoded or given an unknown field, the last envelope of another game.
  These were once known gaps of the verifier; each is caught now and stays a case like every other.

Each case says which first-error reasons are right for it. There are no expected failures here: a gap found in
the verifier is closed, not kept.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from watten_net.deal.commitments import seal_deck
from watten_net.deal.deck import deck_permutation
from watten_net.deal.envelope import envelope_hash
from watten_net.deal.identity import public_key_bytes
from watten_net.deal.keys import all_seeds, deck_key, host_key_commitment
from watten_net.deal.protocol import HOST_SEAT, make_envelope, parse_envelope
from watten_net.engine import Rules, canonical_deck
from watten_net.record import KIND_HOST, KIND_OWN, KIND_WITHHELD, MAGIC, Entry, encode_entries
from watten_net.v1 import watten_pb2 as pb

from tampering import (
    ACCEPTED,
    UNREADABLE,
    Game,
    Record,
    Span,
    bound_position,
    chain_indices,
    chain_seq,
    client_envelope,
    drop,
    duplicate,
    edit_host,
    encode,
    flip,
    host_indices,
    pick,
    play_game,
    relay_indices,
    replace_entries,
    resign_from,
    signed,
    spans,
    swap,
    verify,
    with_payload,
)

# ---------------------------------------------------------------------------------------------- the games


def _rules(preset: str, players: int, **flags: Any) -> Rules:
    return dataclasses.replace(Rules.preset(preset, players), target=5, **flags)


GAMES: dict[str, tuple[Rules, int, str]] = {
    "bav4": (_rules("bavarian", 4), 1, "match-end"),
    "bav4b": (_rules("bavarian", 4), 4, "match-end"),  # another game of the same table, to splice in
    "st2": (_rules("south-tyrolean", 2), 7, "match-end"),
    "blind4": (_rules("blind", 4), 3, "match-end"),
    # a bessere redeal (AttemptAborted) and the seeds revealed after every hand
    "redeal2": (_rules("bavarian", 2, bessere="redeal-penalty"), 2, "hand-end"),
    # seat 2 away for a while after the first deal: the reference stand-in plays it (StandIn, actor "bot")
    "away4": (_rules("bavarian", 4), 5, "match-end"),
}
ABSENCES: dict[str, dict[int, tuple[int, int]]] = {"away4": {40: (2, 40)}}
Games = dict[str, Game]


# What a game must contain for its cases (random play decides it, so the first seed from the listed one on that
# gives it is used: a change in the engine's choices never silently empties a class of cases).
# A type named twice must be there twice (st2's cases take its second deal, bav4's its third).
NEEDS: dict[str, tuple[str, ...]] = {
    "redeal2": ("AttemptAborted",), "bav4": ("PrivateEvent", "DeckSealed", "DeckSealed", "DeckSealed"),
    "st2": ("DeckSealed", "DeckSealed"),
    "away4": ("StandIn", "StandIn"),
}


def _stand_in_moves(entries: Record) -> list[int]:
    return host_indices(entries, "ActionAccepted", lambda p: p.actor == "bot")


def _play_with(name: str, rules: Rules, seed: int, reveal: str) -> Game:
    for candidate in range(seed, seed + 200):
        game = play_game(name, rules, candidate, reveal, ABSENCES.get(name))
        types = Counter(signed(e).type for e in game.host())
        if all(types[t] >= n for t, n in Counter(NEEDS.get(name, ())).items()) and (
                name not in ABSENCES or len(_stand_in_moves(game.host())) >= 3):
            return game
    raise AssertionError(f"no seed from {seed} on gives game {name} its {NEEDS[name]}")


@pytest.fixture(scope="module")
def games() -> Games:
    return {name: _play_with(name, rules, seed, reveal) for name, (rules, seed, reveal) in GAMES.items()}


# ---------------------------------------------------------------------------------------------- the cases


@dataclass(frozen=True)
class Tampered:
    record: Record | bytes
    at: int | None = None  # the chain seq the first error must name, when the mutation pins it


Build = Callable[[Games], "Tampered | Record | bytes"]


@dataclass(frozen=True)
class Case:
    kind: str
    name: str
    reasons: frozenset[str]
    build: Build

    @property
    def id(self) -> str:
        return f"{self.kind}-{self.name}"


CASES: list[Case] = []


def case(kind: str, name: str, reasons: Iterable[str], build: Build) -> None:
    CASES.append(Case(kind, name, frozenset(reasons), build))


def fractions(count: int) -> list[float]:
    """`count` points spread over 0..1 (both ends included when count > 1)."""
    return [i / (count - 1) for i in range(count)] if count > 1 else [0.5]


def at_index(entries: Record, index: int, change: Callable[[Any], None], g: Game, *, resign: bool = True) -> Tampered:
    """Change the host envelope at entries[index], sign again, and expect the error there."""
    return Tampered(edit_host(entries, index, change, g.host_key, resign=resign), chain_seq(entries, index))


OWNER = 1  # the seat whose records are used where a seat's record is needed (it holds withheld stubs)
STRANGER = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))

# ---------------------------------------------------------------------------------------------- flip

FLIP_REASONS = {
    UNREADABLE, "parse-error", "bad-signature", "chain-link", "unexpected-envelope", "own-envelope-missing",
    "withheld", "no-header", "empty", "incomplete",
}
# Flips land anywhere in the file except in bytes nothing binds (the metadata entry, a withheld stub's type and
# visible_to): `bound_position` moves such a position on to the next entry. Those bytes are the `unbound` cases below.
FLIPS = [("bav4", None, 36), ("bav4", OWNER, 24), ("blind4", 2, 16), ("st2", None, 12), ("redeal2", 0, 12)]


def _flip(game: str, seat: int | None, i: int, count: int) -> Build:
    def build(gs: Games) -> bytes:
        data = gs[game].encoded(seat)
        # spread evenly, with a deterministic jitter inside each stretch and a deterministic non-zero mask
        stretch = len(data) / count
        position = int(i * stretch + (i * 7919 % 97) / 97 * stretch)
        position = bound_position(data, min(position, len(data) - 1))
        assert position < len(data)
        return flip(data, position, 1 + (i * 104729) % 255)

    return build


for _game, _seat, _count in FLIPS:
    _who = "host" if _seat is None else f"seat{_seat}"
    for _i in range(_count):
        case("flip", f"{_game}-{_who}-{_i:02d}", FLIP_REASONS, _flip(_game, _seat, _i, _count))


def _flip_at(game: str, seat: int | None, where: Callable[[bytes], int], mask: int) -> Build:
    def build(gs: Games) -> bytes:
        data = gs[game].encoded(seat)
        return flip(data, where(data), mask)

    return build


case("flip", "magic-first-byte", FLIP_REASONS, _flip_at("bav4", None, lambda d: 0, 0x20))
case("flip", "magic-newline", FLIP_REASONS, _flip_at("bav4", None, lambda d: len(MAGIC) - 1, 0x01))
case("flip", "header-kind", FLIP_REASONS, _flip_at("bav4", None, lambda d: spans(d)[1].start, 0x02))
case("flip", "header-length", FLIP_REASONS, _flip_at("bav4", None, lambda d: spans(d)[1].start + 4, 0x01))
case("flip", "last-kind", FLIP_REASONS, _flip_at("bav4", None, lambda d: spans(d)[-1].start, 0x01))
case("flip", "last-length-high", FLIP_REASONS, _flip_at("bav4", None, lambda d: spans(d)[-1].start + 1, 0x01))
case("flip", "last-byte", FLIP_REASONS, _flip_at("bav4", None, lambda d: len(d) - 1, 0x80))
case("flip", "seat-own-kind", FLIP_REASONS,
     _flip_at("bav4", OWNER, lambda d: next(s.start for s in spans(d) if s.kind == KIND_OWN), 0x02))
case("flip", "seat-stub-kind", FLIP_REASONS,
     _flip_at("bav4", OWNER, lambda d: next(s.start for s in spans(d) if s.kind == KIND_WITHHELD), 0x03))
case("flip", "seat-stub-hash", FLIP_REASONS,
     _flip_at("bav4", OWNER, lambda d: next(s.body for s in spans(d) if s.kind == KIND_WITHHELD) + 10, 0x04))

# ---------------------------------------------------------------------------------------------- order


def _slots(g: Game, seat: int | None) -> tuple[Record, list[int]]:
    entries = g.record(seat)
    return entries, chain_indices(entries)


def _order(game: str, seat: int | None, op: str, fraction: float) -> Build:
    def build(gs: Games) -> Tampered:
        entries, slots = _slots(gs[game], seat)
        index = pick(slots, fraction)
        if op == "drop":
            return Tampered(drop(entries, index))
        if op == "dup":
            return Tampered(duplicate(entries, index))
        k = slots.index(index)
        other = slots[min(len(slots) - 1, k + (1 if op == "swap" else 7))]
        if other == index:  # the last slot: swap with its predecessor instead
            other = slots[k - 1]
        return Tampered(swap(entries, index, other))

    return build


def _order_reasons(op: str, fraction: float) -> set[str]:
    if op == "drop" and fraction == 0:
        return {"no-header"}
    if op == "drop" and fraction == 1:
        return {"incomplete"}
    if op in ("swap", "move") and fraction == 0:
        return {"no-header"}
    return {"chain-link"}


for _game, _seat, _ops in [
    ("bav4", None, {"drop": 14, "dup": 8, "swap": 8, "move": 4}),
    ("bav4", OWNER, {"drop": 8, "dup": 4, "swap": 5, "move": 3}),
    ("blind4", 0, {"drop": 4, "dup": 2, "swap": 3}),
    ("st2", None, {"drop": 3, "dup": 2, "swap": 2}),
]:
    _who = "host" if _seat is None else f"seat{_seat}"
    for _op, _count in _ops.items():
        for _f in fractions(_count):
            case("order", f"{_game}-{_who}-{_op}-{_f:.2f}", _order_reasons(_op, _f), _order(_game, _seat, _op, _f))

# ---------------------------------------------------------------------------------------------- forged action


def _actions(entries: Record) -> list[int]:
    return host_indices(entries, "ActionAccepted", lambda p: bool(p.action_envelope))


def _forge(game: str, seat: int | None, fraction: float, how: str) -> Build:
    def build(gs: Games) -> Tampered:
        g = gs[game]
        entries = g.record(seat)
        index = pick(_actions(entries), fraction)

        def change(p: Any) -> None:
            raw = bytes(p.action_envelope)
            if how == "stranger-key":  # the same request, signed by a key that is not the seat's
                new = client_envelope(STRANGER, raw)
            elif how == "stranger-other-action":
                new = client_envelope(STRANGER, raw, lambda q: setattr(q, "action", f"not {q.action}"))
            elif how == "changed-action":  # another action under the seat's old signature
                new = with_payload(raw, lambda q: setattr(q, "action", "concede" if q.action != "concede" else "fold"))
            else:  # "changed-head": the request moved to another chain head, old signature
                new = with_payload(raw, lambda q: setattr(q, "chain_seq", max(1, q.chain_seq - 1)))
            p.action_envelope = new
            p.action_envelope_hash = envelope_hash(new)

        return at_index(entries, index, change, g)

    return build


for _game, _seat, _count in [("bav4", None, 6), ("st2", None, 3), ("blind4", None, 3), ("bav4", OWNER, 3)]:
    _who = "host" if _seat is None else f"seat{_seat}"
    for _how in ("stranger-key", "stranger-other-action", "changed-action", "changed-head"):
        for _f in fractions(_count):
            case("forged-action", f"{_game}-{_who}-{_how}-{_f:.2f}", {"bad-signature"}, _forge(_game, _seat, _f, _how))


def _host_made(game: str, fraction: float) -> Build:
    """The host drops the seat's signed request and claims the action on its own."""

    def build(gs: Games) -> Tampered:
        g = gs[game]
        entries = g.host()

        def change(p: Any) -> None:
            p.action_envelope = b""
            p.action_envelope_hash = b""

        return at_index(entries, pick(_actions(entries), fraction), change, g)

    return build


def _other_seat(game: str, fraction: float) -> Build:
    """The host credits a seat's signed request to another seat."""

    def build(gs: Games) -> Tampered:
        g = gs[game]
        entries = g.host()
        return at_index(entries, pick(_actions(entries), fraction),
                        lambda p: setattr(p, "seat", (p.seat + 1) % g.players), g)

    return build


def _other_seats_key(game: str, fraction: float) -> Build:
    """The request re-signed with the key of another seat of the table (a bot the host runs, say)."""

    def build(gs: Games) -> Tampered:
        g = gs[game]
        entries = g.host()
        index = pick(_actions(entries), fraction)
        seat = signed(entries[index]).payload.seat

        def change(p: Any) -> None:
            new = client_envelope(g.seat_key((seat + 1) % g.players), bytes(p.action_envelope))
            p.action_envelope = new
            p.action_envelope_hash = envelope_hash(new)

        return at_index(entries, index, change, g)

    return build


for _f in fractions(3):
    case("forged-action", f"bav4-host-made-{_f:.2f}", {"unexpected-envelope"}, _host_made("bav4", _f))
    case("forged-action", f"bav4-credited-to-other-seat-{_f:.2f}", {"wrong-seat"}, _other_seat("bav4", _f))
    case("forged-action", f"bav4-other-seats-key-{_f:.2f}", {"bad-signature"}, _other_seats_key("bav4", _f))

# ---------------------------------------------------------------------------------------------- resigned history

HISTORY_REASONS = {
    "wrong-hash", "bad-chain-head", "stale-envelope-seq", "unexpected-envelope", "unexpected-message",
    "replay-mismatch", "score-mismatch", "seed-mismatch", "deal-mismatch", "incomplete",
}


def _header(change: Callable[[Any], None], game: str = "bav4", at: int = 2) -> Build:
    def build(gs: Games) -> Tampered:
        g = gs[game]
        return Tampered(edit_host(g.host(), 0, change, g.host_key), at)  # 2: the first HeaderSignature refuses it

    return build


def _retarget(p: Any) -> None:
    p.rules_json = dataclasses.replace(Rules.from_json(p.rules_json), target=7).to_json()


case("resigned-history", "header-rules", {"wrong-hash"}, _header(_retarget))
case("resigned-history", "header-seat-name", {"wrong-hash"}, _header(lambda p: setattr(p.roster[2], "name", "Mallory")))
# (a bot is host-run: a bot flag alone is refused at the header itself, bot-not-host-run; both flags still change what
# every seat signed)
case("resigned-history", "header-bot-flag", {"wrong-hash"},
     _header(lambda p: (setattr(p.roster[1], "bot", True), setattr(p.roster[1], "host_run", True))))
case("resigned-history", "header-bot-not-host-run", {"header-mismatch"},
     _header(lambda p: setattr(p.roster[1], "bot", True), at=1))
case("resigned-history", "header-tls-fingerprint", {"wrong-hash"},
     _header(lambda p: setattr(p, "host_tls_fingerprint", bytes(32))))
case("resigned-history", "header-preset", {"wrong-hash"}, _header(lambda p: setattr(p, "preset", "blind")))
case("resigned-history", "header-reveal-setting", {"wrong-hash"},
     _header(lambda p: setattr(p.settings, "reveal", "hand-end")))
case("resigned-history", "header-st2-rules", {"wrong-hash"}, _header(_retarget, "st2"))
case("resigned-history", "header-game-id", {"header-mismatch", "wrong-game"},
     _header(lambda p: setattr(p, "game_id", bytes(32)), at=1))
case("resigned-history", "header-roster-key", {"bad-signature", "wrong-hash"},
     _header(lambda p: setattr(p.roster[0], "public_key", public_key_bytes(STRANGER))))


def _other_host_key(gs: Games) -> Tampered:
    """Somebody with another host key rewrites the whole chain under it."""
    entries = gs["bav4"].host()
    return Tampered(edit_host(entries, 0, lambda p: setattr(p, "host_public_key", public_key_bytes(STRANGER)),
                              STRANGER), 2)


case("resigned-history", "whole-chain-other-host-key", {"wrong-hash"}, _other_host_key)


def _drop_resign(game: str, seat: int | None, fraction: float) -> Build:
    def build(gs: Games) -> Record:
        g = gs[game]
        entries, slots = _slots(g, seat)
        # dropping a HandOpen has cases of its own below
        index = pick([i for i in slots[1:] if entries[i].kind != KIND_HOST or signed(entries[i]).type != "HandOpen"],
                     fraction)
        return resign_from(drop(entries, index), index, g.host_key)

    return build


for _game, _seat, _count in [("bav4", None, 12), ("bav4", OWNER, 6), ("blind4", None, 4), ("redeal2", None, 4)]:
    _who = "host" if _seat is None else f"seat{_seat}"
    for _f in fractions(_count):
        case("resigned-history", f"{_game}-{_who}-drop-{_f:.2f}", HISTORY_REASONS, _drop_resign(_game, _seat, _f))


def _drop_hand(game: str, which: int) -> Build:
    """The host cuts a whole hand, HandOpen to the last relayed checkpoint signature, out of its chain."""

    def build(gs: Games) -> Record:
        g = gs[game]
        entries = g.host()
        opens = host_indices(entries, "HandOpen", lambda p: p.attempt == 0)
        which_ = which % len(opens)
        start = opens[which_]
        end = opens[which_ + 1] if which_ + 1 < len(opens) else host_indices(entries, "MatchEnd")[0]
        return resign_from([*entries[:start], *entries[end:]], start, g.host_key)

    return build


case("resigned-history", "bav4-drop-first-hand", HISTORY_REASONS, _drop_hand("bav4", 0))
case("resigned-history", "bav4-drop-second-hand", HISTORY_REASONS, _drop_hand("bav4", 1))
case("resigned-history", "blind4-drop-first-hand", HISTORY_REASONS, _drop_hand("blind4", 0))
case("resigned-history", "bav4-drop-last-hand", {"unexpected-envelope", "score-mismatch"}, _drop_hand("bav4", -1))


def _drop_hand_open(game: str, which: int) -> Build:
    def build(gs: Games) -> Record:
        g = gs[game]
        entries = g.host()
        index = host_indices(entries, "HandOpen")[which]
        return resign_from(drop(entries, index), index, g.host_key)

    return build


case("resigned-history", "bav4-drop-first-hand-open", {"unexpected-envelope"}, _drop_hand_open("bav4", 0))
case("resigned-history", "blind4-drop-first-hand-open", {"unexpected-envelope"}, _drop_hand_open("blind4", 0))
case("resigned-history", "bav4-drop-last-hand-open", {"unexpected-envelope"}, _drop_hand_open("bav4", -1))


def _relay_again(gs: Games) -> Record:
    """The host relays an envelope a second time (a seat's KeySetSignature) and signs on."""
    g = gs["bav4"]
    entries = g.host()
    index = relay_indices(entries, "KeySetSignature")[1]
    return resign_from(duplicate(entries, index), index + 1, g.host_key)


case("resigned-history", "relay-twice", {"unexpected-message", "unexpected-envelope"}, _relay_again)


def _checkpoint_head(gs: Games) -> Tampered:
    g = gs["bav4"]
    entries = g.host()
    index = host_indices(entries, "Checkpoint")[1]
    # signed again from the next envelope on: resign_from would put the true head back into the Checkpoint itself
    out = edit_host(entries, index, lambda p: setattr(p, "chain_head", bytes(32)), g.host_key, resign=False)
    return Tampered(resign_from(out, index + 1, g.host_key), chain_seq(entries, index))


case("resigned-history", "checkpoint-names-other-head", {"replay-mismatch"}, _checkpoint_head)


def _envelope_game_id(game: str, fraction: float) -> Build:
    """A host envelope (before the last checkpoint) claims another game id in its envelope header."""

    def build(gs: Games) -> Record:
        g = gs[game]
        entries = g.host()
        last_checkpoint = host_indices(entries, "Checkpoint")[-1]
        index = pick(list(range(1, last_checkpoint)), fraction)
        s = signed(entries[index])
        raw = make_envelope(g.host_key, bytes(32), s.seq, bytes(s.envelope.prev_hash), HOST_SEAT, s.payload)
        return resign_from(replace_entries(entries, index, [Entry(KIND_HOST, raw)]), index, g.host_key)

    return build


for _f in fractions(3):
    case("resigned-history", f"bav4-envelope-game-id-{_f:.2f}", {"wrong-hash", "wrong-game"},
         _envelope_game_id("bav4", _f))


def _aborted(change: Callable[[Any], None]) -> Build:
    def build(gs: Games) -> Tampered:
        g = gs["redeal2"]
        entries = g.host()
        return at_index(entries, host_indices(entries, "AttemptAborted")[0], change, g)

    return build


case("resigned-history", "redeal2-abort-reason", {"replay-mismatch"},
     _aborted(lambda p: setattr(p, "reason", "timeout")))
case("resigned-history", "redeal2-abort-seat", {"replay-mismatch"}, _aborted(lambda p: setattr(p, "seat", 1)))


def _drop_abort(gs: Games) -> Record:
    g = gs["redeal2"]
    entries = g.host()
    index = host_indices(entries, "AttemptAborted")[0]
    return resign_from(drop(entries, index), index, g.host_key)


case("resigned-history", "redeal2-drop-abort", {"unexpected-envelope"}, _drop_abort)

# ---------------------------------------------------------------------------------------------- seed


def _host_seed(game: str, which: int) -> Build:
    """reveal = hand-end: the host's HostSeedReveal of an attempt holds another S(h,a) than its key gives."""

    def build(gs: Games) -> Tampered:
        g = gs[game]
        entries = g.host()
        index = host_indices(entries, "HostSeedReveal")[which]
        return at_index(entries, index, lambda p: setattr(p, "seed", bytes([p.seed[0] ^ 1]) + p.seed[1:]), g)

    return build


def _flip_byte(value: bytes, which: int) -> bytes:
    out = bytearray(value)
    out[which] ^= 0x01
    return bytes(out)


def _host_key(game: str, which: int) -> Build:
    """The host's HostKeyReveal at the match's end holds another k_H (one byte changed) than K_H commits to."""

    def build(gs: Games) -> Tampered:
        g = gs[game]
        entries = g.host()
        index = host_indices(entries, "HostKeyReveal")[0]
        return at_index(entries, index, lambda p: setattr(p, "key", _flip_byte(p.key, which)), g)

    return build


def _host_commitment(game: str, which: int) -> Build:
    """The header's K_H changed (the seats' signatures left alone): the revealed k_H no longer opens it."""

    def build(gs: Games) -> Tampered:
        g = gs[game]
        entries = g.host()
        reveal = host_indices(entries, "HostKeyReveal")[0]
        new = edit_host(entries, 0, lambda p: setattr(p, "host_key_commitment",
                                                      _flip_byte(p.host_key_commitment, which)), g.host_key)
        return Tampered(new, chain_seq(entries, reveal))

    return build


def _keys_of(g: Game) -> tuple[bytes, list[bytes], bytes]:
    """The game id, every seat's game key and Hks of a played game (from its host, as the record reveals them)."""
    dealer = g.table.host.verified_dealing
    assert dealer is not None
    return g.table.host.game_id, [dealer.keys.keys[s] for s in range(g.players)], dealer.keys.key_set


def _grind(game: str, which: int) -> Build:
    """The host grinds a deal: it derives attempt `which`'s deck from other bytes than S(h,a) (as if it had chosen
    its seed then) and seals that deck, correct salts and all; with reveal = hand-end it reveals that seed too."""

    def build(gs: Games) -> Tampered:
        g = gs[game]
        entries = g.host()
        index = host_indices(entries, "DeckSealed")[which]
        sealed = signed(entries[index]).payload
        h, a = int(sealed.hand), int(sealed.attempt)
        game_id, seat_keys, key_set = _keys_of(g)
        secret = bytes([0x5A]) * 32
        dk = deck_key(secret, all_seeds(seat_keys, game_id, h, a), key_set, game_id, h, a)
        canonical = canonical_deck(g.table.rules.deck)
        cards = [canonical[j].text for j in deck_permutation(dk, len(canonical))]
        commitments = seal_deck(secret, game_id, h, a, cards)
        out = list(entries)
        reveals = [i for i in host_indices(entries, "HostSeedReveal")
                   if (signed(entries[i]).payload.hand, signed(entries[i]).payload.attempt) == (h, a)]
        if reveals:
            out = edit_host(out, reveals[0], lambda p: setattr(p, "seed", secret), g.host_key, resign=False)

        def change(p: Any) -> None:
            del p.card_commitments[:]
            p.card_commitments.extend(commitments)

        return at_index(out, index, change, g)

    return build


def _rekey(game: str) -> Build:
    """The host grinds its own key after the fact: a new k_H, K_H in the header and HostKeyReveal both changed to
    match (so the key opens its commitment), the chain signed again: the seats signed the header with the old K_H."""

    def build(gs: Games) -> Tampered:
        g = gs[game]
        entries = g.host()
        new_key = bytes([0xA5]) * 32
        commitment = host_key_commitment(g.table.host.game_id, new_key)
        out = edit_host(entries, host_indices(entries, "HostKeyReveal")[0], lambda p: setattr(p, "key", new_key),
                        g.host_key, resign=False)
        return Tampered(edit_host(out, 0, lambda p: setattr(p, "host_key_commitment", commitment), g.host_key), 2)

    return build


def _key_withheld(game: str) -> Build:
    """The match is over, and the host drops its HostKeyReveal (and signs its chain again): no deal can be checked."""

    def build(gs: Games) -> Record:
        g = gs[game]
        entries = g.host()
        index = host_indices(entries, "HostKeyReveal")[0]
        return resign_from(drop(entries, index), index, g.host_key)

    return build


def _older_version(game: str) -> Build:
    """A version 1 header (a record that says it was made by the older protocol), signed again by the host."""

    def build(gs: Games) -> Tampered:
        g = gs[game]
        return Tampered(edit_host(g.host(), 0, lambda p: setattr(p, "protocol_version", 1), g.host_key), 1)

    return build


def _seat_reveal(game: str, which: int, field: str, seat_signs: bool) -> Build:
    """A seat's KeyReveal changed: by the seat itself (signed with its key), or by the host under the old signature.

    `field` "key": another game key than the seat committed to; "head": the reveal names a chain head from before
    the last KeySet signature (as if the seat had revealed before every seat had signed Hks)."""

    def build(gs: Games) -> Tampered:
        g = gs[game]
        entries = g.host()
        index = relay_indices(entries, "KeyReveal")[which]
        first_signature = relay_indices(entries, "KeySetSignature")[0]
        early_seq = chain_seq(entries, first_signature)  # before the last KeySet signature
        early_head = signed(entries[first_signature]).hash

        def change_reveal(q: Any) -> None:
            if field == "key":
                q.key = bytes([q.key[0] ^ 0x10]) + q.key[1:]
            else:
                q.chain_seq = early_seq
                q.chain_head = early_head

        def change(p: Any) -> None:
            inner = parse_envelope(bytes(p.envelope), host=False)
            if seat_signs:
                p.envelope = client_envelope(g.seat_key(inner.sender), bytes(p.envelope), change_reveal)
            else:
                p.envelope = with_payload(bytes(p.envelope), change_reveal)

        return at_index(entries, index, change, g)

    return build


def _host_cut(game: str, which: int) -> Build:
    """The cut follows from the cutter's game key (fixed before any deck): the host posts another one."""

    def build(gs: Games) -> Tampered:
        g = gs[game]
        entries = g.host()
        index = host_indices(entries, "ActionAccepted", lambda p: p.actor == "key")[which]

        def change(p: Any) -> None:
            n = int(p.action.split()[1])
            p.action = f"cut {n + 1 if n < 20 else n - 1}"

        return at_index(entries, index, change, g)

    return build


def _key_set_entry(game: str, which: int, how: str) -> Build:
    """The host's KeySet does not hold the seats' KeyCommits as they sent them: two entries swapped (seat order
    broken), or an entry's commitment changed under the seat's old signature."""

    def build(gs: Games) -> Tampered:
        g = gs[game]
        entries = g.host()
        index = host_indices(entries, "KeySet")[0]

        def change(p: Any) -> None:
            i = which % len(p.commits)
            if how == "swapped":
                j = (i + 1) % len(p.commits)
                first, second = pb.KeyCommitEntry(), pb.KeyCommitEntry()
                first.CopyFrom(p.commits[i])
                second.CopyFrom(p.commits[j])
                p.commits[i].CopyFrom(second)
                p.commits[j].CopyFrom(first)
            else:
                p.commits[i].envelope = with_payload(bytes(p.commits[i].envelope),
                                                     lambda q: setattr(q, "commitment", bytes(32)))

        return at_index(entries, index, change, g)

    return build


def _key_set_resigned_entry(game: str, which: int) -> Build:
    """A KeySet entry replaced by a KeyCommit to another key that the seat did sign (say, one of an earlier attempt
    at the game): the KeySet's hash Hks is then not the one every seat signed."""

    def build(gs: Games) -> Tampered:
        g = gs[game]
        entries = g.host()
        index = host_indices(entries, "KeySet")[0]
        i = which % g.players
        new = client_envelope(g.seat_key(i), bytes(signed(entries[index]).payload.commits[i].envelope),
                              lambda q: setattr(q, "commitment", bytes([0x33]) * 32))
        signature = relay_indices(entries, "KeySetSignature")[0]
        out = edit_host(entries, index, lambda p: setattr(p.commits[i], "envelope", new), g.host_key)
        return Tampered(out, chain_seq(entries, signature))

    return build


for _game in ("bav4", "redeal2"):
    for _w in (0, 1, -1):
        case("seed", f"{_game}-host-key-reveal-{_w}", {"host-key-mismatch"}, _host_key(_game, _w))
        case("seed", f"{_game}-host-key-commitment-{_w}", {"host-key-mismatch"}, _host_commitment(_game, _w))
        case("seed", f"{_game}-host-grinds-deck-{_w}", {"deal-mismatch"}, _grind(_game, _w))
        case("seed", f"{_game}-key-set-entry-swapped-{_w}", {"replay-mismatch"}, _key_set_entry(_game, _w, "swapped"))
        case("seed", f"{_game}-key-set-entry-forged-{_w}", {"bad-signature"}, _key_set_entry(_game, _w, "forged"))
        # (seat 0's own next envelope then links to the KeyCommit it really sent: stale-envelope-seq)
        case("seed", f"{_game}-key-set-entry-resigned-{_w}", {"wrong-hash", "stale-envelope-seq"},
             _key_set_resigned_entry(_game, _w))
    case("seed", f"{_game}-host-rekeys-match", {"wrong-hash"}, _rekey(_game))
    case("seed", f"{_game}-host-key-withheld", {"host-key-withheld"}, _key_withheld(_game))
    case("seed", f"{_game}-older-version", {"older-version"}, _older_version(_game))
for _w in (0, 1, -1):
    case("seed", f"redeal2-host-seed-reveal-{_w}", {"seed-mismatch"}, _host_seed("redeal2", _w))
for _game, _ws in (("bav4", (0, 1, 2, -1)), ("st2", (0, -1)), ("blind4", (1,))):
    for _w in _ws:
        case("seed", f"{_game}-seat-lies-key-{_w}", {"commitment-mismatch"}, _seat_reveal(_game, _w, "key", True))
        case("seed", f"{_game}-seat-lies-head-{_w}", {"wrong-hash"}, _seat_reveal(_game, _w, "head", True))
        case("seed", f"{_game}-host-changes-seat-key-{_w}", {"bad-signature"}, _seat_reveal(_game, _w, "key", False))
        case("seed", f"{_game}-host-changes-cut-{_w}", {"replay-mismatch"}, _host_cut(_game, _w))

def _stand_in_move(fraction: float) -> Build:
    """The host plays a seat that is away otherwise than the reference stand-in would (it raises, which the
    reference never does, or folds when asked to raise): version 1 let the host's own bot choose these moves."""

    def build(gs: Games) -> Tampered:
        g = gs["away4"]
        entries = g.host()
        return at_index(entries, pick(_stand_in_moves(entries), fraction),
                        lambda p: setattr(p, "action", "raise" if p.action != "raise" else "fold"), g)

    return build


def _stand_in_for_present(fraction: float) -> Build:
    """The host claims a present seat's move as a stand-in's (its signed request dropped, actor "bot")."""

    def build(gs: Games) -> Tampered:
        g = gs["away4"]
        entries = g.host()
        away = host_indices(entries, "StandIn")[0]
        index = pick([i for i in _actions(entries) if i < away], fraction)

        def change(p: Any) -> None:
            p.action_envelope = b""
            p.action_envelope_hash = b""
            p.actor = "bot"

        return at_index(entries, index, change, g)

    return build


def _stand_in_dropped(gs: Games) -> Tampered:
    """The StandIn that says seat 2 is away is dropped: the stand-in's moves are then the host's, for a seat
    nobody called away."""
    g = gs["away4"]
    entries = g.host()
    index = host_indices(entries, "StandIn", lambda p: p.active)[0]
    return Tampered(resign_from(drop(entries, index), index, g.host_key))


for _f in fractions(3):
    case("seed", f"away4-stand-in-move-changed-{_f:.2f}", {"stand-in-mismatch"}, _stand_in_move(_f))
    case("seed", f"away4-stand-in-for-present-seat-{_f:.2f}", {"not-away"}, _stand_in_for_present(_f))
# (a seat's own move right after the dropped StandIn names a chain head the re-signed chain no longer has)
case("seed", "away4-stand-in-dropped", {"not-away", "unexpected-envelope", "bad-chain-head"}, _stand_in_dropped)


# ---------------------------------------------------------------------------------------------- opening


def _other_card(card: str) -> str:
    return "E7" if card != "E7" else "E8"


def _opening(game: str, seat: int | None, type_: str, fraction: float, field: str) -> Build:
    def build(gs: Games) -> Tampered:
        g = gs[game]
        entries = g.record(seat)
        if type_ == "ActionAccepted":
            index = pick(host_indices(entries, type_, lambda p: len(p.openings) > 0), fraction)
        else:
            index = pick(host_indices(entries, type_), fraction)

        def change(p: Any) -> None:
            opening = p.openings[0] if type_ == "ActionAccepted" else p.cards[-1]
            if field == "card":
                opening.card = _other_card(opening.card)
            elif field == "salt":
                opening.salt = bytes([opening.salt[0] ^ 1]) + opening.salt[1:]
            else:  # the position: the card is claimed from another place of the deck
                opening.position = (opening.position + 1) % 32

        return at_index(entries, index, change, g)

    return build


for _game, _seat, _type, _count, _reasons in [
    ("bav4", None, "ActionAccepted", 4, {"replay-mismatch"}),
    ("blind4", None, "ActionAccepted", 2, {"replay-mismatch"}),
    ("bav4", OWNER, "ActionAccepted", 2, {"replay-mismatch"}),
    ("bav4", None, "CardDelivery", 4, {"deal-mismatch"}),
    ("st2", None, "CardDelivery", 2, {"deal-mismatch"}),
    ("bav4", OWNER, "CardDelivery", 2, {"deal-mismatch"}),
]:
    _who = "host" if _seat is None else f"seat{_seat}"
    for _f in fractions(_count):
        for _field in ("card", "salt", "position"):
            case("opening", f"{_game}-{_who}-{_type}-{_field}-{_f:.2f}", _reasons,
                 _opening(_game, _seat, _type, _f, _field))


def _private_event(fraction: float, field: str) -> Build:
    """The card shown at the cut (Schlecken), in the PrivateEvent to the seat that takes it."""

    def build(gs: Games) -> Tampered:
        found = [(g, i) for g in gs.values() for i in host_indices(g.host(), "PrivateEvent")]
        assert found, "no game of this suite has a Schlecken"
        g, index = found[min(len(found) - 1, int(fraction * len(found)))]
        entries = g.host()

        def change(p: Any) -> None:
            fields = p.events[0].fields
            if field == "card":
                fields["card"] = json.dumps(_other_card(json.loads(fields["card"])))
            else:
                fields["salt"] = json.dumps("00" * 32)

        return at_index(entries, index, change, g)

    return build


for _f in fractions(2):
    for _field in ("card", "salt"):
        case("opening", f"private-event-{_field}-{_f:.2f}", {"deal-mismatch"}, _private_event(_f, _field))

# ---------------------------------------------------------------------------------------------- deal


def _other_deck(game: str, which: int, how: str) -> Build:
    """DeckSealed commits to another deck than the seeds give (well-formed commitments, the host's own salts)."""

    def build(gs: Games) -> Tampered:
        g = gs[game]
        entries = g.host()
        index = host_indices(entries, "DeckSealed")[which]
        sealed = signed(entries[index]).payload
        attempts = g.table.host.dealing.attempts  # type: ignore[attr-defined]
        attempt = next(a for a in attempts if (a.hand, a.attempt) == (sealed.hand, sealed.attempt))
        cards = [c.text for c in attempt.deck]
        if how == "rotated":
            cards = cards[1:] + cards[:1]
        elif how == "two-swapped":
            cards[3], cards[20] = cards[20], cards[3]
        elif how == "sorted":
            cards = sorted(cards)
        else:  # the deck of another hand
            other = attempts[(attempts.index(attempt) + 1) % len(attempts)]
            cards = [c.text for c in other.deck]
        game_id = bytes(signed(entries[0]).payload.game_id)
        commitments = seal_deck(attempt.secret, game_id, sealed.hand, sealed.attempt, cards)

        def change(p: Any) -> None:
            del p.card_commitments[:]
            p.card_commitments.extend(commitments)

        return at_index(entries, index, change, g)

    return build


for _game, _w in (("bav4", 0), ("bav4", -1), ("st2", 1), ("blind4", 0)):
    for _how in ("rotated", "two-swapped", "sorted", "other-hand"):
        case("deal", f"{_game}-deck-{_how}-{_w}", {"deal-mismatch"}, _other_deck(_game, _w, _how))


def _set_cards(cards: Any) -> Callable[[Any], None]:
    def change(p: Any) -> None:
        del p.cards[:]
        p.cards.extend(cards)

    return change


def _dealt_to_wrong_seat(game: str, which: int) -> Build:
    """Two seats' first packets swapped: every card opens its commitment, but the deal map says otherwise."""

    def build(gs: Games) -> Tampered:
        g = gs[game]
        entries = g.host()
        deliveries = host_indices(entries, "CardDelivery", lambda p: p.packet == 1)
        first = deliveries[which * g.players]
        second = next(i for i in deliveries if i > first and signed(entries[i]).payload.seat
                      != signed(entries[first]).payload.seat)
        a, b = signed(entries[first]).payload, signed(entries[second]).payload
        out = edit_host(entries, second, _set_cards(a.cards), g.host_key, resign=False)
        return at_index(out, first, _set_cards(b.cards), g)

    return build


for _game, _w in (("bav4", 0), ("bav4", 1), ("st2", 0)):
    case("deal", f"{_game}-packets-swapped-{_w}", {"deal-mismatch"}, _dealt_to_wrong_seat(_game, _w))

# ---------------------------------------------------------------------------------------------- score


def _score(game: str, type_: str, which: int, field: str) -> Build:
    def build(gs: Games) -> Tampered:
        g = gs[game]
        entries = g.host()
        index = host_indices(entries, type_)[which]

        def change(p: Any) -> None:
            if field == "winner_side":
                p.winner_side = 1 - p.winner_side if p.winner_side in (0, 1) else 0
            elif field == "reason":
                p.reason = "maschine" if p.reason != "maschine" else "tricks"
            else:
                values = getattr(p, field)
                if len(values) == 0:
                    values.append(1)
                else:
                    values[-1] += 1

        return at_index(entries, index, change, g)

    return build


HAND_ENDS: list[tuple[str, tuple[int, ...]]] = [("bav4", (0, 1, -1)), ("st2", (0, -1)), ("blind4", (-1,)),
                                               ("redeal2", (0,))]
for _game, _hand_ws in HAND_ENDS:
    for _w in _hand_ws:
        for _field in ("scores", "points", "winner_side", "bummerl", "reason"):
            case("score", f"{_game}-hand-end-{_w}-{_field}", {"score-mismatch"}, _score(_game, "HandEnd", _w, _field))
for _game in ("bav4", "st2", "blind4", "redeal2"):
    for _field in ("scores", "winner_side", "bummerl", "reason"):
        case("score", f"{_game}-match-end-{_field}", {"score-mismatch"}, _score(_game, "MatchEnd", 0, _field))

# ---------------------------------------------------------------------------------------------- own envelopes


def _own(entries: Record) -> list[int]:
    return [i for i, e in enumerate(entries) if e.kind == KIND_OWN]


def _own_changed(fraction: float) -> Build:
    """The seat's record holds an envelope it signed that the host's chain does not carry."""

    def build(gs: Games) -> Record:
        g = gs["bav4"]
        entries = g.seat(OWNER)
        index = pick(_own(entries), fraction)

        def change(q: Any) -> None:
            if hasattr(q, "chain_seq"):
                q.chain_seq = q.chain_seq - 1 if q.chain_seq > 1 else 2
            elif hasattr(q, "hand"):
                q.hand = q.hand + 9
            else:
                q.header_hash = bytes(32)

        raw = client_envelope(g.seat_key(OWNER), entries[index].data, change)
        return replace_entries(entries, index, [Entry(KIND_OWN, raw)])

    return build


for _f in fractions(5):
    case("own-envelope", f"changed-{_f:.2f}", {"own-envelope-missing"}, _own_changed(_f))


def _own_of_other_game(gs: Games) -> Record:
    entries = gs["bav4"].seat(OWNER)
    stranger = [e for e in gs["bav4b"].seat(OWNER) if e.kind == KIND_OWN]
    return [*entries, stranger[len(stranger) // 2]]


case("own-envelope", "of-another-game", {"own-envelope-missing"}, _own_of_other_game)


def _carriers(entries: Record) -> list[int]:
    """Host envelopes of a seat's record that carry one of the seat's own envelopes."""
    own = {envelope_hash(entries[i].data) for i in _own(entries)}
    out = []
    for i in host_indices(entries):
        p = signed(entries[i]).payload
        inner = bytes(getattr(p, "envelope", b"") or getattr(p, "action_envelope", b""))
        if inner and envelope_hash(inner) in own:
            out.append(i)
    return out


def _own_dropped_from_chain(fraction: float, resign: bool) -> Build:
    def build(gs: Games) -> Record:
        g = gs["bav4"]
        entries = g.seat(OWNER)
        index = pick(_carriers(entries), fraction)
        out = drop(entries, index)
        return resign_from(out, index, g.host_key) if resign else out

    return build


for _f in fractions(4):
    case("own-envelope", f"dropped-from-chain-{_f:.2f}", {"chain-link"}, _own_dropped_from_chain(_f, False))
    case("own-envelope", f"dropped-from-chain-resigned-{_f:.2f}", HISTORY_REASONS | {"own-envelope-missing"},
         _own_dropped_from_chain(_f, True))


def _own_entry_removed(gs: Games) -> Record:
    entries = gs["bav4"].seat(OWNER)
    return drop(entries, pick(_own(entries), 0.5))


case("own-envelope", "entry-removed-from-record", {"own-envelope-missing"}, _own_entry_removed)


def _own_last_cut(count: int) -> Build:
    """The seat's record without its last `count` own envelopes (the host's entries untouched): every own envelope
    left is in order and in the chain, so only the count of what the seat sent tells."""

    def build(gs: Games) -> Record:
        entries = gs["bav4"].seat(OWNER)
        cut = set(_own(entries)[-count:])
        return [e for i, e in enumerate(entries) if i not in cut]

    return build


for _n in (1, 2, 5):
    case("own-envelope", f"last-{_n}-cut-off", {"own-envelope-missing"}, _own_last_cut(_n))


def _own_entry_of_other_seat(gs: Games) -> Record:
    entries = gs["bav4"].seat(OWNER)
    theirs = [e for e in gs["bav4"].seat(OWNER + 1) if e.kind == KIND_OWN]
    return [*entries, theirs[3]]


case("own-envelope", "entry-of-another-seat", {"own-envelope-missing"}, _own_entry_of_other_seat)

# ---------------------------------------------------------------------------------------------- withheld


def _disclosure_gone(game: str, seat: int, resign: bool) -> Build:
    def build(gs: Games) -> Record:
        g = gs[game]
        entries = g.seat(seat)
        index = host_indices(entries, "Disclosure")[-1]
        out = drop(entries, index)
        return resign_from(out, index, g.host_key) if resign else out

    return build


def _disclosure_short(game: str, seat: int, which: int) -> Build:
    def build(gs: Games) -> Record:
        g = gs[game]
        entries = g.seat(seat)
        index = host_indices(entries, "Disclosure", lambda p: len(p.envelopes) > 0)[-1]
        return edit_host(entries, index, lambda p: p.envelopes.pop(which), g.host_key)

    return build


def _disclosure_altered(game: str, seat: int) -> Build:
    """The disclosure carries a different envelope than the one withheld (same seq, re-signed by the host)."""

    def build(gs: Games) -> Record:
        g = gs[game]
        entries = g.seat(seat)
        index = host_indices(entries, "Disclosure")[-1]

        def change(p: Any) -> None:
            s = parse_envelope(bytes(p.envelopes[0]), host=True)
            payload = type(s.payload)()
            payload.CopyFrom(s.payload)
            payload.hand += 1
            env = s.envelope
            p.envelopes[0] = make_envelope(g.host_key, bytes(env.game_id), s.seq, bytes(env.prev_hash), HOST_SEAT,
                                           payload)

        return edit_host(entries, index, change, g.host_key)

    return build


def _public_as_stub(type_: str) -> Build:
    """A seat's record shows a public envelope only as a withheld stub (so it is never disclosed)."""

    def build(gs: Games) -> Record:
        entries = gs["bav4"].seat(OWNER)
        index = host_indices(entries, type_)[0]
        s = signed(entries[index])
        stub = pb.Withheld(envelope_hash=s.hash, type=s.type, visible_to=[0])
        return replace_entries(entries, index, [Entry(KIND_WITHHELD, stub.SerializeToString(deterministic=True))])

    return build


for _game, _seat in (("bav4", OWNER), ("blind4", 0), ("blind4", 2), ("st2", 0)):
    case("withheld", f"{_game}-seat{_seat}-disclosure-dropped", {"chain-link"}, _disclosure_gone(_game, _seat, False))
    case("withheld", f"{_game}-seat{_seat}-never-disclosed", {"withheld"}, _disclosure_gone(_game, _seat, True))
    # when the seat saw the envelope itself, the replay still finds the disclosure short: replay-mismatch
    case("withheld", f"{_game}-seat{_seat}-disclosure-short-first", {"withheld", "replay-mismatch"},
         _disclosure_short(_game, _seat, 0))
    case("withheld", f"{_game}-seat{_seat}-disclosure-short-last", {"withheld", "replay-mismatch"},
         _disclosure_short(_game, _seat, -1))
    case("withheld", f"{_game}-seat{_seat}-disclosure-altered", {"withheld", "replay-mismatch"},
         _disclosure_altered(_game, _seat))
for _type in ("Relay", "HandOpen", "ActionAccepted", "HandEnd", "MatchEnd"):
    case("withheld", f"public-{_type}-as-stub", {"withheld"}, _public_as_stub(_type))


def _blind_not_disclosed(gs: Games) -> Record:
    """Blind: the host never discloses the withheld announcements (its Disclosure after the hand is dropped)."""
    g = gs["blind4"]
    entries = g.host()
    index = host_indices(entries, "Disclosure")[0]
    return resign_from(drop(entries, index), index, g.host_key)


case("withheld", "blind4-host-skips-disclosure", {"unexpected-envelope"}, _blind_not_disclosed)

# ---------------------------------------------------------------------------------------------- truncated, empty


def _bytes(data: bytes) -> Build:
    return lambda gs: data


case("truncated", "empty-file", {UNREADABLE}, _bytes(b""))
case("truncated", "half-magic", {UNREADABLE}, _bytes(MAGIC[:7]))
case("truncated", "wrong-magic", {UNREADABLE}, _bytes(b"WATTEN-RECORD/2\n"))
case("truncated", "magic-only", {"empty"}, _bytes(MAGIC))
case("truncated", "metadata-only", {"empty"}, lambda gs: encode([], None))
case("truncated", "header-only", {"incomplete"}, lambda gs: gs["bav4"].host()[:1])


def _spans_after_last_disclosure(data: bytes) -> list[Span]:
    entries = spans(data)
    last = max(k for k, span in enumerate(entries)
               if span.kind == KIND_HOST and signed(Entry(KIND_HOST, data[span.body: span.end])).type == "Disclosure")
    return entries[last + 1:]


def _host_spans(data: bytes, type_: str) -> list[Span]:
    return [span for span in spans(data)
            if span.kind == KIND_HOST and signed(Entry(KIND_HOST, data[span.body: span.end])).type == type_]


def _cut(game: str, seat: int | None, fraction: float, how: str) -> Build:
    def build(gs: Games) -> bytes:
        data = gs[game].encoded(seat)
        if how == "after-deck-sealed":  # mid-hand
            return data[: _host_spans(data, "DeckSealed")[int(fraction)].end]
        if how in ("between-hands", "in-checkpoint"):  # at the next hand's HandOpen, or one entry before it
            checkpoint = _host_spans(data, "Checkpoint")[int(fraction)]
            hand_open = next(span for span in _host_spans(data, "HandOpen") if span.start > checkpoint.start)
            if how == "between-hands":
                return data[: hand_open.start]
            return data[: max(span.start for span in spans(data) if span.start < hand_open.start)]
        if how == "tail":  # at an entry boundary after the last disclosure: every seed and envelope is in
            tail = _spans_after_last_disclosure(data)
            return data[: tail[min(len(tail) - 1, int(fraction * len(tail)))].start]
        entries = spans(data)[1:]
        span = entries[min(len(entries) - 1, int(fraction * len(entries)))]
        return data[: span.start + (3 if how == "inside" else 0)]

    return build


for _game, _seat, _count in (("bav4", None, 8), ("bav4", OWNER, 4), ("st2", None, 3), ("blind4", 3, 3)):
    _who = "host" if _seat is None else f"seat{_seat}"
    for _f in fractions(_count):
        case("truncated", f"{_game}-{_who}-inside-entry-{_f:.2f}", {UNREADABLE}, _cut(_game, _seat, _f, "inside"))
        case("truncated", f"{_game}-{_who}-in-last-checkpoint-{_f:.2f}", {"incomplete"}, _cut(_game, _seat, _f, "tail"))
# the hand-end reveal game, cut while the seats co-sign a hand's end: every seed used so far is in
for _seat in (None, 0, 1):
    _who = "host" if _seat is None else f"seat{_seat}"
    case("truncated", f"redeal2-{_who}-in-checkpoint", {"incomplete"}, _cut("redeal2", _seat, 0, "in-checkpoint"))
CUT_GAP = ("misleading reason: a record cut off mid-game (its writer died) fails as 'missing-seed' (\"the host never "
           "revealed its seed\", at envelope 0, even 'of hand -1 attempt -1') or 'withheld' (\"never disclosed\"), "
           "blaming the host, not as 'incomplete'")
for _game, _seat, _w in (("bav4", None, 0), ("bav4", None, 2), ("bav4", OWNER, 1), ("redeal2", None, 1)):
    _who = "host" if _seat is None else f"seat{_seat}"
    case("truncated", f"{_game}-{_who}-mid-hand-{_w}", {"incomplete"}, _cut(_game, _seat, _w, "after-deck-sealed"))
case("truncated", "redeal2-host-between-hands", {"incomplete"}, _cut("redeal2", None, 0, "between-hands"))
case("truncated", "bav4-seat1-between-hands", {"incomplete"}, _cut("bav4", OWNER, 0, "between-hands"))


# ---------------------------------------------------------------------------------------------- splice


def _splice(how: str, fraction: float = 0.5) -> Build:
    def build(gs: Games) -> Record:
        a, b = gs["bav4"].host(), gs["bav4b"].host()
        k = max(1, min(len(a), len(b)) - 2 if fraction == 1 else int(fraction * min(len(a), len(b))))
        if how == "appended":
            return [*a, *b]
        if how == "other-header":
            return [b[0], *a[1:]]
        if how == "other-tail":
            return [*a[:k], *b[k:]]
        if how == "inserted":
            return [*a[:k], b[k], *a[k:]]
        return [*a[:k], b[k], *a[k + 1:]]  # "replaced"

    return build


case("splice", "appended-whole-game", {"chain-link"}, _splice("appended"))
case("splice", "other-games-header", {"chain-link"}, _splice("other-header"))
for _f in fractions(4):
    case("splice", f"other-games-tail-{_f:.2f}", {"chain-link"}, _splice("other-tail", _f))
for _f in fractions(2):
    case("splice", f"inserted-envelope-{_f:.2f}", {"chain-link"}, _splice("inserted", _f))
    case("splice", f"replaced-envelope-{_f:.2f}", {"chain-link"}, _splice("replaced", _f))


def _seat_record_mixed(gs: Games) -> Record:
    """Seat 1's chain of one game with the own entries of seat 1 of another game."""
    mine = gs["bav4"].seat(OWNER)
    theirs = gs["bav4b"].seat(OWNER)
    return [*(e for e in mine if e.kind != KIND_OWN), *(e for e in theirs if e.kind == KIND_OWN)]


case("splice", "seat-record-own-entries-of-other-game", {"own-envelope-missing"}, _seat_record_mixed)


def _resigned_foreign_envelope(gs: Games) -> Record:
    """The host moves a relayed seat envelope of another game into this one and signs its chain again."""
    g = gs["bav4"]
    entries = g.host()
    foreign = gs["bav4b"].host()
    index = relay_indices(entries, "DeckSealedSignature")[0]
    donor = signed(foreign[relay_indices(foreign, "DeckSealedSignature")[0]]).payload
    out = edit_host(entries, index, lambda p: setattr(p, "envelope", donor.envelope), g.host_key, resign=False)
    return resign_from(out, index, g.host_key)


case("splice", "foreign-relay-resigned", {"wrong-game", "bad-signature"}, _resigned_foreign_envelope)

# ---------------------------------------------------------------------------------------------- unbound


def _meta_seat(gs: Games) -> bytes:
    return encode_entries({"writer": "seat", "seat": OWNER + 1}, gs["bav4"].seat(OWNER))


def _stub_note(field: str) -> Build:
    def build(gs: Games) -> Record:
        entries = gs["bav4"].seat(OWNER)
        index = next(i for i, e in enumerate(entries) if e.kind == KIND_WITHHELD)
        stub = pb.Withheld()
        stub.ParseFromString(entries[index].data)
        if field == "type":
            stub.type = "MatchEnd"
        else:
            stub.visible_to[:] = [OWNER]
        return replace_entries(entries, index, [Entry(KIND_WITHHELD, stub.SerializeToString(deterministic=True))])

    return build


def _own_delivery_as_stub(gs: Games) -> Record:
    entries = gs["bav4"].seat(OWNER)
    index = host_indices(entries, "CardDelivery")[0]
    s = signed(entries[index])
    stub = pb.Withheld(envelope_hash=s.hash, type=s.type, visible_to=[(OWNER + 1) % 4])
    return replace_entries(entries, index, [Entry(KIND_WITHHELD, stub.SerializeToString(deterministic=True))])


def _last_envelope(how: str, seat: int | None = None) -> Build:
    def build(gs: Games) -> Record:
        entries = gs["bav4"].record(seat)
        index = chain_indices(entries)[-1]
        raw = entries[index].data
        if how == "unknown-field":
            raw += b"\x7a\x01\x00"  # field 15, one byte: parses, and the signature covers only the known fields
        else:  # "reordered": the same fields, the signature first
            env = pb.Envelope()
            env.ParseFromString(raw)
            sig = env.signature
            env.ClearField("signature")
            raw = pb.Envelope(signature=sig).SerializeToString() + env.SerializeToString(deterministic=True)
        return replace_entries(entries, index, [Entry(KIND_HOST, raw)])

    return build


def _last_envelope_game_id(gs: Games) -> Record:
    g = gs["bav4"]
    entries = g.host()
    index = len(entries) - 1
    s = signed(entries[index])
    other = bytes(signed(gs["bav4b"].host()[0]).payload.game_id)
    raw = make_envelope(g.host_key, other, s.seq, bytes(s.envelope.prev_hash), HOST_SEAT, s.payload)
    return replace_entries(entries, index, [Entry(KIND_HOST, raw)])


case("unbound", "metadata-names-another-seat", {"own-envelope-missing", "bad-metadata"}, _meta_seat)
case("unbound", "stub-type-changed", {"withheld", "parse-error"}, _stub_note("type"))
case("unbound", "stub-visible-to-changed", {"withheld", "parse-error"}, _stub_note("visible_to"))
case("unbound", "own-card-delivery-as-stub", {"withheld"}, _own_delivery_as_stub)
case("unbound", "last-envelope-unknown-field", {"chain-link", "parse-error"}, _last_envelope("unknown-field"))
case("unbound", "last-envelope-reencoded", {"chain-link", "parse-error"}, _last_envelope("reordered"))
case("unbound", "seat-last-envelope-unknown-field", {"chain-link", "parse-error"},
     _last_envelope("unknown-field", OWNER))
case("unbound", "last-envelope-other-game-id", {"chain-link", "wrong-game"}, _last_envelope_game_id)

# ---------------------------------------------------------------------------------------------- the tests


def _params() -> list[Any]:
    out = []
    for c in CASES:
        out.append(pytest.param(c, id=c.id))
    return out


def test_untouched_records_verify(games: Games) -> None:
    for g in games.values():
        host = verify(g.encoded())
        assert host is not None and host.ok, (g.name, host and host.errors)
        assert host.game_id == bytes(signed(g.host()[0]).payload.game_id).hex()
        for seat in range(g.players):
            report = verify(g.encoded(seat))
            assert report is not None and report.ok, (g.name, seat, report and report.errors)
            assert (report.game_id, report.fingerprint, report.final_scores, report.hands) == (
                host.game_id, host.fingerprint, host.final_scores, host.hands)
        assert any(e.kind == KIND_WITHHELD for seat in range(g.players) for e in g.seat(seat)), g.name
    assert len({verify(g.encoded()).game_id for g in games.values()}) == len(games)  # type: ignore[union-attr]


def test_the_games_cover_what_the_cases_need(games: Games) -> None:
    types = Counter(signed(e).type for g in games.values() for e in g.host())
    for needed in ("AttemptAborted", "PrivateEvent", "Disclosure", "HostSeedReveal", "KeySet"):
        assert types[needed], needed
    for g in games.values():  # k_H once per match, after its MatchEnd
        assert len(host_indices(g.host(), "HostKeyReveal")) == 1, g.name
        assert host_indices(g.host(), "HostKeyReveal")[0] > host_indices(g.host(), "MatchEnd")[0], g.name
    assert all(len(relay_indices(g.host(), "KeyReveal")) == g.players for g in games.values())
    assert games["blind4"].table.rules.blind and games["st2"].table.rules.players == 2
    # the hand-end reveal game reveals its seeds before its last hand
    reveals = host_indices(games["redeal2"].host(), "HostSeedReveal")
    assert reveals[0] < host_indices(games["redeal2"].host(), "MatchEnd")[0]


def test_there_are_enough_mutations() -> None:
    per_kind = Counter(c.kind for c in CASES)
    assert len(CASES) >= 200, per_kind
    assert per_kind["flip"] >= 100
    for kind in ("order", "forged-action", "resigned-history", "seed", "opening", "deal", "score", "own-envelope",
                 "withheld", "truncated", "splice", "unbound"):
        assert per_kind[kind] >= 5, (kind, per_kind)
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.fixture(scope="module")
def originals(games: Games) -> set[tuple[Entry, ...] | bytes]:
    records = [(g, seat) for g in games.values() for seat in (None, *range(g.players))]
    return {tuple(g.record(seat)) for g, seat in records} | {g.encoded(seat) for g, seat in records}


@pytest.mark.slow
@pytest.mark.parametrize("case", _params())
def test_mutation_is_caught(case: Case, games: Games, originals: set[tuple[Entry, ...] | bytes]) -> None:
    built = case.build(games)
    tampered = built if isinstance(built, Tampered) else Tampered(built)
    record = tampered.record
    assert (record if isinstance(record, bytes) else tuple(record)) not in originals, "the mutation changed nothing"
    report = verify(record)
    if report is None:
        reason = UNREADABLE
    else:
        assert not report.ok, f"not caught ({case.id})"
        first = report.errors[0]
        reason = first.reason
        assert first.message
        if tampered.at is not None:
            assert first.envelope == tampered.at, first.sentence()
    assert reason != ACCEPTED
    assert reason in case.reasons, f"{case.id}: caught as {reason!r}, expected one of {sorted(case.reasons)}" + (
        f" ({report.errors[0].sentence()})" if report else "")
