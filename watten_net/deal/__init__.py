"""Verifiable dealing: tagged hashes, deck derivation, commitments, identities and envelope signing.

These are pure functions over bytes and ints (no networking, no protobuf), shared by the
host, the clients and ``watten-verify``. docs/protocol.md is the specification; each module's
docstring gives its exact byte layouts.
"""

from watten_net.deal.commitments import (
    CommitmentError,
    card_commitment,
    card_matches,
    card_salt,
    check_card,
    seal_deck,
)
from watten_net.deal.deck import DECK_VERSION, deck_permutation
from watten_net.deal.envelope import (
    GENESIS_PREV_HASH,
    HOST_SENDER,
    envelope_hash,
    sign_envelope,
    signing_bytes,
    verify_envelope,
)
from watten_net.deal.identity import (
    IdentityFileError,
    game_fingerprint,
    game_id,
    load_identity,
    load_or_create_identity,
    new_nonce,
    public_key_bytes,
    sign,
    verify,
)
from watten_net.hashing import H, framed, u8, u32, u64

__all__ = [
    "DECK_VERSION",
    "GENESIS_PREV_HASH",
    "HOST_SENDER",
    "CommitmentError",
    "H",
    "IdentityFileError",
    "card_commitment",
    "card_matches",
    "card_salt",
    "check_card",
    "deck_permutation",
    "envelope_hash",
    "framed",
    "game_fingerprint",
    "game_id",
    "load_identity",
    "load_or_create_identity",
    "new_nonce",
    "public_key_bytes",
    "seal_deck",
    "sign",
    "sign_envelope",
    "signing_bytes",
    "u8",
    "u32",
    "u64",
    "verify",
    "verify_envelope",
]
