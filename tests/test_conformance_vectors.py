"""Every conformance vector of docs/vectors/conformance.json (docs/protocol.md) against the code.

The JSON is committed; tests/make_conformance.py regenerates it. These tests recompute each vector from its
inputs with watten_net and compare with the committed bytes, so a layout that changes fails here, and another
implementation that passes the same file agrees with this one byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from watten_net import hashing
from watten_net.deal import commitments, deck, envelope, identity, keys, receipts
from watten_net.deal.protocol import HOST_SEAT, ProtocolError, check_signature, make_envelope, parse_envelope
from watten_net.engine import canonical_deck
from watten_net.record import RecordError, parse_record
from watten_net.v1 import watten_pb2 as pb
from watten_net.verify import EXIT_CODES, verify_entries

VECTORS = json.loads((Path(__file__).parent.parent / "docs" / "vectors" / "conformance.json").read_text())


def b(x: str) -> bytes:
    return bytes.fromhex(x)


def private(seed_hex: str) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(b(seed_hex))


@pytest.mark.parametrize("case", VECTORS["framing"], ids=lambda c: c["name"])
def test_framing(case: dict[str, Any]) -> None:
    fields = [b(f) for f in case["fields"]]
    assert hashing.tag(case["name"], case["version"]).decode() == case["tag"]
    framed = hashing.framed(case["name"], *fields, version=case["version"])
    assert framed.hex() == case["framed"]
    assert hashing.H(case["name"], *fields, version=case["version"]).hex() == case["H"]
    # The layout itself, independently of the code: u32 big-endian length before the tag and every field.
    parts = [case["tag"].encode(), *fields]
    assert b"".join(len(p).to_bytes(4, "big") + p for p in parts).hex() == case["framed"]


def test_integers() -> None:
    encoders = {8: hashing.u8, 32: hashing.u32, 64: hashing.u64}
    for case in VECTORS["integers"]:
        assert encoders[case["width"]](case["value"]).hex() == case["bytes"]
        assert int.from_bytes(b(case["bytes"]), "big") == case["value"]
        assert len(b(case["bytes"])) * 8 == case["width"]


def test_ed25519() -> None:
    for case in VECTORS["ed25519"]:
        k = private(case["private_seed"])
        assert identity.public_key_bytes(k).hex() == case["public_key"]
        assert identity.sign(k, b(case["message"])).hex() == case["signature"]
        assert identity.verify(b(case["public_key"]), b(case["signature"]), b(case["message"]))


@pytest.mark.parametrize("case", VECTORS["envelopes"]["cases"], ids=lambda c: c["type"])
def test_envelope(case: dict[str, Any]) -> None:
    k = private(case["private_seed"])
    args = (b(case["game_id"]), case["seq"], b(case["prev_hash"]), case["sender_seat_signed"], case["type"],
            b(case["payload"]))
    assert envelope.signing_bytes(*args).hex() == case["signing_bytes"]
    assert envelope.sign_envelope(k, *args).hex() == case["signature"]
    assert case["sender_seat_signed"] == (255 if case["sender_seat_wire"] == HOST_SEAT else case["sender_seat_wire"])
    payload = getattr(pb, case["type"]).FromString(b(case["payload"]))
    raw = make_envelope(k, b(case["game_id"]), case["seq"], b(case["prev_hash"]), case["sender_seat_wire"], payload)
    assert raw.hex() == case["envelope_bytes"]
    assert envelope.envelope_hash(raw).hex() == case["envelope_hash"]
    signed = parse_envelope(raw, host=case["sender_seat_wire"] == HOST_SEAT)
    assert check_signature(signed, b(case["public_key"]))
    assert signed.hash.hex() == case["envelope_hash"]


@pytest.mark.parametrize("case", VECTORS["envelopes"]["non_canonical"], ids=lambda c: c["description"])
def test_non_canonical_envelope_refused(case: dict[str, Any]) -> None:
    raw = b(case["envelope_bytes"])
    pb.Envelope.FromString(raw)  # it parses...
    with pytest.raises(ProtocolError) as err:
        parse_envelope(raw, host=False)  # ...but is refused
    assert err.value.reason == case["reason"]


def test_game_ids_and_fingerprints() -> None:
    for case in VECTORS["game_ids"]:
        got = identity.game_id(b(case["host_nonce"]), [b(n) for n in case["join_nonces"]])
        assert got.hex() == case["game_id"]
    for case in VECTORS["fingerprints"]:
        assert identity.game_fingerprint(b(case["header_envelope_bytes"])) == case["fingerprint"]


def test_join_and_leave_proofs() -> None:
    proofs = VECTORS["proofs"]
    for case in proofs["join"]:
        k = private(case["private_seed"])
        assert identity.public_key_bytes(k).hex() == case["public_key"]
        message = identity.join_proof_message(case["table_id"], b(case["host_public_key"]), b(case["tls_fingerprint"]),
                                              b(case["public_key"]), b(case["nonce"]))
        assert message.hex() == case["message"]
        assert identity.join_proof(k, case["table_id"], b(case["host_public_key"]), b(case["tls_fingerprint"]),
                                   b(case["nonce"])).hex() == case["signature"]
    leave = proofs["leave"]
    k = private(leave["private_seed"])
    args = (leave["table_id"], b(leave["host_public_key"]), b(leave["game_id"]), leave["seat"], b(leave["nonce"]))
    assert identity.leave_proof_message(*args).hex() == leave["message"]
    assert identity.leave_proof(k, *args).hex() == leave["signature"]
    cert = proofs["certificate_fingerprint"]
    assert identity.certificate_fingerprint(b(cert["der"])).hex() == cert["fingerprint"]


def test_deck_sizes() -> None:
    for size, cards in VECTORS["deck_sizes"].items():
        assert [c.text for c in canonical_deck(int(size))] == cards


@pytest.mark.parametrize("case", VECTORS["level1_v2"], ids=lambda c: f"{c['players']}-players")
def test_level1_v2(case: dict[str, Any]) -> None:
    game_id, header_hash = b(case["game_id"]), b(case["header_hash"])
    seat_keys, host_key = [b(k) for k in case["seat_keys"]], b(case["host_key"])
    commits = [keys.seat_key_commitment(game_id, i, header_hash, k) for i, k in enumerate(seat_keys)]
    assert [c.hex() for c in commits] == case["seat_commitments"]
    assert keys.host_key_commitment(game_id, host_key).hex() == case["host_commitment"]
    hks = keys.key_set_hash(game_id, header_hash, commits)
    assert hks.hex() == case["key_set_hash"]
    size = case["deck_size"]
    assert [c.text for c in canonical_deck(size)] == case["canonical_deck"]
    for att in case["attempts"]:
        h, a = att["hand"], att["attempt"]
        seeds = keys.all_seeds(seat_keys, game_id, h, a)
        assert [s.hex() for s in seeds] == att["seat_seeds"]
        s = keys.host_seed(host_key, game_id, h, a)
        assert s.hex() == att["host_seed"]
        assert [keys.cut_position(k, game_id, h, a, size) for k in seat_keys] == att["cuts"]
        dk = keys.deck_key(s, seeds, hks, game_id, h, a)
        assert dk.hex() == att["deck_key"]
        assert [deck.card_tag(dk, j).hex() for j in range(size)] == att["card_tags"]
        order = deck.deck_permutation(dk, size)
        assert order == att["permutation"]
        assert [case["canonical_deck"][j] for j in order] == att["deck"]
        assert [commitments.card_salt(s, game_id, h, a, k).hex() for k in range(size)] == att["card_salts"]
        assert [commitments.card_commitment(game_id, h, a, k, card, b(att["card_salts"][k])).hex()
                for k, card in enumerate(att["deck"])] == att["card_commitments"]
        assert [x.hex() for x in commitments.seal_deck(s, game_id, h, a, att["deck"])] == att["card_commitments"]
        if (h, a) == (0, 0):
            assert keys.first_dealer(dk, game_id, case["players"]) == case["first_dealer"]


def test_refusal_receipt() -> None:
    case = VECTORS["refusal_receipt"]
    k = private(case["private_seed"])
    args = (b(case["game_id"]), b(case["envelope_hash"]), case["reason"], case["chain_seq"], b(case["chain_head"]))
    assert receipts.receipt_bytes(*args).hex() == case["message"]
    receipt = receipts.make_receipt(k, *args)
    assert bytes(receipt.signature).hex() == case["signature"]
    assert receipt.SerializeToString(deterministic=True).hex() == case["receipt_bytes"]
    assert receipts.receipt_holds(pb.RefusalReceipt.FromString(b(case["receipt_bytes"])), b(case["public_key"]))


def _verdict(data: bytes) -> tuple[str, str, int]:
    try:
        meta, entries = parse_record(data, "vector")
    except RecordError:
        return "unreadable", "unreadable", 0
    report = verify_entries(entries, "vector", meta)
    if not report.errors:
        return report.verdict, "", 0
    return report.verdict, report.errors[0].reason, report.errors[0].envelope


@pytest.mark.parametrize("game", ["game", "trustless_game"])
def test_game_records_verify(game: str) -> None:
    for record in VECTORS[game]["records"]:
        meta, entries = parse_record(b(record["wrec"]), "vector")
        report = verify_entries(entries, "vector", meta)
        assert (report.verdict, report.errors) == (record["verdict"], [])
        assert EXIT_CODES[report.verdict] == 0
        assert report.final_scores == record["final_scores"]
        assert report.hands == record["hands"]
        assert report.game_id == record["game_id"]
        assert report.fingerprint == record["fingerprint"]


@pytest.mark.parametrize("case", VECTORS["game"]["tampered"], ids=lambda c: c["description"])
def test_tampered_records_fail(case: dict[str, Any]) -> None:
    original = b(VECTORS["game"]["records"][0]["wrec"])
    patch = case["patch"]
    data = original[: patch["offset"]] + b(patch["insert"]) + original[patch["offset"] + patch["delete"]:]
    assert data != original
    assert _verdict(data) == (case["verdict"], case["reason"], case["envelope"])


@pytest.mark.parametrize("case", VECTORS["trustless_game"]["tampered"], ids=lambda c: c["description"])
def test_tampered_trustless_records_fail(case: dict[str, Any]) -> None:
    """Each forgery is applied as its splices, one after another (the host signed the chain again after it)."""
    data = original = b(VECTORS["trustless_game"]["records"][0]["wrec"])
    for patch in case["patches"]:
        data = data[: patch["offset"]] + b(patch["insert"]) + data[patch["offset"] + patch["delete"]:]
    assert data != original
    assert _verdict(data) == (case["verdict"], case["reason"], case["envelope"])
