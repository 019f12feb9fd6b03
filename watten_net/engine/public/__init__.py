"""The rules engine on public information only, for trustless deals (docs/trustless.md).

`PublicMatch` runs a match like `Match` without knowing the deck; see `public/match.py` for its decisions.
"""

from .match import SETTLE, PublicMatch
from .obligations import (
    FollowObligation,
    Obligation,
    SchadetObligation,
    SchleckenObligation,
    Verdict,
    Violation,
)
from .views import Outcome, PublicObservation

__all__ = [
    "SETTLE", "FollowObligation", "Obligation", "Outcome", "PublicMatch", "PublicObservation", "SchadetObligation",
    "SchleckenObligation", "Verdict", "Violation",
]
