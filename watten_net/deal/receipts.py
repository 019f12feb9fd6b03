"""Refusal receipts (docs/protocol.md "Disputes"): the host's signed word that it refused one envelope of a seat.

A seat keeps every receipt in its record with the envelope it refused. Whether a refusal was fair can then be shown
from the seat's record alone: the verifier replays the game to the chain head the receipt names and submits the
envelope there (a valid envelope refused is a proven dispute), and a receipt naming a head that is not the chain's
at that seq is the host signing two chains (proven too). Layout (``framed`` with the tag prefix ``watten/v2/``)::

    signed bytes = framed("refusal-receipt", game_id, envelope_hash, ascii(reason), u64 chain_seq, chain_head)

signed with the host's Ed25519 key (GameHeader.host_public_key).
"""

from __future__ import annotations

from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from watten_net.hashing import V2, framed, u64
from watten_net.v1 import watten_pb2 as pb

from .identity import sign, verify


def receipt_bytes(game_id: bytes, envelope_hash: bytes, reason: str, chain_seq: int, chain_head: bytes) -> bytes:
    """What the host signs for one refusal."""
    return framed("refusal-receipt", game_id, envelope_hash, reason.encode("ascii", "replace"), u64(chain_seq),
                  chain_head, version=V2)


def make_receipt(key: Ed25519PrivateKey, game_id: bytes, envelope_hash: bytes, reason: str, chain_seq: int,
                 chain_head: bytes) -> Any:
    signature = sign(key, receipt_bytes(game_id, envelope_hash, reason, chain_seq, chain_head))
    return pb.RefusalReceipt(game_id=game_id, envelope_hash=envelope_hash, reason=reason, chain_seq=chain_seq,
                             chain_head=chain_head, signature=signature)


def receipt_holds(receipt: Any, host_public_key: bytes) -> bool:
    """The receipt is signed by the host's key (its fields may still be anything the host chose)."""
    try:
        message = receipt_bytes(bytes(receipt.game_id), bytes(receipt.envelope_hash), str(receipt.reason),
                                int(receipt.chain_seq), bytes(receipt.chain_head))
    except (TypeError, ValueError):
        return False
    return verify(host_public_key, bytes(receipt.signature), message)
