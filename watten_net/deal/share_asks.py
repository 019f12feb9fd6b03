"""A trustless seat's account of the open ShareRequests (why "deal" or "see") of the current attempt, kept as the
host keeps them (`TrustlessDealing._on_DecryptionShares`, `_missing`, `_complete_asks` in level2.py), so that the
seat stops on relayed shares an honest host would have refused (docs/trustless.md §T10, "Relay of
DecryptionShares"): shares that answer no open request, that the request's own recipient gives, for a position the
request does not ask for or twice, a share already public, a public share of a card its sender has learnt (it must
seal it), or a sealed share nobody owes. Without this a host could publish any share a seat signed, to any request.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

SharesAt = Callable[[int], Iterable[int]]  # position -> the seats whose share of it is public


@dataclass
class ShareAsks:
    open_asks: dict[bytes, tuple[int, tuple[int, ...]]] = field(default_factory=dict)  # hash -> recipient, positions
    # Who has learnt each position (recipients of completed asks): such a seat shares that position only sealed.
    learnt: dict[int, set[int]] = field(default_factory=dict)
    sealed: dict[tuple[int, int], set[int]] = field(default_factory=dict)  # (position, recipient) -> sealers

    def open(self, request_hash: bytes, recipient: int, positions: tuple[int, ...], shares_at: SharesAt,
             n: int) -> None:
        self.open_asks[request_hash] = (recipient, positions)
        self._close_complete(shares_at, n)  # a card its recipient has learnt before needs nothing

    def refusal(self, sender: int, p: Any, public: list[int], shares_at: SharesAt) -> str:
        """Why the honest host would refuse `sender`'s DecryptionShares `p` (whose public shares are for the
        positions `public`), or "" when it would take them."""
        ask = self.open_asks.get(bytes(p.request_hash))
        if ask is None:
            return "answer no open share request"
        recipient, positions = ask
        if sender == recipient:
            return "are for its own cards"
        if not public and not p.sealed:
            return "are none"
        seen: set[int] = set()
        for k in public:
            if k not in positions or k in seen:
                return f"give position {k}, which is not asked for"
            if sender in self.learnt.get(k, ()):
                return f"give position {k} in clear, which its sender knows and must seal"
            if sender in shares_at(k):
                return f"give position {k} again"
            seen.add(k)
        for entry in p.sealed:
            k = int(entry.position)
            if k not in positions or k in seen or entry.recipient != recipient or not entry.box:
                return f"seal position {k}, which is not asked for"
            if sender not in self.learnt.get(k, ()) or sender in self.sealed.get((k, recipient), ()):
                return f"seal position {k}, which nobody owes sealed"
            seen.add(k)
        return ""

    def answered(self, sender: int, p: Any, shares_at: SharesAt, n: int) -> None:
        """Count `sender`'s accepted answer `p` and close the requests it completes."""
        for entry in p.sealed:
            self.sealed.setdefault((int(entry.position), int(entry.recipient)), set()).add(sender)
        self._close_complete(shares_at, n)

    def _close_complete(self, shares_at: SharesAt, n: int) -> None:
        for request_hash, (recipient, positions) in list(self.open_asks.items()):
            if all(set(shares_at(k)) | self.sealed.get((k, recipient), set()) >= set(range(n)) - {recipient}
                   for k in positions):
                del self.open_asks[request_hash]
                for k in positions:
                    self.learnt.setdefault(k, set()).add(recipient)
