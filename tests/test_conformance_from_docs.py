"""docs/protocol.md is enough: the conformance vectors recomputed from the document alone, without watten_net.

Everything below is written from docs/protocol.md with the standard library and `cryptography` (SHA-256, HMAC,
HKDF, Ed25519), as another implementation would be: framing, envelope signing bytes and a hand-built canonical
Envelope encoding, game id, fingerprint, join and leave proofs, every Level 1 version 2 derivation, deck/v1, card
salts and seals, the refusal receipt and the record format. If the document and the code drift apart, this fails
while tests/test_conformance_vectors.py (the code against the same file) still passes.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

VECTORS = json.loads((Path(__file__).parent.parent / "docs" / "vectors" / "conformance.json").read_text())


def b(x: str) -> bytes:
    return bytes.fromhex(x)


def lp(x: bytes) -> bytes:
    return len(x).to_bytes(4, "big") + x


def framed(name: str, *fields: bytes, v: int = 1) -> bytes:
    return lp(f"watten/v{v}/{name}".encode()) + b"".join(lp(f) for f in fields)


def H(name: str, *fields: bytes, v: int = 1) -> bytes:
    return hashlib.sha256(framed(name, *fields, v=v)).digest()


def u8(x: int) -> bytes:
    return x.to_bytes(1, "big")


def u32(x: int) -> bytes:
    return x.to_bytes(4, "big")


def u64(x: int) -> bytes:
    return x.to_bytes(8, "big")


def mac(key: bytes, name: str, *fields: bytes) -> bytes:
    return hmac.new(key, framed(name, *fields, v=2), hashlib.sha256).digest()


def sign(seed_hex: str, message: bytes) -> bytes:
    return Ed25519PrivateKey.from_private_bytes(b(seed_hex)).sign(message)


# --- a canonical protobuf Envelope, by hand (docs/protocol.md section 4)


def varint(x: int) -> bytes:
    x &= (1 << 64) - 1  # int32 -1 is written as its 64-bit two's complement: 10 bytes
    out = bytearray()
    while True:
        byte, x = x & 0x7F, x >> 7
        out.append(byte | (0x80 if x else 0))
        if not x:
            return bytes(out)


def envelope_bytes(game_id: bytes, seq: int, prev_hash: bytes, sender: int, type_name: str, payload: bytes,
                   signature: bytes) -> bytes:
    out = b""
    for number, value in ((1, game_id), (2, seq), (3, prev_hash), (4, sender), (5, type_name.encode()),
                          (6, payload), (10, signature)):
        if not value:
            continue  # a default is omitted
        if isinstance(value, int):
            out += varint(number << 3) + varint(value)
        else:
            out += varint(number << 3 | 2) + varint(len(value)) + value
    return out


def test_framing_and_integers() -> None:
    for case in VECTORS["framing"]:
        fields = [b(f) for f in case["fields"]]
        assert framed(case["name"], *fields, v=case["version"]).hex() == case["framed"]
        assert H(case["name"], *fields, v=case["version"]).hex() == case["H"]
    for case in VECTORS["integers"]:
        assert case["value"].to_bytes(case["width"] // 8, "big").hex() == case["bytes"]


def test_envelopes() -> None:
    for case in VECTORS["envelopes"]["cases"]:
        signed_as = 255 if case["sender_seat_wire"] == -1 else case["sender_seat_wire"]
        assert signed_as == case["sender_seat_signed"]
        message = framed("envelope", b(case["game_id"]), u64(case["seq"]), b(case["prev_hash"]), u8(signed_as),
                         case["type"].encode(), b(case["payload"]))
        assert message.hex() == case["signing_bytes"]
        signature = sign(case["private_seed"], message)
        assert signature.hex() == case["signature"]
        raw = envelope_bytes(b(case["game_id"]), case["seq"], b(case["prev_hash"]), case["sender_seat_wire"],
                             case["type"], b(case["payload"]), signature)
        assert raw.hex() == case["envelope_bytes"]
        assert hashlib.sha256(raw).hexdigest() == case["envelope_hash"]
    canonical = b(VECTORS["envelopes"]["cases"][0]["envelope_bytes"])
    for case in VECTORS["envelopes"]["non_canonical"]:
        assert b(case["envelope_bytes"]) != canonical


def test_identities_and_proofs() -> None:
    for case in VECTORS["game_ids"]:
        nonces = [b(case["host_nonce"]), *(b(n) for n in case["join_nonces"])]
        assert H("game-id", *nonces).hex() == case["game_id"]
    for case in VECTORS["fingerprints"]:
        digits = H("fingerprint", b(case["header_envelope_bytes"])).hex()[:16]
        assert " ".join(digits[i:i + 4] for i in range(0, 16, 4)) == case["fingerprint"]
    for case in VECTORS["proofs"]["join"]:
        message = framed("join", case["table_id"].encode(), b(case["host_public_key"]), b(case["tls_fingerprint"]),
                         b(case["public_key"]), b(case["nonce"]))
        assert message.hex() == case["message"]
        assert sign(case["private_seed"], message).hex() == case["signature"]
    leave = VECTORS["proofs"]["leave"]
    message = framed("leave", leave["table_id"].encode(), b(leave["host_public_key"]), b(leave["game_id"]),
                     u8(leave["seat"]), b(leave["nonce"]))
    assert message.hex() == leave["message"]
    assert sign(leave["private_seed"], message).hex() == leave["signature"]
    cert = VECTORS["proofs"]["certificate_fingerprint"]
    assert hashlib.sha256(b(cert["der"])).hexdigest() == cert["fingerprint"]


def canonical_deck(size: int) -> list[str]:
    ranks = {32: ["7", "8", "9", "10", "U", "O", "K", "A"], 36: ["6", "7", "8", "9", "10", "U", "O", "K", "A"]}
    deck = [suit + rank for suit in "ELHS" for rank in ranks[36 if size == 36 else 32]]
    if size == 33:
        deck.insert(deck.index("S7"), "S6")  # the Weli, first among the Schellen
    return deck


def test_level1_v2() -> None:
    for size, cards in VECTORS["deck_sizes"].items():
        assert canonical_deck(int(size)) == cards
    for case in VECTORS["level1_v2"]:
        gid, hh, n, size = b(case["game_id"]), b(case["header_hash"]), case["players"], case["deck_size"]
        keys = [b(k) for k in case["seat_keys"]]
        commits = [H("seat-game-key", gid, u8(i), hh, k, v=2) for i, k in enumerate(keys)]
        assert [c.hex() for c in commits] == case["seat_commitments"]
        assert H("host-game-key", gid, b(case["host_key"]), v=2).hex() == case["host_commitment"]
        hks = H("key-set", gid, hh, *commits, v=2)
        assert hks.hex() == case["key_set_hash"]
        for att in case["attempts"]:
            h, a = u32(att["hand"]), u32(att["attempt"])
            seeds = [mac(k, "seat-seed", gid, h, a) for k in keys]
            s = mac(b(case["host_key"]), "host-hand-seed", gid, h, a)
            assert [c.hex() for c in seeds] == att["seat_seeds"] and s.hex() == att["host_seed"]
            assert [4 + int.from_bytes(mac(k, "cut", gid, h, a)[:4], "big") % (size - 7) for k in keys] == att["cuts"]
            hkdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=hks, info=framed("deck-key", gid, h, a, v=2))
            dk = hkdf.derive(s + b"".join(seeds))
            assert dk.hex() == att["deck_key"]
            tags = [hmac.new(dk, b"watten/v1/card-tag" + u8(j), hashlib.sha256).digest() for j in range(size)]
            assert [t.hex() for t in tags] == att["card_tags"]
            order = sorted(range(size), key=lambda j: (tags[j], j))
            deck = [canonical_deck(size)[j] for j in order]
            assert order == att["permutation"] and deck == att["deck"]
            salts = [mac(s, "card-salt", gid, h, a, u8(k)) for k in range(size)]
            assert [x.hex() for x in salts] == att["card_salts"]
            seals = [H("card-commit", gid, h, a, u8(k), deck[k].encode(), salts[k], v=2) for k in range(size)]
            assert [x.hex() for x in seals] == att["card_commitments"]
            if (att["hand"], att["attempt"]) == (0, 0):
                first = int.from_bytes(hmac.new(dk, framed("first-dealer", gid, v=2), hashlib.sha256).digest()[:4],
                                       "big") % n
                assert first == case["first_dealer"]


def test_refusal_receipt() -> None:
    case = VECTORS["refusal_receipt"]
    message = framed("refusal-receipt", b(case["game_id"]), b(case["envelope_hash"]), case["reason"].encode(),
                     u64(case["chain_seq"]), b(case["chain_head"]), v=2)
    assert message.hex() == case["message"]
    assert sign(case["private_seed"], message).hex() == case["signature"]


def entries(data: bytes) -> list[tuple[int, bytes]]:
    magic = b"WATTEN-RECORD/1\n"
    assert data.startswith(magic)
    out, at = [], len(magic)
    while at < len(data):
        kind, length = data[at], int.from_bytes(data[at + 1:at + 5], "big")
        assert at + 5 + length <= len(data)
        out.append((kind, data[at + 5:at + 5 + length]))
        at += 5 + length
    return out


def fields(raw: bytes) -> dict[int, Any]:
    """A protobuf message's top-level fields (the last of each number), enough to read an Envelope."""
    out: dict[int, Any] = {}
    at = 0

    def read_varint() -> int:
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
        key = read_varint()
        if key & 7 == 0:
            out[key >> 3] = read_varint()
        else:
            length = read_varint()
            out[key >> 3] = raw[at:at + length]
            at += length
    return out


def test_the_game_records_chain_and_host_signatures() -> None:
    """The record format (section 10) and the chain and signature rules (section 4) on the whole game's records."""
    for record in VECTORS["game"]["records"]:
        chain = [data for kind, data in entries(b(record["wrec"])) if kind in (1, 2)]
        header = fields(chain[0])
        game_header = fields(header[6])  # Envelope.payload: the GameHeader
        host = Ed25519PublicKey.from_public_bytes(game_header[11])  # GameHeader.host_public_key
        assert header[1] == game_header[14]  # Envelope.game_id == GameHeader.game_id
        digits = H("fingerprint", chain[0]).hex()[:16]
        assert " ".join(digits[i:i + 4] for i in range(0, 16, 4)) == record["fingerprint"]
        prev = bytes(32)
        for seq, raw in enumerate(chain, start=1):
            env = fields(raw)
            if 10 not in env:  # a Withheld stub: its envelope_hash (field 1) links the chain
                prev = env[1]
                continue
            assert env[2] == seq and env.get(3, b"") == prev
            assert env[4] == (1 << 64) - 1  # sender_seat -1, the host
            host.verify(env[10], framed("envelope", env[1], u64(seq), env[3], u8(255), env[5], env.get(6, b"")))
            assert raw == envelope_bytes(env[1], env[2], env[3], -1, env[5].decode(), env.get(6, b""), env[10])
            prev = hashlib.sha256(raw).digest()
