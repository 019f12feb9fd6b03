"""The table log: the game events this seat receives, one line each, with names, in the player's language.

Pure: `Story` is fed the `GameEvent`s of the seat's stream (`Snapshot.recent_events`, each `Event.events`) and its
views, and keeps the lines and a row per finished hand (the end-of-match summary). It only ever describes what the
host sent to this seat, so it can show no more than the seat may see (a Blind announcement of another seat arrives as
`announced`, without the rank). Every value from the host is decoded defensively and printed through `visible`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from watten_net.cardwords import RANK_DE, SUIT_DE
from watten_net.printable import visible

from .i18n import Words
from .signal_words import signal_meaning
from .story_words import story_text

LOG_KEEP = 2000  # lines kept for the whole match's log (a long match has a few hundred)


@dataclass(frozen=True)
class LogLine:
    hand: int
    kind: str
    text: str


@dataclass
class HandRow:
    """One finished hand, for the end-of-match summary."""

    hand: int
    dealer: int = -1
    schlag: str = ""
    trump: str = ""
    points: int = 0
    winners: list[int] = field(default_factory=list)
    how: str = ""
    scores: list[int] = field(default_factory=list)


def decode(fields: Any) -> dict[str, Any] | None:
    """An event's fields (every value JSON-encoded); None when any does not parse (a broken or hostile host)."""
    out: dict[str, Any] = {}
    try:
        for key, value in dict(fields).items():
            out[str(key)] = json.loads(value)
    except (ValueError, TypeError):
        return None
    return out


def _in_hand(view: Any) -> bool:
    return view is not None and bool(view.game_fingerprint) and bool(view.hand_phase)


def _int(data: dict[str, Any], key: str, default: int = -1) -> int:
    value = data.get(key, default)
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _ints(data: dict[str, Any], key: str) -> list[int]:
    value = data.get(key)
    return [v for v in value if isinstance(v, int)] if isinstance(value, list) else []


def _str(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    return value if isinstance(value, str) else ""


class Story:
    """The seat's log of the match, built from the events it receives (see the module's docstring)."""

    def __init__(self, words: Words) -> None:
        self.words = words
        self.lines: list[LogLine] = []
        self.hands: list[HandRow] = []
        self.hand = -1
        self.me = -1
        self.names: dict[int, str] = {}
        self.players = 4
        self.tricks = 0
        self.asked: dict[str, int] = {}  # question kind ("bessere?", "swap?", "schadet?") -> who asked, this hand
        self.row = HandRow(-1)
        self.result = ""  # the last hand's result line, for the banner
        self.result_seen = True
        self._named: set[tuple[int, str]] = set()
        self._stand_in: dict[int, bool] = {}
        self.last_trick: tuple[dict[int, str], int] | None = None  # the last finished trick: cards by seat, winner
        self.last_trick_hand = -1  # the hand it was won in (a new hand's table shows it only for a moment)
        self.trick_serial = 0  # finished tricks seen (the screen paces on its change)
        self.signals: dict[int, str] = {}  # seat -> the last signal this seat saw from it this hand
        self._by: dict[str, int] = {}  # event kind -> the seat of its last event this hand (who folded, ...)
        self.trustless = False  # a trustless deal's cut is the cutter's own choice; a verified deal's follows the seeds

    # ------------------------------------------------------------------ feeding
    def snapshot(self, view: Any, events: Any) -> None:
        """A full snapshot: the current hand's lines are rebuilt from its `recent_events` (a reconnect)."""
        if _in_hand(view):
            hand = int(view.hand)
            self.lines = [line for line in self.lines if line.hand < hand]
            self.hands = [row for row in self.hands if row.hand < hand]
            self.hand = hand - 1  # (the hand's header comes again, from its event or from the view)
        self.events(events, view)

    def events(self, events: Any, view: Any = None) -> None:
        events = list(events)
        if view is not None:
            self.view(view)
            kinds = {e.kind for e in events}
            if _in_hand(view) and int(view.hand) > self.hand and not kinds & {"hand-start", "hand-end"}:
                # (the first hand of a match starts without a hand-start event: its header comes from the view)
                self._start_hand({"hand": int(view.hand), "dealer": int(view.dealer),
                                  "forehand": int(view.forehand), "cutter": int(view.cutter)})
        for event in events:
            self._add(str(event.kind), int(event.seat), decode(event.fields))

    def view(self, view: Any) -> None:
        """Names and seating from the view; a bot standing in for a seat, or its person back, is a line."""
        if view is None or not view.seats:
            return
        self.me = int(view.your_seat)
        self.players = int(view.table.player_count) or self.players
        self.names = {int(s.seat): self.words.seat_label(visible(s.name), s.bot) if s.name else f"#{s.seat}"
                      for s in view.seats}
        trustless = self.trustless = view.deal.mode == "trustless"
        for s in view.seats:
            seat, now = int(s.seat), bool(s.stand_in)
            if now != self._stand_in.get(seat, False):
                key = ("stand-in-trustless" if trustless else "stand-in") if now else "back"
                self._line("stand-in", key, who=self.name(seat))
            self._stand_in[seat] = now

    # ------------------------------------------------------------------ reading
    def name(self, seat: int) -> str:
        return self.names.get(seat, f"#{seat}")

    def short(self, seat: int) -> str:
        """A name's first word (a trick's line names every seat: "Resi ♦9", not "Resi (bot) ♦9")."""
        name = self.name(seat)
        mark = self.words["bot_mark"]  # (a Chinese "Vroni（机器人）" has no space before its marker)
        words = (name[: -len(mark)] if name.endswith(mark) else name).split()
        return (words[0] if words else f"#{seat}")[:10]

    def last(self, count: int) -> list[LogLine]:
        return self.lines[-count:] if count > 0 else []

    def asker(self, question: str) -> int:
        """Who asked `question` ("bessere?", "swap?", "schadet?") this hand; -1: nobody this seat saw."""
        return self.asked.get(question, -1)

    def note(self, kind: str, text: str) -> None:
        """A line that is no game event (table chat, who came to watch): `text` is ready for the screen."""
        self.lines.append(LogLine(self.hand, kind, text))
        del self.lines[:-LOG_KEEP]

    # ------------------------------------------------------------------ the lines
    def _line(self, kind: str, key: str, **values: Any) -> None:
        text = story_text(self.words.lang, key).format(**values)
        self.lines.append(LogLine(self.hand, kind, text))
        del self.lines[:-LOG_KEEP]

    def _card(self, card: Any) -> str:
        if isinstance(card, str) and card[:1] in SUIT_DE and card[1:] in RANK_DE:
            return self.words.card_short(card)
        return visible(str(card))[:8]

    def _rank(self, rank: str) -> str:
        return self.words.rank(rank) if rank in RANK_DE else visible(rank)[:8]

    def _suit(self, suit: str) -> str:
        return f"{self.words.marks[suit]} {SUIT_DE[suit]}" if suit in SUIT_DE else visible(suit)[:8]

    def _team(self, seats: list[int]) -> str:
        return " & ".join(self.name(s) for s in seats) or "–"

    def _add(self, kind: str, seat: int, data: dict[str, Any] | None) -> None:
        if data is None:
            return
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, seat, data)

    def _start_hand(self, data: dict[str, Any]) -> None:
        hand = _int(data, "hand", self.hand)
        again = hand == self.hand
        if not again and self.tricks == 0:
            # The hand that just ended had no trick (a Maschine, a fold at once): the trick still kept is older
            # still, and on the new hand's table it would read as this hand's.
            self.last_trick = None
        self.hand, self.tricks, self.asked = hand, 0, {}
        self._named, self._by, self.signals = set(), {}, {}
        if not again:
            self.row = HandRow(hand, dealer=_int(data, "dealer"))
        names = {k: self.name(_int(data, k)) if _int(data, k) >= 0 else "–" for k in ("dealer", "cutter", "forehand")}
        if again:
            self._line("hand-start", "redeal-start", hand=hand + 1, **names)
        else:
            value = _int(data, "value", 0)
            key = "hand-start" if value > 0 else "hand-start-plain"
            # (a verified deal's cut follows from the seeds: "Anna cuts" to an Anna who pressed nothing, see `_cut`)
            self._line("hand-start", key if self.trustless else f"{key}-seeded", hand=hand + 1, value=value, **names)

    def _simple(self, seat: int, kind: str, key: str, **values: Any) -> None:
        self._by[kind] = seat
        self._line(kind, key, who=self.name(seat), **values)

    def _named_by(self, seat: int, what: str, data: dict[str, Any]) -> None:
        self._named.add((seat, what))
        if what == "schlag":
            self.row.schlag = _str(data, "rank")
            self._simple(seat, "schlag", "schlag", rank=self._rank(self.row.schlag))
        else:
            self.row.trump = _str(data, "suit")
            self._simple(seat, "trump", "trump", suit=self._suit(self.row.trump))

    def _announced(self, seat: int, data: dict[str, Any]) -> None:
        what = _str(data, "what")
        if what in ("schlag", "trump") and (seat, what) not in self._named:  # (an announcer saw it named already)
            self._simple(seat, "announced", f"announced-{what}")

    def _revealed(self, data: dict[str, Any]) -> None:
        self.row.schlag, self.row.trump = _str(data, "schlag"), _str(data, "trump")
        self._line("announcement", "announcement", rank=self._rank(self.row.schlag), suit=self._suit(self.row.trump))

    def _ask(self, seat: int, question: str) -> None:
        self.asked[question] = seat
        self._simple(seat, question, question)

    def _answer(self, seat: int, question: str, data: dict[str, Any]) -> None:
        answer = "yes" if _str(data, "answer") == "yes" else "no"
        self._simple(seat, question, f"{question}-{answer}")

    def _trick(self, seat: int, data: dict[str, Any]) -> None:
        self.tricks += 1
        leader = _int(data, "leader", 0)
        raw = data.get("cards")
        cards: list[Any] = raw if isinstance(raw, list) else []
        played = self.words["list_sep"].join(f"{self.short((leader + i) % max(1, self.players))} {self._card(card)}"
                           for i, card in enumerate(cards[:8]))
        tricks = "–".join(str(t) for t in _ints(data, "tricks"))
        seats = max(1, self.players)
        self.last_trick = ({(leader + i) % seats: c for i, c in enumerate(cards[:8]) if isinstance(c, str)}, seat)
        self.last_trick_hand = self.hand
        self.trick_serial += 1
        self._simple(seat, "trick", "trick", number=self.tricks, cards=played, tricks=tricks)

    def _hand_end(self, data: dict[str, Any]) -> None:
        reason, seats = _str(data, "reason"), _ints(data, "seats")
        who = self.name(self._by[reason]) if reason in self._by else "–"
        how_key = f"how-{reason}" if reason in ("tricks", "fold", "concede", "maschine", "forfeit", "violation") else ""
        tricks = "–".join(str(t) for t in _ints(data, "tricks"))
        how = story_text(self.words.lang, how_key).format(who=who, tricks=tricks) if how_key else visible(reason)
        scores = "–".join(str(s) for s in _ints(data, "scores"))
        hand = _int(data, "hand", self.hand)
        points = _int(data, "points", 0)
        self.row.hand, self.row.points, self.row.winners = hand, points, seats
        self.row.how, self.row.scores = how, _ints(data, "scores")
        self.hands = [row for row in self.hands if row.hand != hand] + [self.row]
        key = "hand-end" if seats else "hand-end-none"
        self._line("hand-end", key, hand=hand + 1, who=self._team(seats), points=points, how=how, scores=scores)
        self.result, self.result_seen = self.lines[-1].text, False

    def _match_end(self, data: dict[str, Any]) -> None:
        winners = _ints(data, "winners")
        team, three = self.words["team"], self.players == 3
        names = [f"{team} {'AB'[w]}" if not three and 0 <= w < 2 else self.name(w) for w in winners]
        # (the reader's own side marked, as on the summary: teams are the seats of one parity, docs/rules.md 1)
        names = [self.words["aside"].format(name=name, text=self.words["you"])
                 if self.me >= 0 and (w == self.me if three else w == self.me % 2) else name
                 for w, name in zip(winners, names, strict=True)]
        who = ", ".join(names) or "–"
        self._line("match-end", "match-end", who=who, scores="–".join(str(s) for s in _ints(data, "scores")),
                   bummerl="–".join(str(b) for b in _ints(data, "bummerl")))

    def _signal(self, seat: int, data: dict[str, Any]) -> None:
        name = visible(_str(data, "name"))[:16]
        self.signals[seat] = name
        meaning = signal_meaning(self.words.lang, name)  # ("Sepp signals: schlag" told a newcomer nothing)
        said = self.words["aside"].format(name=name, text=meaning) if meaning else name
        self._simple(seat, "signal", "signal-sent" if seat == self.me else "signal", name=said)

    def _cut(self, seat: int) -> None:
        """A verified deal's cut follows from the seeds (docs/protocol.md, Level 1 step 8): nobody chose it, and
        "Anna cut the deck" puzzled an Anna who pressed nothing; a trustless deal's cutter cuts live."""
        self._simple(seat, "cut", "cut" if self.trustless else "cut-seeded")

    def _take(self, seat: int, key: str) -> None:
        """Taking or leaving the card shown at the cut; one's own said as one's own ("Anna leaves …" to Anna)."""
        self._simple(seat, key, f"{key}-you" if seat == self.me else key)

    def _own_card(self, seat: int, key: str, data: dict[str, Any]) -> None:
        if seat == self.me and "card" in data:  # (only ever sent to the seat itself; trustless: no card at all)
            if key == "took" and self.lines and self.lines[-1].kind == "take" and self._by.get("take") == seat:
                # ("You take the card shown at the cut" and then "You took ♦A" said one thing twice: one line)
                self.lines.pop()
            self._line(key, key, card=self._card(data["card"]))


def _cards(story: Story, data: dict[str, Any]) -> str:
    cards = data.get("cards")
    return " ".join(story._card(c) for c in cards[:8]) if isinstance(cards, list) else ""


_HANDLERS: dict[str, Any] = {
    "hand-start": lambda st, seat, d: st._start_hand(d),
    "cut": lambda st, seat, d: st._cut(seat),
    "see": lambda st, seat, d: st._own_card(seat, "see", d),
    "took": lambda st, seat, d: st._own_card(seat, "took", d),
    "take": lambda st, seat, d: st._take(seat, "take"),
    "keep": lambda st, seat, d: st._take(seat, "keep"),
    "schlag": lambda st, seat, d: st._named_by(seat, "schlag", d),
    "trump": lambda st, seat, d: st._named_by(seat, "trump", d),
    "announced": lambda st, seat, d: st._announced(seat, d),
    "announcement": lambda st, seat, d: st._revealed(d),
    "swap?": lambda st, seat, d: st._ask(seat, "swap?"),
    "bessere?": lambda st, seat, d: st._ask(seat, "bessere?"),
    "schadet?": lambda st, seat, d: st._ask(seat, "schadet?"),
    "swap": lambda st, seat, d: st._answer(seat, "swap", d),
    "bessere": lambda st, seat, d: st._answer(seat, "bessere", d),
    "schadet": lambda st, seat, d: st._answer(seat, "schadet", d),
    "raise": lambda st, seat, d: st._simple(seat, "raise", "raise", value=_int(d, "value", 0)),
    "accept": lambda st, seat, d: st._simple(seat, "accept", "accept", value=_int(d, "value", 0)),
    "fold": lambda st, seat, d: st._simple(seat, "fold", "fold", value=_int(d, "value", 0)),
    "concede": lambda st, seat, d: st._simple(seat, "concede", "concede"),
    "forfeit": lambda st, seat, d: st._simple(seat, "forfeit", "forfeit"),
    "signal": lambda st, seat, d: st._signal(seat, d),
    "trick": lambda st, seat, d: st._trick(seat, d),
    "maschine": lambda st, seat, d: st._simple(seat, "maschine", "maschine", cards=_cards(st, d)),
    "bluff-penalty": lambda st, seat, d: st._simple(seat, "bluff-penalty", "bluff-penalty",
                                                    points=_int(d, "points", 0)),
    "redeal": lambda st, seat, d: st._line("redeal", "redeal"),
    "hand-end": lambda st, seat, d: st._hand_end(d),
    "match-end": lambda st, seat, d: st._match_end(d),
}
