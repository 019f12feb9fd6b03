"""A table's event log: numbered from 1 for ever, but only the newest part kept while the table is in its lobby.

Join/leave churn in a lobby (nothing of it goes into a game record) would otherwise grow the log without end. Indexes
are absolute (`log[seq - 1]`, `len(log)` is the last seq) whatever has been forgotten; reading a forgotten item raises
`Forgotten` (a stream that far behind ends with ABORTED `subscriber-lagging`, and its client resubscribes).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Generic, TypeVar

T = TypeVar("T")


class Forgotten(IndexError):
    """The item was dropped from the log (it is older than what the log keeps)."""


class EventLog(Generic[T]):
    """An append-only log with absolute indices that may forget its oldest items (reading one raises `Forgotten`)."""

    def __init__(self) -> None:
        self._items: list[T] = []
        self.first = 0  # index of the oldest item kept (items before it are forgotten)

    def __len__(self) -> int:
        return self.first + len(self._items)

    def __bool__(self) -> bool:
        return len(self) > 0

    def __getitem__(self, index: int) -> T:
        if index < 0:
            index += len(self)
        if index < self.first:
            raise Forgotten(f"log item {index + 1} was forgotten (the log keeps {self.first + 1} on)")
        return self._items[index - self.first]

    def __iter__(self) -> Iterator[T]:
        """The items kept, oldest first."""
        return iter(list(self._items))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, list):
            return self._items == other
        if isinstance(other, EventLog):
            return self.first == other.first and self._items == other._items
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def append(self, item: T) -> None:
        self._items.append(item)

    def keep_last(self, count: int) -> None:
        """Forget all but the newest `count` items."""
        drop = len(self._items) - count
        if drop > 0:
            del self._items[:drop]
            self.first += drop
