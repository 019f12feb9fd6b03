"""Level 2, the trustless deal: Barnett-Smart mental poker over the prime-order subgroup of Ed25519.

ElGamal under a joint key (:mod:`.elgamal`), Schnorr and Chaum-Pedersen proofs (:mod:`.proofs`),
a Terelius-Wikström shuffle proof (:mod:`.shuffle`), the wire messages (:mod:`.messages`) and the
sans-I/O deal session (:mod:`.deal`). docs/protocol.md, "Level 2: trustless deal", is the specification.
"""

from watten_net.trustless.context import DealId
from watten_net.trustless.deal import DECK_SIZES, SEAT_COUNTS, DealSetup, Phase, PublicDeal, SeatDeal
from watten_net.trustless.errors import DealStateError, Reason, TrustlessError
from watten_net.trustless.group import seeded_draw
from watten_net.trustless.messages import DecryptionShareMessage, KeyShareMessage, ShuffleMessage, decode_message

__all__ = [
    "DECK_SIZES",
    "SEAT_COUNTS",
    "DealId",
    "DealSetup",
    "DealStateError",
    "DecryptionShareMessage",
    "KeyShareMessage",
    "Phase",
    "PublicDeal",
    "Reason",
    "SeatDeal",
    "ShuffleMessage",
    "TrustlessError",
    "decode_message",
    "seeded_draw",
]
