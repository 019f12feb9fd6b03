"""Regenerate docs/vectors/conformance.json: every byte layout of docs/protocol.md, with fixed inputs.

    /work/main/.venv/bin/python tests/make_conformance.py      (from the repository root)

The file is made by the code under test (watten_net) and then committed; tests/test_conformance_vectors.py
recomputes every vector with the code and compares with the committed JSON, so a change of any layout shows up as a
failing test (and, if the change is meant, as a regenerated file in the same commit). Every byte string is
lowercase hex; every private key is a 32-byte Ed25519 seed (RFC 8032), from which the public key follows.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT)]

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402

from watten_net import hashing  # noqa: E402
from watten_net.deal import commitments, deck, envelope, identity, keys, receipts  # noqa: E402
from watten_net.deal.protocol import HOST_SEAT, make_envelope  # noqa: E402
from watten_net.engine import Rules, canonical_deck  # noqa: E402
from watten_net.v1 import watten_pb2 as pb  # noqa: E402

OUT = ROOT / "docs" / "vectors" / "conformance.json"


def seed_bytes(label: str) -> bytes:
    """A fixed 32-byte value named by `label` (SHA-256 of the label: anyone can see nothing is hidden in it)."""
    return hashlib.sha256(label.encode()).digest()


def key(label: str) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(seed_bytes(label))


def hx(b: bytes) -> str:
    return bytes(b).hex()


def framing() -> list[dict[str, Any]]:
    cases = [
        ("test", [], 1),
        ("game-id", [b"\x01" * 32, b"\x02" * 32], 1),
        ("seat-game-key", [b"", b"a", bytes(range(5))], 2),
        ("envelope", [hashing.u8(7), hashing.u32(1), hashing.u64(2**40 + 5)], 1),
    ]
    out = []
    for name, fields, version in cases:
        out.append({
            "name": name, "version": version, "tag": hashing.tag(name, version).decode(),
            "fields": [hx(f) for f in fields],
            "framed": hx(hashing.framed(name, *fields, version=version)),
            "H": hx(hashing.H(name, *fields, version=version)),
        })
    return out


def integers() -> list[dict[str, Any]]:
    return [{"width": w, "value": v, "bytes": hx(f(v))}
            for w, f, vs in ((8, hashing.u8, (0, 7, 255)), (32, hashing.u32, (0, 1, 2**32 - 1, 0x01020304)),
                             (64, hashing.u64, (0, 1, 2**64 - 1, 0x0102030405060708)))
            for v in vs]


def ed25519() -> list[dict[str, Any]]:
    out = []
    for label, message in (("seat-0", b""), ("host", b"watten"), ("seat-1", bytes(range(64)))):
        k = key(label)
        out.append({"private_seed": hx(seed_bytes(label)), "public_key": hx(identity.public_key_bytes(k)),
                    "message": hx(message), "signature": hx(k.sign(message))})
    return out


def envelopes() -> dict[str, Any]:
    game_id = seed_bytes("game")
    header_hash = seed_bytes("header")
    cases = []
    specs = [
        ("a seat's first envelope (seat 0: sender_seat 0 is the default, so it is omitted on the wire)",
         "seat-0", 0, 1, envelope.GENESIS_PREV_HASH,
         pb.KeyCommit(seat=0, header_hash=header_hash, commitment=seed_bytes("K_0"))),
        ("a seat's later envelope", "seat-1", 1, 3, seed_bytes("prev"),
         pb.ActionRequest(action="play HK", chain_seq=12, chain_head=seed_bytes("head"))),
        ("a host envelope: sender_seat -1 on the wire, 255 in the signing bytes", "host", HOST_SEAT, 2,
         seed_bytes("prev-host"), pb.HandOpen(hand=0, attempt=0, dealer=1)),
    ]
    for what, label, sender, seq, prev, payload in specs:
        k = key(label)
        body = payload.SerializeToString(deterministic=True)
        signed_as = 255 if sender == HOST_SEAT else sender
        raw = make_envelope(k, game_id, seq, prev, sender, payload)
        cases.append({
            "description": what, "private_seed": hx(seed_bytes(label)),
            "public_key": hx(identity.public_key_bytes(k)),
            "game_id": hx(game_id), "seq": seq, "prev_hash": hx(prev), "sender_seat_wire": sender,
            "sender_seat_signed": signed_as, "type": payload.DESCRIPTOR.name, "payload": hx(body),
            "signing_bytes": hx(envelope.signing_bytes(game_id, seq, prev, signed_as, payload.DESCRIPTOR.name, body)),
            "signature": hx(envelope.sign_envelope(k, game_id, seq, prev, signed_as, payload.DESCRIPTOR.name, body)),
            "envelope_bytes": hx(raw), "envelope_hash": hx(envelope.envelope_hash(raw)),
        })
    # Bytes that parse to a valid envelope but are not its canonical encoding: the host refuses them.
    good = bytes.fromhex(cases[0]["envelope_bytes"])
    env = pb.Envelope.FromString(good)
    explicit_zero = bytes([0x20, 0x00])  # field 4 (sender_seat), varint, value 0: a default written out
    tail = pb.Envelope(type=env.type, payload=env.payload, signature=env.signature).SerializeToString(
        deterministic=True)
    head = pb.Envelope(game_id=env.game_id, seq=env.seq, prev_hash=env.prev_hash).SerializeToString(
        deterministic=True)
    reordered = pb.Envelope(signature=env.signature).SerializeToString() + pb.Envelope(
        game_id=env.game_id, seq=env.seq, prev_hash=env.prev_hash, type=env.type, payload=env.payload,
    ).SerializeToString(deterministic=True)
    unknown = good + bytes([0x48, 0x01])  # field 9, varint 1: unknown to Envelope
    refused = [
        ("sender_seat 0 written out", head + explicit_zero + tail),
        ("fields out of order (signature first)", reordered),
        ("an unknown field appended", unknown),
    ]
    return {
        "cases": cases,
        "non_canonical": [{"description": d, "envelope_bytes": hx(b), "reason": "bad-envelope"} for d, b in refused],
    }


def game_ids() -> list[dict[str, Any]]:
    host_nonce = seed_bytes("host-nonce")
    joins = [seed_bytes(f"join-nonce-{i}") for i in range(4)]
    return [{"host_nonce": hx(host_nonce), "join_nonces": [hx(j) for j in joins[:n]],
             "game_id": hx(identity.game_id(host_nonce, joins[:n]))} for n in (2, 4)]


def proofs() -> dict[str, Any]:
    seat = key("seat-0")
    host_pub = identity.public_key_bytes(key("host"))
    nonce = seed_bytes("proof-nonce")
    joins = []
    for fp in (seed_bytes("certificate-der"), identity.INSECURE):
        message = identity.join_proof_message("t1", host_pub, fp, identity.public_key_bytes(seat), nonce)
        joins.append({"private_seed": hx(seed_bytes("seat-0")), "table_id": "t1", "host_public_key": hx(host_pub),
                      "tls_fingerprint": hx(fp), "public_key": hx(identity.public_key_bytes(seat)),
                      "nonce": hx(nonce), "message": hx(message),
                      "signature": hx(identity.join_proof(seat, "t1", host_pub, fp, nonce))})
    game_id = seed_bytes("game")
    message = identity.leave_proof_message("t1", host_pub, game_id, 2, nonce)
    leave = {"private_seed": hx(seed_bytes("seat-0")), "table_id": "t1", "host_public_key": hx(host_pub),
             "game_id": hx(game_id), "seat": 2, "nonce": hx(nonce), "message": hx(message),
             "signature": hx(identity.leave_proof(seat, "t1", host_pub, game_id, 2, nonce))}
    cert = b"\x30\x82example certificate DER bytes"
    return {"join": joins, "leave": leave,
            "certificate_fingerprint": {"der": hx(cert), "fingerprint": hx(identity.certificate_fingerprint(cert))}}


def fingerprints() -> list[dict[str, Any]]:
    return [{"header_envelope_bytes": hx(b), "fingerprint": identity.game_fingerprint(b)}
            for b in (b"", seed_bytes("header envelope bytes"))]


def level1(players: int, size: int, hands: list[tuple[int, int]]) -> dict[str, Any]:
    game_id = seed_bytes(f"l1-game-{players}")
    header_hash = seed_bytes(f"l1-header-{players}")
    seat_keys = [seed_bytes(f"l1-k-{players}-{i}") for i in range(players)]
    host_key = seed_bytes(f"l1-kH-{players}")
    commits = [keys.seat_key_commitment(game_id, i, header_hash, k) for i, k in enumerate(seat_keys)]
    hks = keys.key_set_hash(game_id, header_hash, commits)
    canonical = [c.text for c in canonical_deck(size)]
    attempts = []
    for h, a in hands:
        seeds = keys.all_seeds(seat_keys, game_id, h, a)
        s = keys.host_seed(host_key, game_id, h, a)
        dk = keys.deck_key(s, seeds, hks, game_id, h, a)
        order = deck.deck_permutation(dk, size)
        cards = [canonical[j] for j in order]
        salts = [commitments.card_salt(s, game_id, h, a, k) for k in range(size)]
        attempts.append({
            "hand": h, "attempt": a, "seat_seeds": [hx(c) for c in seeds], "host_seed": hx(s),
            "cuts": [keys.cut_position(k, game_id, h, a, size) for k in seat_keys],
            "deck_key": hx(dk), "card_tags": [hx(deck.card_tag(dk, j)) for j in range(size)],
            "permutation": order, "deck": cards,
            "card_salts": [hx(x) for x in salts],
            "card_commitments": [hx(x) for x in commitments.seal_deck(s, game_id, h, a, cards)],
        })
    first = attempts[0]
    assert (first["hand"], first["attempt"]) == (0, 0)
    return {
        "players": players, "deck_size": size, "canonical_deck": canonical,
        "game_id": hx(game_id), "header_hash": hx(header_hash),
        "seat_keys": [hx(k) for k in seat_keys], "host_key": hx(host_key),
        "seat_commitments": [hx(c) for c in commits],
        "host_commitment": hx(keys.host_key_commitment(game_id, host_key)),
        "key_set_hash": hx(hks),
        "first_dealer": keys.first_dealer(bytes.fromhex(first["deck_key"]), game_id, players),
        "attempts": attempts,
    }


def refusal_receipt() -> dict[str, Any]:
    k = key("host")
    game_id, env_hash, head = seed_bytes("game"), seed_bytes("refused envelope"), seed_bytes("head")
    message = receipts.receipt_bytes(game_id, env_hash, "not-your-turn", 17, head)
    r = receipts.make_receipt(k, game_id, env_hash, "not-your-turn", 17, head)
    return {"private_seed": hx(seed_bytes("host")), "public_key": hx(identity.public_key_bytes(k)),
            "game_id": hx(game_id), "envelope_hash": hx(env_hash), "reason": "not-your-turn", "chain_seq": 17,
            "chain_head": hx(head), "message": hx(message), "signature": hx(r.signature),
            "receipt_bytes": hx(r.SerializeToString(deterministic=True))}


def splice(original: bytes, changed: bytes) -> dict[str, Any]:
    """`changed` as one edit of `original`: at `offset`, `delete` bytes are replaced by the bytes `insert`."""
    start = 0
    while start < min(len(original), len(changed)) and original[start] == changed[start]:
        start += 1
    end = 0
    while (end < min(len(original), len(changed)) - start
           and original[len(original) - 1 - end] == changed[len(changed) - 1 - end]):
        end += 1
    return {"offset": start, "delete": len(original) - start - end, "insert": hx(changed[start:len(changed) - end])}


def patches(original: bytes, changed: bytes) -> list[dict[str, Any]]:
    """`changed` as splices of `original`, applied one after another: one per run of changed bytes when the lengths
    are equal (a chain signed again changes 96 bytes an envelope, not the whole file), else one splice."""
    if len(original) != len(changed):
        return [splice(original, changed)]
    out: list[dict[str, Any]] = []
    i = 0
    while i < len(original):
        if original[i] == changed[i]:
            i += 1
            continue
        end = i
        while end < len(original) and original[end:end + 8] != changed[end:end + 8]:
            end += 1
        out.append({"offset": i, "delete": end - i, "insert": hx(changed[i:end])})
        i = end
    return out


def apply_splice(original: bytes, patch: dict[str, Any]) -> bytes:
    offset, delete = patch["offset"], patch["delete"]
    return original[:offset] + bytes.fromhex(patch["insert"]) + original[offset + delete:]


GAME_SEED = 1
GAME_RULES = {"preset": "bavarian", "players": 2, "target": 3}


def game_records() -> dict[str, Any]:
    import tampering  # tests/tampering.py: a LocalTable with keys from a seeded rng

    rules = dataclasses.replace(Rules.preset(GAME_RULES["preset"], GAME_RULES["players"]),
                                target=GAME_RULES["target"])
    game = tampering.play_game("conformance", rules, seed=GAME_SEED)
    records = []
    for seat in (None, 0):
        data = game.encoded(seat)
        report = tampering.verify(data)
        assert report is not None and report.verdict == "verified", report
        records.append({"writer": "host" if seat is None else f"seat {seat}", "wrec": hx(data),
                        "verdict": report.verdict, "final_scores": report.final_scores, "hands": report.hands,
                        "game_id": report.game_id, "fingerprint": report.fingerprint})
    host = game.host()
    original = tampering.encode(host)
    chain = tampering.chain_indices(host)
    tampered = []

    def add(description: str, entries_or_bytes: Any) -> None:
        data = entries_or_bytes if isinstance(entries_or_bytes, bytes) else tampering.encode(entries_or_bytes)
        assert apply_splice(original, splice(original, data)) == data
        report = tampering.verify(data)
        if report is None:
            verdict, reason, at = "unreadable", "unreadable", 0
        else:
            verdict = report.verdict
            reason = report.errors[0].reason if report.errors else ""
            at = report.errors[0].envelope if report.errors else 0
        assert verdict != "verified", description
        tampered.append({"description": description, "patch": splice(original, data), "verdict": verdict,
                         "reason": reason, "envelope": at})

    last = chain[-1]
    add("the last host envelope dropped", tampering.drop(host, last))
    add("two host envelopes swapped", tampering.swap(host, chain[3], chain[4]))
    sig = bytearray(host[chain[2]].data)
    sig[-1] ^= 0x01  # the last byte of the host's signature (field 7 comes last)
    add("one bit of a host signature flipped",
        tampering.replace_entries(host, chain[2], [tampering.Entry(host[chain[2]].kind, bytes(sig))]))
    add("the file cut off inside an entry", tampering.encode(host)[:-3])
    return {"rules": GAME_RULES, "seed": GAME_SEED, "records": records, "tampered": tampered}


TRUSTLESS_SEED = 7
TRUSTLESS_RULES = {"preset": "bavarian", "players": 2, "target": 3, "deal": "trustless"}


def trustless_game_records() -> dict[str, Any]:
    """A whole 2-player trustless match (docs/trustless.md): the host's record and seat 0's, each `verified`, and
    host records with one forged seat message or host envelope (every signature made again, so that the first
    failure is the forgery itself, not a broken signature)."""
    from unittest import mock

    from watten_net.deal.protocol import parse_envelope
    from watten_net.trustless.messages import DecryptionShareMessage, ShuffleMessage

    import local_table
    import tampering

    rules = dataclasses.replace(Rules.preset(TRUSTLESS_RULES["preset"], TRUSTLESS_RULES["players"]),
                                target=TRUSTLESS_RULES["target"])
    with mock.patch.object(local_table, "Ed25519PrivateKey", tampering._SeededKeys(TRUSTLESS_SEED)):
        table = local_table.LocalTable(rules, seed=TRUSTLESS_SEED, deal="trustless")
    table.play()
    game = tampering.Game("trustless", table)
    records = []
    for seat in (None, 0):
        data = game.encoded(seat)
        report = tampering.verify(data)
        assert report is not None and report.verdict == "verified", report
        records.append({"writer": "host" if seat is None else f"seat {seat}", "wrec": hx(data),
                        "verdict": report.verdict, "final_scores": report.final_scores, "hands": report.hands,
                        "game_id": report.game_id, "fingerprint": report.fingerprint})
    host = game.host()
    original = tampering.encode(host)
    tampered = []

    def add(description: str, entries: Any) -> None:
        data = tampering.encode(entries)
        report = tampering.verify(data)
        assert report is not None and report.errors, description
        steps = patches(original, data)
        rebuilt = original
        for step in steps:
            rebuilt = apply_splice(rebuilt, step)
        assert rebuilt == data, description
        tampered.append({"description": description, "patches": steps, "verdict": report.verdict,
                         "reason": report.errors[0].reason, "envelope": report.errors[0].envelope})

    def forge_relay(index: int, change: Any) -> Any:
        inner = parse_envelope(tampering.signed(host[index]).payload.envelope, host=False)
        forged = tampering.client_envelope(game.seat_key(inner.sender), inner.raw, lambda p: change(p))
        return tampering.edit_host(host, index, lambda p: setattr(p, "envelope", forged), game.host_key,
                                  resign=True)

    def swap_two_cards(p: Any) -> None:
        message = ShuffleMessage.from_bytes(bytes(p.message))
        deck = list(message.deck)
        deck[0], deck[1] = deck[1], deck[0]
        p.message = dataclasses.replace(message, deck=tuple(deck)).to_bytes()

    def other_share(p: Any) -> None:
        first = DecryptionShareMessage.from_bytes(bytes(p.shares[0]))
        last = DecryptionShareMessage.from_bytes(bytes(p.shares[-1]))
        p.shares[0] = dataclasses.replace(first, share=last.share).to_bytes()

    def other_card(p: Any) -> None:
        p.openings[0].card = "EA" if p.openings[0].card != "EA" else "HK"

    add("a relayed Shuffle whose first two output cards are swapped (its proof no longer holds)",
        forge_relay(tampering.relay_indices(host, "Shuffle")[1], swap_two_cards))
    add("a relayed DecryptionShares whose first share is replaced by another position's",
        forge_relay(next(i for i in tampering.relay_indices(host, "DecryptionShares")
                         if len(parse_envelope(tampering.signed(host[i]).payload.envelope, host=False).payload.shares)
                         > 1), other_share))
    plays = tampering.host_indices(host, "ActionAccepted", lambda p: len(p.openings) == 1)
    add("a played card's ActionAccepted names another card than its opening decrypts to",
        tampering.edit_host(host, plays[0], other_card, game.host_key, resign=True))
    requests = tampering.host_indices(host, "ShareRequest")
    add("a ShareRequest asks for another position than the deal gives",
        tampering.edit_host(host, requests[1], lambda p: p.positions.__setitem__(0, (p.positions[0] + 1) % 32),
                            game.host_key, resign=True))
    return {"rules": TRUSTLESS_RULES, "seed": TRUSTLESS_SEED, "records": records, "tampered": tampered}


def main() -> None:
    vectors = {
        "description": "Conformance vectors of docs/protocol.md (see its section 'Conformance vectors'). "
                       "Bytes are lowercase hex; private keys are 32-byte Ed25519 seeds. Regenerate with "
                       "tests/make_conformance.py; tests/test_conformance_vectors.py checks every entry.",
        "framing": framing(),
        "integers": integers(),
        "ed25519": ed25519(),
        "envelopes": envelopes(),
        "game_ids": game_ids(),
        "fingerprints": fingerprints(),
        "proofs": proofs(),
        "level1_v2": [level1(2, 32, [(0, 0), (0, 1), (1, 0)]), level1(4, 33, [(0, 0), (3, 2)])],
        "deck_sizes": {str(n): [c.text for c in canonical_deck(n)] for n in (32, 33, 36)},
        "refusal_receipt": refusal_receipt(),
        "game": game_records(),
        "trustless_game": trustless_game_records(),
    }
    OUT.write_text(json.dumps(vectors, indent=1) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
