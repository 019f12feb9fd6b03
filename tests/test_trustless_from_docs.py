"""The trustless vectors recomputed from docs/trustless.md alone: hashlib and integer arithmetic, no watten-net.

A template for another implementation and the check that the document suffices: the curve and the point checks
(§T1), hash_to_scalar and hash_to_point with libsodium's from_uniform written out (§T2), the card points and the
shuffle generators (§T3, §T8), every message of trustless_messages.json (§T5-T8: a deck's key shares, shuffles,
shares and the card they open), and the whole trustless
match of conformance.json walked envelope by envelope: the first dealer and every deck's shuffle order (§T4), every
key-share proof, every shuffle proof against the deck before it (§T8), every decryption-share proof (§T7) and
every played or opened card decrypted from its shares and compared with the card named (§T3).
"""

from __future__ import annotations

import hashlib
import json
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

VECTORS = Path(__file__).parent.parent / "docs" / "vectors"
GROUP = json.loads((VECTORS / "trustless_group.json").read_text())
MESSAGES = json.loads((VECTORS / "trustless_messages.json").read_text())
GAME = json.loads((VECTORS / "conformance.json").read_text())["trustless_game"]

# ---------------------------------------------------------------------------------------------- §T1 the group

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = -121665 * pow(121666, P - 2, P) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)
Point = tuple[int, int, int, int]  # extended coordinates (X, Y, Z, T), x = X/Z, y = Y/Z, xy = T/Z
ZERO: Point = (0, 1, 1, 0)  # the identity O


def inv(x: int) -> int:
    return pow(x, P - 2, P)


def add(p: Point, q: Point) -> Point:
    """The complete addition law of -x^2 + y^2 = 1 + d x^2 y^2 (Hisil-Wong-Carter-Dawson, a = -1)."""
    x1, y1, z1, t1 = p
    x2, y2, z2, t2 = q
    a, b = (y1 - x1) * (y2 - x2) % P, (y1 + x1) * (y2 + x2) % P
    c, d = t1 * 2 * D * t2 % P, z1 * 2 * z2 % P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def neg(p: Point) -> Point:
    return (-p[0] % P, p[1], p[2], -p[3] % P)


def mul(k: int, p: Point, *, reduce: bool = True) -> Point:
    """k·p; k is taken mod L only for a point of the subgroup (never in the order check itself)."""
    if reduce:
        k %= L
    out = ZERO
    while k:
        if k & 1:
            out = add(out, p)
        p = add(p, p)
        k >>= 1
    return out


def encode(p: Point) -> bytes:
    zi = inv(p[2])
    x, y = p[0] * zi % P, p[1] * zi % P
    return (y | (x & 1) << 255).to_bytes(32, "little")


def decode_raw(data: bytes) -> Point | None:
    """RFC 8032 §5.1.3, with y < p required (check 2); None when it is no point of the curve (check 3)."""
    value = int.from_bytes(data, "little")
    y, sign = value & ((1 << 255) - 1), value >> 255
    if y >= P:
        return None
    x2 = (y * y - 1) * inv(D * y * y + 1) % P
    x = pow(x2, (P + 3) // 8, P)
    if x * x % P != x2:
        x = x * SQRT_M1 % P
    if x * x % P != x2 or (x == 0 and sign):
        return None
    if x & 1 != sign:
        x = P - x
    return (x, y, 1, x * y % P)


def decode(data: bytes, subgroup: bool = True) -> Point:
    """§T1's four checks. The order check (L·P is the identity, P is not) costs a scalar multiplication; the shuffle
    check skips it for the proof's own points, where it would dominate the time."""
    assert len(data) == 32
    p = decode_raw(data)
    assert p is not None, "invalid-point"
    if subgroup:
        assert encode(p) != encode(ZERO) and encode(mul(L, p, reduce=False)) == encode(ZERO), "invalid-point"
    return p


def scalar(data: bytes) -> int:
    assert len(data) == 32
    value = int.from_bytes(data, "little")
    assert value < L, "non-canonical-scalar"
    return value


G = decode(bytes.fromhex("58" + "66" * 31))

# ---------------------------------------------------------------------------------------------- §T2 hashing


def H(name: str, *fields: bytes) -> bytes:
    data = b"".join(struct.pack(">I", len(x)) + x for x in (b"watten/v1/" + name.encode(), *fields))
    return hashlib.sha256(data).digest()


def hash_to_scalar(name: str, *fields: bytes) -> int:
    return int.from_bytes(H(name, b"\x00", *fields) + H(name, b"\x01", *fields), "little") % L


def from_uniform(r: bytes) -> Point:
    sign = r[31] >> 7
    t = int.from_bytes(r[:31] + bytes([r[31] & 0x7F]), "little") % P
    a = 486662
    u1 = -a * inv(1 + 2 * t * t) % P
    g = (u1 * u1 * u1 + a * u1 * u1 + u1) % P
    u = (-u1 - a) % P if pow(g, (P - 1) // 2, P) == P - 1 else u1
    y = (u - 1) * inv(u + 1) % P
    point = decode_raw((y | sign << 255).to_bytes(32, "little"))
    assert point is not None
    return mul(8, point)


def hash_to_point(name: str, *fields: bytes) -> Point:
    return add(from_uniform(H(name, b"\x00", *fields)), from_uniform(H(name, b"\x01", *fields)))


def u32(x: int) -> bytes:
    return x.to_bytes(4, "big")


# ---------------------------------------------------------------------------------------------- §T3, §T8 constants

CARD_POINTS = {encode(hash_to_point("trustless/card-point", bytes([j]))): j for j in range(33)}
GENERATORS = [hash_to_point("trustless/shuffle-generator", u32(i)) for i in range(34)]


def generators_digest(n: int) -> bytes:
    return H("trustless/shuffle-generators", u32(n), b"".join(encode(h) for h in GENERATORS[:n + 1]))


def test_group_constants_and_hashing_into_the_group() -> None:
    assert encode(G) == bytes.fromhex(GROUP["base_point"])
    assert encode(mul(L, G, reduce=False)) == encode(ZERO)
    assert [p.hex() for p in CARD_POINTS] == GROUP["card_points"]
    assert [encode(h).hex() for h in GENERATORS] == GROUP["generators"]
    assert GROUP["generator_tag"] == "trustless/shuffle-generator"
    assert {str(n): generators_digest(n).hex() for n in (32, 33)} == GROUP["generators_digest"]
    assert hash_to_scalar("trustless/test").to_bytes(32, "little").hex() == GROUP["hash_to_scalar"]["no-fields"]
    assert hash_to_scalar("trustless/test", b"abc").to_bytes(32, "little").hex() == GROUP["hash_to_scalar"]["abc"]


def test_the_point_checks_refuse_what_they_must() -> None:
    assert decode_raw((P + 1).to_bytes(32, "little")) is None  # y >= p
    assert decode_raw(bytes([2]) + bytes(31)) is None  # y = 2: no x on the curve
    identity = encode(ZERO)
    small = decode_raw(bytes(32))  # y = 0: a point of order 4
    assert small is not None and encode(mul(4, small)) == identity
    assert encode(mul(L, small, reduce=False)) != identity
    for bad in (identity, bytes(32), encode(add(G, small))):
        try:
            decode(bad)
        except AssertionError:
            continue
        raise AssertionError(f"{bad.hex()} was accepted")


# ---------------------------------------------------------------------------------------------- §T5-T7 messages


@dataclass
class Reader:
    data: bytes
    at: int = 0

    def take(self, n: int) -> bytes:
        assert self.at + n <= len(self.data), "malformed"
        self.at += n
        return self.data[self.at - n:self.at]

    def u8(self) -> int:
        return self.take(1)[0]

    def point(self, subgroup: bool = True) -> Point:
        return decode(self.take(32), subgroup)

    def scalar(self) -> int:
        return scalar(self.take(32))

    def deal_id(self) -> tuple[bytes, int, int]:
        return self.take(32), int.from_bytes(self.take(4), "big"), int.from_bytes(self.take(4), "big")

    def done(self) -> None:
        assert self.at == len(self.data), "malformed"


def deal_fields(deal: tuple[bytes, int, int]) -> tuple[bytes, bytes, bytes]:
    return deal[0], u32(deal[1]), u32(deal[2])


def key_share(data: bytes) -> tuple[tuple[bytes, int, int], int, Point]:
    """Decode a KeyShareMessage and check its Schnorr proof (§T6); returns (deal id, seat, X)."""
    assert len(data) == 138
    r = Reader(data)
    assert r.u8() == 1
    deal, seat, x, t, z = r.deal_id(), r.u8(), r.point(), r.point(), r.scalar()
    r.done()
    e = hash_to_scalar("trustless/key-proof", *deal_fields(deal), bytes([seat]), b"deal-key", encode(G), encode(x),
                       encode(t))
    assert encode(mul(z, G)) == encode(add(t, mul(e, x))), "bad-key-proof"
    return deal, seat, x


def share(data: bytes, keys: dict[int, Point], deck: list[tuple[Point, Point]],
          deal: tuple[bytes, int, int]) -> tuple[int, int, Point]:
    """Decode a DecryptionShareMessage and check its Chaum-Pedersen proof (§T7); returns (position, seat, D)."""
    assert len(data) == 171
    r = Reader(data)
    assert r.u8() == 3
    got, position, seat = r.deal_id(), r.u8(), r.u8()
    d, a, b, z = r.point(), r.point(), r.point(), r.scalar()
    r.done()
    assert got == deal, "wrong-context"
    c1, c2 = deck[position]
    x = keys[seat]
    e = hash_to_scalar("trustless/decryption-proof", *deal_fields(deal), bytes([position]), bytes([seat]),
                       *(encode(q) for q in (G, x, c1, c2, d, a, b)))
    assert encode(mul(z, G)) == encode(add(a, mul(e, x))), "bad-decryption-proof"
    assert encode(mul(z, c1)) == encode(add(b, mul(e, d))), "bad-decryption-proof"
    return position, seat, d


def test_the_message_vectors_check_from_the_document() -> None:
    """trustless_messages.json (§T14): deck 0's key shares, both shuffles, a ciphertext, both shares and the card."""
    deal = (hashlib.sha256(b"vector game").digest(), 0, 0xFFFFFFFF)  # deck 0's deal id (§T4)
    keys: dict[int, Point] = {}
    for seat, data in enumerate(MESSAGES["key_shares"]):
        got, sender, x = key_share(bytes.fromhex(data))
        assert (got, sender) == (deal, seat), "wrong-context"
        keys[sender] = x
    pk = point_sum(list(keys.values()))
    deck = [(G, add(hash_to_point("trustless/card-point", bytes([j])), pk)) for j in range(32)]
    for sender, data in enumerate(MESSAGES["shuffles"]):
        deck = shuffle(bytes.fromhex(data), deck, pk, deal, sender)
    assert enc_deck(deck[4:5]) == bytes.fromhex(MESSAGES["ciphertext_at_4"])
    given = share(bytes.fromhex(MESSAGES["decryption_share"]), keys, deck, deal)
    own = share(bytes.fromhex(MESSAGES["opening_share"]), keys, deck, deal)
    assert (given[:2], own[:2]) == ((4, 1), (4, 0))
    card = add(deck[4][1], neg(add(given[2], own[2])))  # M = c2 - (D_0 + D_1), §T3
    assert CARD_POINTS[encode(card)] == MESSAGES["card_at_4_for_seat_0"]


# ---------------------------------------------------------------------------------------------- §T8 the shuffle


def ciphertexts(r: Reader, n: int, subgroup: bool) -> list[tuple[Point, Point]]:
    return [(r.point(subgroup), r.point(subgroup)) for _ in range(n)]


def enc_deck(deck: list[tuple[Point, Point]]) -> bytes:
    return b"".join(encode(c1) + encode(c2) for c1, c2 in deck)


def lin(scalars: list[int], points: list[Point]) -> Point:
    out = ZERO
    for k, p in zip(scalars, points, strict=True):
        out = add(out, mul(k, p))
    return out


def point_sum(points: list[Point]) -> Point:
    out = ZERO
    for p in points:
        out = add(out, p)
    return out


def shuffle(data: bytes, inputs: list[tuple[Point, Point]], pk: Point, deal: tuple[bytes, int, int],
            sender: int) -> list[tuple[Point, Point]]:
    """Decode a ShuffleMessage and check its Terelius-Wikström proof against `inputs` (§T8); returns its outputs.

    The order check of §T1 is skipped for the proof's own points (it would dominate the time); the equations
    still bind every one of them."""
    n = len(inputs)
    assert len(data) == 43 + 64 * n + 32 * (5 * n + 9), "malformed"
    r = Reader(data)
    assert r.u8() == 2 and r.deal_id() == deal and r.u8() == sender and r.u8() == n
    outputs = ciphertexts(r, n, subgroup=False)
    cs = [r.point(False) for _ in range(n)]
    chain = [r.point(False) for _ in range(n)]
    t1, t2, t3, t4_c2, t4_c1 = (r.point(False) for _ in range(5))
    t_hat = [r.point(False) for _ in range(n)]
    s1, s2, s3, s4 = (r.scalar() for _ in range(4))
    s_hat = [r.scalar() for _ in range(n)]
    s_prime = [r.scalar() for _ in range(n)]
    r.done()
    h, hs = GENERATORS[0], GENERATORS[1:n + 1]
    delta = H("trustless/shuffle-statement", *deal_fields(deal), bytes([sender]), encode(G), encode(pk), u32(n),
              generators_digest(n), enc_deck(inputs), enc_deck(outputs), b"".join(encode(c) for c in cs))
    u = [hash_to_scalar("trustless/shuffle-vector", delta, u32(j)) for j in range(n)]
    c = hash_to_scalar("trustless/shuffle-challenge", delta, b"".join(encode(x) for x in chain),
                       b"".join(encode(x) for x in (t1, t2, t3, t4_c2, t4_c1)), b"".join(encode(x) for x in t_hat))
    u_all = 1
    for uj in u:
        u_all = u_all * uj % L
    c_bar = add(point_sum(cs), neg(point_sum(hs)))
    c_hat = add(chain[-1], neg(mul(u_all, h)))
    c_tilde = lin(u, cs)
    a_prime, b_prime = lin(u, [e[1] for e in inputs]), lin(u, [e[0] for e in inputs])
    minus_c = L - c
    assert encode(t1) == encode(add(mul(minus_c, c_bar), mul(s1, G))), "t1"
    assert encode(t2) == encode(add(mul(minus_c, c_hat), mul(s2, G))), "t2"
    assert encode(t3) == encode(point_sum([mul(minus_c, c_tilde), mul(s3, G), lin(s_prime, hs)])), "t3"
    assert encode(t4_c2) == encode(point_sum([mul(minus_c, a_prime), mul(L - s4, pk),
                                              lin(s_prime, [o[1] for o in outputs])])), "t4_c2"
    assert encode(t4_c1) == encode(point_sum([mul(minus_c, b_prime), mul(L - s4, G),
                                              lin(s_prime, [o[0] for o in outputs])])), "t4_c1"
    before = [h, *chain[:-1]]
    for i in range(n):
        expected = point_sum([mul(minus_c, chain[i]), mul(s_hat[i], G), mul(s_prime[i], before[i])])
        assert encode(t_hat[i]) == encode(expected), f"t_hat[{i}]"
    return outputs


# ---------------------------------------------------------------------------------------------- the whole match


def pb(raw: bytes) -> dict[int, list[Any]]:
    """Every field of a protobuf message by number, in order (varints as ints, length-delimited as bytes)."""
    out: dict[int, list[Any]] = {}
    at = 0

    def varint() -> int:
        nonlocal at
        value, shift = 0, 0
        while True:
            byte = raw[at]
            at += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return value

    while at < len(raw):
        key = varint()
        if key & 7 == 0:
            out.setdefault(key >> 3, []).append(varint())
        else:
            length = varint()
            out.setdefault(key >> 3, []).append(raw[at:at + length])
            at += length
    return out


def one(msg: dict[int, list[Any]], number: int, default: Any = 0) -> Any:
    return msg.get(number, [default])[-1]


def packed(msg: dict[int, list[Any]], number: int) -> list[int]:
    """A repeated uint32 (packed in one length-delimited field; single bytes here, every value below 128)."""
    return [v for chunk in msg.get(number, []) for v in (list(chunk) if isinstance(chunk, bytes) else [chunk])]


def canonical_deck(size: int) -> list[str]:
    deck = [suit + rank for suit in "ELHS" for rank in ("7", "8", "9", "10", "U", "O", "K", "A")]
    if size == 33:
        deck.insert(deck.index("S7"), "S6")
    return deck


@dataclass
class Deck:
    number: int
    size: int
    order: list[int]
    keys: dict[int, Point] = field(default_factory=dict)
    cards: list[tuple[Point, Point]] = field(default_factory=list)
    shuffled: int = 0
    shares: dict[int, dict[int, Point]] = field(default_factory=dict)


@dataclass
class Walk:
    game_id: bytes = b""
    seats: int = 0
    dealer0: int = -1
    decks: dict[int, Deck] = field(default_factory=dict)
    opened: int = 0  # TrustlessDealOpens seen
    current: Deck | None = None
    counts: dict[str, int] = field(default_factory=dict)

    def deal(self, d: int) -> tuple[bytes, int, int]:
        return (self.game_id, d, 0xFFFFFFFF)

    def count(self, what: str) -> None:
        self.counts[what] = self.counts.get(what, 0) + 1

    def first_dealer(self) -> int:
        return int.from_bytes(H("trustless-first-dealer", self.game_id)[:4], "big") % self.seats

    def host(self, kind: str, p: dict[int, list[Any]]) -> None:
        if kind == "Relay":
            inner = pb(one(p, 2, b""))
            self.seat(one(inner, 5, b"").decode(), pb(one(inner, 6, b"")), one(p, 1))
        elif kind == "DeckPrepare":
            d, size, order = one(p, 1), one(p, 2), packed(p, 3)
            e = (self.first_dealer() + d) % self.seats
            assert order == [(e + 1 + i) % self.seats for i in range(self.seats)], "bad-deck-prepare"
            assert d == len(self.decks) == self.opened
            self.decks[d] = Deck(d, size, order)
        elif kind == "TrustlessDealOpen":
            assert one(p, 6) == self.opened, "bad-deal-open"
            if self.opened == 0:
                assert one(p, 3) == self.first_dealer()
            self.current = self.decks[self.opened]
            self.opened += 1
        elif kind == "ActionAccepted" and 6 in p:
            request = pb(one(pb(one(p, 6, b"")), 6, b""))
            for opening in request.get(4, []):
                self.opening(pb(opening))

    def seat(self, kind: str, p: dict[int, list[Any]], sender: int) -> None:
        if kind == "KeyShare":
            deck = self.decks[one(p, 5)]
            deal, seat, x = key_share(one(p, 4, b""))
            assert (deal, seat) == (self.deal(deck.number), sender)
            deck.keys[seat] = x
            if len(deck.keys) == self.seats:
                pk = point_sum([deck.keys[s] for s in range(self.seats)])
                deck.cards = [(G, add(hash_to_point("trustless/card-point", bytes([j])), pk))
                              for j in range(deck.size)]
            self.count("key-share")
        elif kind == "Shuffle":
            deck = self.decks[one(p, 5)]
            assert deck.order[deck.shuffled] == sender and len(deck.keys) == self.seats, "out-of-turn"
            pk = point_sum([deck.keys[s] for s in range(self.seats)])
            deck.cards = shuffle(one(p, 4, b""), deck.cards, pk, self.deal(deck.number), sender)
            deck.shuffled += 1
            self.count("shuffle")
        elif kind == "DecryptionShares":
            deck = self.current
            assert deck is not None and deck.shuffled == self.seats
            for data in p.get(5, []):
                position, seat, d = share(data, deck.keys, deck.cards, self.deal(deck.number))
                assert seat == sender
                deck.shares.setdefault(position, {})[seat] = d
                self.count("decryption-share")

    def opening(self, o: dict[int, list[Any]]) -> None:
        deck = self.current
        assert deck is not None
        position, card = one(o, 1), one(o, 2, b"").decode()
        for data in o.get(3, []):
            k, seat, d = share(data, deck.keys, deck.cards, self.deal(deck.number))
            assert k == position
            deck.shares.setdefault(position, {})[seat] = d
        shares = deck.shares[position]
        assert sorted(shares) == list(range(self.seats)), "incomplete-opening"
        _, c2 = deck.cards[position]
        point = add(c2, neg(point_sum(list(shares.values()))))
        assert canonical_deck(deck.size)[CARD_POINTS[encode(point)]] == card, "opening-mismatch"
        self.count("opened card")


def walk_record(data: bytes) -> Walk:
    """Every host envelope of a trustless record, in chain order, through the checks above."""
    assert data.startswith(b"WATTEN-RECORD/1\n")
    at, walk = 16, Walk()
    while at < len(data):
        kind, length = data[at], int.from_bytes(data[at + 1:at + 5], "big")
        raw = data[at + 5:at + 5 + length]
        at += 5 + length
        if kind != 1:
            continue
        env = pb(raw)
        kind_name, payload = one(env, 5, b"").decode(), pb(one(env, 6, b""))
        if kind_name == "GameHeader":
            walk.game_id = one(env, 1, b"")
        elif kind_name == "Relay" and pb(one(payload, 2, b""))[5] == [b"HeaderSignature"]:
            walk.seats += 1
        else:
            walk.host(kind_name, payload)
    return walk


HOST_RECORD = next(r for r in GAME["records"] if r["writer"] == "host")


def test_the_trustless_match_checks_from_the_document() -> None:
    """The host's record of the trustless match: every proof holds and every opened card is the card named."""
    walk = walk_record(bytes.fromhex(HOST_RECORD["wrec"]))
    assert walk.seats == 2 and HOST_RECORD["verdict"] == "verified"
    assert walk.counts["key-share"] == 2 * len(walk.decks) and walk.counts["shuffle"] >= 4
    assert walk.counts["decryption-share"] >= 10 and walk.counts["opened card"] >= 10


@pytest.mark.parametrize("case", [c for c in GAME["tampered"] if c["reason"] in ("bad-shuffle-proof",
                                                                                 "bad-decryption-proof")],
                         ids=lambda c: c["reason"])
def test_a_forged_proof_fails_the_documents_checks(case: dict[str, Any]) -> None:
    """The forged Shuffle and the forged decryption share of the vectors fail the equations of §T8 and §T7."""
    data = bytes.fromhex(HOST_RECORD["wrec"])
    for patch in case["patches"]:
        data = data[:patch["offset"]] + bytes.fromhex(patch["insert"]) + data[patch["offset"] + patch["delete"]:]
    with pytest.raises(AssertionError, match=r"t1|t2|t3|t4|t_hat|bad-decryption-proof"):
        walk_record(data)


def test_the_worked_chain_of_the_document_is_the_vector_match() -> None:
    """docs/trustless.md §T13 quotes this record's chain: the quoted lines are what it holds."""
    data = bytes.fromhex(HOST_RECORD["wrec"])
    at, chain = 16, {}
    while at < len(data):
        kind, length = data[at], int.from_bytes(data[at + 1:at + 5], "big")
        if kind == 1:
            env = pb(data[at + 5:at + 5 + length])
            chain[one(env, 2)] = (one(env, 5, b"").decode(), pb(one(env, 6, b"")))
        at += 5 + length
    assert chain[1][0] == "GameHeader"
    assert chain[4][0] == "DeckPrepare" and (one(chain[4][1], 1), packed(chain[4][1], 3)) == (0, [0, 1])
    assert chain[5][0] == "TrustlessDealOpen" and (one(chain[5][1], 3), one(chain[5][1], 6)) == (1, 0)
    assert [chain[s][0] for s in (6, 7, 8, 9)] == ["Relay"] * 4
    assert chain[10][0] == "ActionAccepted" and one(chain[10][1], 4, b"") == b"cut 19"
    assert chain[11][0] == "ShareRequest" and (one(chain[11][1], 3), packed(chain[11][1], 4),
                                               one(chain[11][1], 5, b"")) == (0, [18], b"see")
    assert chain[14][0] == chain[15][0] == "ShareRequest"
    assert (packed(chain[14][1], 4), packed(chain[15][1], 4)) == ([19, 20, 21], [22, 23, 24])
    assert chain[18][0] == "DeckPrepare" and (one(chain[18][1], 1), packed(chain[18][1], 3)) == (1, [1, 0])
    assert chain[30][0] == "TrustlessDealOpen" and [one(chain[30][1], f) for f in (1, 3, 6)] == [1, 0, 1]
    assert chain[max(chain)][0] == "Relay" and any(kind == "MatchEnd" for kind, _ in chain.values())
    assert not any(kind in ("HostKeyReveal", "Disclosure") for kind, _ in chain.values())
