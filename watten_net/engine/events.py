"""Events: what an action caused, with who may see it.

`to is None` means every seat sees the event; otherwise only the listed seats do. Hidden facts
(dealt cards, a card taken at the cut, a Blind announcement) travel in events of their own with
a narrow `to`, so that filtering a seat's view is just `seat in to`, for the host and for `observe`.
"""

from __future__ import annotations

from typing import Any, NamedTuple


class Event(NamedTuple):
    """One thing that happened. A named tuple: events are made on every action, so they must be cheap."""

    kind: str
    seat: int = -1
    data: dict[str, Any] = {}  # noqa: RUF012 - never mutated; every event that has data passes its own dict
    to: tuple[int, ...] | None = None

    def visible_to(self, seat: int) -> bool:
        return self.to is None or seat in self.to

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "seat": self.seat, **self.data}
        if self.to is not None:
            out["to"] = list(self.to)
        return out
