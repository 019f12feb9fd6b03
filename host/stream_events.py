"""What one event stream sends for a change of the table's log: only what changed for that stream, and whatever is
the same for every stream worked out once per change.

A change's engine events become GameEvents once (each stream then picks the ones its seat may see), its chain
entries are built once per kind (whole, or the stub of a withheld envelope), and the TableInfo is built once. A
stream remembers what it carried last (`Sent`): an Event's view is left out when it equals the stream's last one
(compared by what they were built from: `views.BuiltView`),
and the view's TableInfo (its rules JSON is about half a view) is left out when it equals the last one the stream
carried apart from `seq` (docs/protocol.md, the event stream; the client keeps the last one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from watten_net.deal.protocol import event_to_pb
from watten_net.v1 import watten_pb2 as pb

from .views import BuiltView

if TYPE_CHECKING:
    from .changelog import LogItem
    from .table import Table


def public_info(info: Any) -> tuple[Any, bytes]:
    """The TableInfo without its `seq` (which every change moves), and its bytes to compare it by."""
    same = pb.TableInfo()
    same.CopyFrom(info)
    same.seq = 0
    return same, same.SerializeToString(deterministic=True)


@dataclass
class Sent:
    """What one stream carried last: its view's BuiltView.key (None: a snapshot's view, kept whole as `view` to
    compare the next one with; after an Event the keys say it all), and its TableInfo's bytes (without seq)."""

    view: Any = None
    key: Any = None
    info: bytes = b""

    def snapshot(self, view: Any) -> None:
        """A full snapshot carried this view, TableInfo included."""
        self.info = public_info(view.table)[1]
        self.view = pb.TableView()
        self.view.CopyFrom(view)
        self.view.ClearField("table")  # (views are compared without it)
        self.key = None


@dataclass
class Shared:
    """The parts of one change that are the same for every stream, built by the first stream that sends it."""

    events: list[tuple[Any, Any]]  # (engine event, its GameEvent)
    entries: list[tuple[Any, Any, Any]]  # (posted, its whole ChainEntry, its withheld ChainEntry or None)


def shared(item: LogItem) -> Shared:
    if item.shared is None:
        item.shared = Shared(
            events=[(e, event_to_pb(e.kind, e.seat, e.data)) for e in item.events],
            entries=[(p, pb.ChainEntry(chain_seq=p.seq, envelope=p.raw),
                      None if p.visible_to is None else pb.ChainEntry(chain_seq=p.seq, withheld=p.stub()))
                     for p in item.posted],
        )
    return item.shared


def seat_event(table: Table, item: LogItem, seat: int, sent: Sent, event: Any = None) -> Any:
    """One change of the table's log as `seat` may see it, leaving out what this stream carried already (written
    into `event`, an empty pb.Event, when given: the stream's TableUpdate.event, so that it is not copied)."""
    parts = shared(item)
    if event is None:
        event = pb.Event()
    event.seq = item.seq
    event.events.extend(item.lobby)
    event.events.extend(game_event for e, game_event in parts.events if e.visible_to(seat))
    for posted, whole, withheld in parts.entries:
        event.chain.append(whole if posted.sees(seat) else withheld)
    built = item.views.get(seat)
    if built is not None and item.info is not None:
        info, info_bytes = item.info, item.info_bytes
    else:  # (the seat was not online at the change, or the change is too old to keep views: the table as it is now)
        built = BuiltView.now(table, seat)
        info, info_bytes = public_info(table.info())
    if info_bytes != sent.info:
        built.write(event.view)
        event.view.table.CopyFrom(info)
        event.view.table.seq = item.seq
    elif (built.key != sent.key) if sent.key is not None else (built.view != sent.view):
        built.write(event.view)
    sent.view, sent.key, sent.info = None, built.key, info_bytes  # (from here on the keys say it: no view kept)
    return event
