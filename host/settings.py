"""A table's settings: what a fresh table in its place (`Table.successor`) keeps, and what a journal restores."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from watten_net.deal.identity import public_key_bytes
from watten_net.deal.protocol import step_timeout_problem
from watten_net.engine import Rules

from .clocks import DEFAULT_GRACE, DEFAULT_STEP_TIMEOUT

STEP_TIMEOUT_MS_LIMIT = 2**32  # GameHeader.step_timeout_ms is a uint32


def header_step_timeout_ms(seconds: float) -> int:
    """GameHeader.step_timeout_ms of a table whose step timeout is `seconds` (what `Table.make_game` writes)."""
    return round(seconds * 1000)


def unheld_step_timeout(seconds: float) -> str | None:
    """Why no header can hold this step timeout (not a number, below 0, or past the uint32 once in milliseconds:
    rounded, as the header is written, so 4294967.2955 s is past it), None when one can."""
    if math.isfinite(seconds) and seconds >= 0 and header_step_timeout_ms(seconds) < STEP_TIMEOUT_MS_LIMIT:
        return None
    return (f"{seconds!r} is no number of seconds a header can hold (0 = no time limit, at most "
            f"{(STEP_TIMEOUT_MS_LIMIT - 1) / 1000:.3f})")


def hostable_step_timeout_problem(seconds: float) -> str | None:
    """Why a host must not start with this step timeout (no header holds it, or every seat would refuse to sign
    it), None when it may."""
    if (unheld := unheld_step_timeout(seconds)) is not None:
        return unheld
    problem = step_timeout_problem(seconds)
    return None if problem is None else f"{problem}: every seat would refuse to sign the header (0 = no time limit)"


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
