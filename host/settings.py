"""A table's settings: what a fresh table in its place (`Table.successor`) keeps, and what a journal restores."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from watten_net.deal.identity import public_key_bytes
from watten_net.engine import Rules

from .clocks import DEFAULT_GRACE, DEFAULT_STEP_TIMEOUT


@dataclass(frozen=True)
class TableSettings:
    rules: Rules
    preset: str = ""
    reveal: str = "match-end"
    deal: str = "verified"  # "verified" (Level 1) or "trustless" (Level 2: the host sees no card)
    # GameHeader.next_deal of a verified game: "with-checkpoint" (the next deal sealed in the checkpoint's round) or
    # "" (after every checkpoint signature); a trustless table ignores it (its header says "")
    next_deal: str = "with-checkpoint"
    host_key: Ed25519PrivateKey = field(default_factory=Ed25519PrivateKey.generate)
    tls_fingerprint: bytes = b""  # the certificate the game header names (b"": plaintext)
    record_dir: Path | None = None
    host_name: str = "watten-host"
    bot_delay: float = 0.0
    grace: float = DEFAULT_GRACE
    step_timeout: float = DEFAULT_STEP_TIMEOUT

    @property
    def players(self) -> int:
        return self.rules.players

    @cached_property
    def host_public_key(self) -> bytes:
        """The host key's public half (every TableInfo carries it: derived once, not at every change)."""
        return public_key_bytes(self.host_key)
