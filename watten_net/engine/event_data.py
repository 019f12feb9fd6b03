"""The data of each event kind, typed, for the readers of `Event.data`.

The engines build an event's data as a plain dict (events are made on every action, so no wrapper is built);
what a reader may find there is declared here, one TypedDict per kind, and `event_data(event, kind)` hands the
dict over under its type, so mypy checks every key a reader uses and the type of its value. The serialised form
is the dict itself, unchanged. Where the two engines differ (a trustless table's cards are deck positions), the
keys only one of them sends are `NotRequired`.
"""

# No `from __future__ import annotations`: NotRequired must be seen when the classes are made (their
# __required_keys__ and __optional_keys__, which tests/test_event_data.py checks the engines against).
from typing import Any, Literal, NotRequired, TypedDict, cast, overload

from .events import Event, EventKind


class HandStartData(TypedDict):
    hand: int
    attempt: int
    dealer: int
    forehand: int
    cutter: int
    value: int
    gespannt: list[bool]


class CutData(TypedDict):
    n: int


class ShownCardData(TypedDict):
    """`see` and `took` (to the seat alone): the card with Match, only its deck position with PublicMatch."""

    position: int
    card: NotRequired[str]


class DealData(TypedDict):
    """Cards dealt to one seat (to it alone); `packet` 0 is the new cards of a Bessere."""

    packet: int
    positions: list[int]
    cards: NotRequired[list[str]]  # Match only


class PacketData(TypedDict):
    packet: int
    counts: list[int]


class AsideData(TypedDict):
    count: int
    positions: NotRequired[list[int]]  # PublicMatch only


class SchlagData(TypedDict):
    rank: str


class TrumpData(TypedDict):
    suit: str


class AnnouncedData(TypedDict):
    what: str


class AnnouncementData(TypedDict):
    schlag: str
    trump: str


class AnswerData(TypedDict):
    """`swap`, `bessere` and `schadet`: the answer to the question."""

    answer: str


RaiseData = TypedDict("RaiseData", {"value": int, "from": int})  # "from" is a keyword: the functional form


class StakeData(TypedDict):
    """`accept` (the new stake) and `fold` (the stake the raiser's side scores)."""

    value: int


class SignalData(TypedDict):
    name: str


class PlayData(TypedDict):
    card: str
    position: int


class TrickData(TypedDict):
    cards: list[str]
    leader: int
    side: int
    tricks: list[int]


class MaschineData(TypedDict):
    cards: list[str]
    positions: NotRequired[list[int]]  # PublicMatch only


class PenaltyData(TypedDict):
    points: int


class HandEndData(TypedDict):
    side: int
    seats: list[int]
    points: int
    reason: str
    scores: list[int]
    hand: int
    tricks: list[int]
    # PublicMatch, when obligations were broken: what they were, and how the hand had been decided before
    violations: NotRequired[list[dict[str, Any]]]
    decided: NotRequired[dict[str, Any]]


class RedealData(TypedDict):
    penalty: int
    scores: list[int]
    violations: NotRequired[list[dict[str, Any]]]  # PublicMatch, when obligations were broken


class MatchEndData(TypedDict):
    scores: list[int]
    winners: list[int]
    bummerl: list[int]
    series_over: bool


class OpenAskData(TypedDict):
    """`open?`: the positions each seat must open (seat numbers as strings: the data is JSON)."""

    positions: dict[str, list[int]]


class OpenedData(TypedDict):
    positions: list[int]
    cards: list[str]


class NotOpenedData(TypedDict):
    positions: list[int]


# fmt: off
@overload
def event_data(event: Event, kind: Literal[EventKind.HAND_START]) -> HandStartData: ...
@overload
def event_data(event: Event, kind: Literal[EventKind.CUT]) -> CutData: ...
@overload
def event_data(event: Event, kind: Literal[EventKind.SEE, EventKind.TOOK]) -> ShownCardData: ...
@overload
def event_data(event: Event, kind: Literal[EventKind.DEAL]) -> DealData: ...
@overload
def event_data(event: Event, kind: Literal[EventKind.PACKET]) -> PacketData: ...
@overload
def event_data(event: Event, kind: Literal[EventKind.ASIDE]) -> AsideData: ...
@overload
def event_data(event: Event, kind: Literal[EventKind.SCHLAG]) -> SchlagData: ...
@overload
def event_data(event: Event, kind: Literal[EventKind.TRUMP]) -> TrumpData: ...
@overload
def event_data(event: Event, kind: Literal[EventKind.ANNOUNCED]) -> AnnouncedData: ...
@overload
def event_data(event: Event, kind: Literal[EventKind.ANNOUNCEMENT]) -> AnnouncementData: ...
@overload
def event_data(event: Event, kind: Literal[EventKind.SWAP, EventKind.BESSERE, EventKind.SCHADET]) -> AnswerData: ...
@overload
def event_data(event: Event, kind: Literal[EventKind.RAISE]) -> RaiseData: ...
@overload
def event_data(event: Event, kind: Literal[EventKind.ACCEPT, EventKind.FOLD]) -> StakeData: ...
@overload
def event_data(event: Event, kind: Literal[EventKind.SIGNAL]) -> SignalData: ...
@overload
def event_data(event: Event, kind: Literal[EventKind.PLAY]) -> PlayData: ...
@overload
def event_data(event: Event, kind: Literal[EventKind.TRICK]) -> TrickData: ...
@overload
def event_data(event: Event, kind: Literal[EventKind.MASCHINE]) -> MaschineData: ...
@overload
def event_data(event: Event, kind: Literal[EventKind.BLUFF_PENALTY]) -> PenaltyData: ...
@overload
def event_data(event: Event, kind: Literal[EventKind.HAND_END]) -> HandEndData: ...
@overload
def event_data(event: Event, kind: Literal[EventKind.REDEAL]) -> RedealData: ...
@overload
def event_data(event: Event, kind: Literal[EventKind.MATCH_END]) -> MatchEndData: ...
@overload
def event_data(event: Event, kind: Literal[EventKind.OPEN_ASK]) -> OpenAskData: ...
@overload
def event_data(event: Event, kind: Literal[EventKind.OPENED]) -> OpenedData: ...
@overload
def event_data(event: Event, kind: Literal[EventKind.NOT_OPENED]) -> NotOpenedData: ...
# fmt: on
def event_data(event: Event, kind: EventKind) -> Any:
    """`event`'s data as the TypedDict of `kind`, which must be the event's kind (an AssertionError otherwise)."""
    assert event.kind == kind, f"a {event.kind!r} event read as {kind!r}"
    return cast(Any, event.data)


# The TypedDict of each kind with data of its own (obligation and violation carry their object's to_dict()).
# (Kinds missing here carry none.)
DATA_TYPES: dict[EventKind, type] = {
    EventKind.HAND_START: HandStartData, EventKind.CUT: CutData, EventKind.SEE: ShownCardData,
    EventKind.TOOK: ShownCardData, EventKind.DEAL: DealData, EventKind.PACKET: PacketData, EventKind.ASIDE: AsideData,
    EventKind.SCHLAG: SchlagData, EventKind.TRUMP: TrumpData, EventKind.ANNOUNCED: AnnouncedData,
    EventKind.ANNOUNCEMENT: AnnouncementData, EventKind.SWAP: AnswerData, EventKind.BESSERE: AnswerData,
    EventKind.SCHADET: AnswerData, EventKind.RAISE: RaiseData, EventKind.ACCEPT: StakeData,
    EventKind.FOLD: StakeData, EventKind.SIGNAL: SignalData, EventKind.PLAY: PlayData, EventKind.TRICK: TrickData,
    EventKind.MASCHINE: MaschineData, EventKind.BLUFF_PENALTY: PenaltyData, EventKind.HAND_END: HandEndData,
    EventKind.REDEAL: RedealData, EventKind.MATCH_END: MatchEndData, EventKind.OPEN_ASK: OpenAskData,
    EventKind.OPENED: OpenedData, EventKind.NOT_OPENED: NotOpenedData,
}
