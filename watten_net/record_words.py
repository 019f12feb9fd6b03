"""A recorded match in words (`watten-verify --show`), in German, English or Chinese.

Names come from the header's roster and are the record's (hostile) strings: every one goes through `visible` and
is cut to 32 characters, as the joining screen does. Cards keep their German names in every language. A move the
reference stand-in made for a seat that was away is marked, and so are the signals the record's owner was shown
(its own and its partner's; the host's record holds all).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from watten_net.cardwords import card_words, rank_words, suit_words
from watten_net.engine.events import Event, EventKind
from watten_net.printable import visible

NAME_LIMIT = 32
BOT_SUFFIX = " (bot)"  # how the host names its bots in the roster ("Vroni (bot)"): the record's words, in English

# One template per event kind and language; {s} is the seat in words, the other fields are the event's.
_EN = {
    "hand": "\nHand {hand}{attempt}: {dealer} deals, {forehand} leads, worth {value}.", "attempt": " (deal {n})",
    "cut": "  {s} cuts {n} cards.", "take": "  {s} takes a card at the cut (Schlecken).",
    "keep": "  {s} leaves the card at the cut.",
    "schlag": "  {s} names the Schlag {rank}.", "trump": "  {s} names trump {suit}.",
    "ask": "  {s} asks {what}", "answer": "  {s} answers {answer}.",
    "raise": "  {s} raises to {value}.", "accept": "  {s} accepts: the hand is worth {value}.",
    "fold": "  {s} folds.", "concede": "  {s} concedes.",
    "forfeit": "  {s} went away while the deal needed it: its side loses the hand.",
    "maschine": "  {s} shows a Maschine: {cards}.", "signal": "  {s} signals {name}.",
    "play": "  {s} plays {card}.",
    "trick": "  Trick: {cards} (led by {leader}), won by {s}.",
    "bluff": "  {s} bluffed at the cut and never played a Kritischer: 2 to the others.",
    "hand_end": "  {seats} win {points} ({reason}); scores {scores}.",
    "hand_end_one": "  {seats} wins {points} ({reason}); scores {scores}.",
    "match_end": "\nMatch over: {scores}, won by {won}; Bummerl {marks}.",
    "seat": "seat {n}", "side": "side {n}", "seats": "{list}", "stand_in": " [the stand-in, for a seat away]",
    "named": "{seat} ({name})", "bot": "{name} (bot)", "yes": "yes", "no": "no", "sep": ", ", "and": " and ",
    "rank": "{rank} ({name})",
    "away_head": "People away (the host's word; every stand-in move recomputed):",
    "away_away": "envelope {seq}: the host says seat {n} is away; the reference stand-in plays it",
    "away_back": "envelope {seq}: seat {n} is back ({moves} moves by the stand-in)",
    "away_forfeit": "envelope {seq}: hand {hand} forfeited by the side of seat {n}, away",
    "away_still": "seat {n} was still away at the end ({moves} moves by the stand-in)",
}
_DE = {
    "hand": "\nHand {hand}{attempt}: {dealer} gibt, {forehand} spielt aus, Wert {value}.", "attempt": " (Geben {n})",
    "cut": "  {s} hebt {n} Karten ab.", "take": "  {s} nimmt beim Abheben eine Karte (Schlecken).",
    "keep": "  {s} lässt die Karte beim Abheben liegen.",
    "schlag": "  {s} sagt den Schlag {rank} an.", "trump": "  {s} sagt Trumpf {suit} an.",
    "ask": "  {s} fragt {what}", "answer": "  {s} antwortet {answer}.",
    "raise": "  {s} bietet {value}.", "accept": "  {s} geht mit: die Hand zählt {value}.",
    "fold": "  {s} lehnt ab.", "concede": "  {s} gibt auf.",
    "forfeit": "  {s} war weg, als das Geben es brauchte: die Seite verliert die Hand.",
    "maschine": "  {s} zeigt eine Maschine: {cards}.", "signal": "  {s} deutet {name}.",
    "play": "  {s} spielt {card}.",
    "trick": "  Stich: {cards} (ausgespielt von {leader}), geht an {s}.",
    "bluff": "  {s} hat beim Abheben geblufft und keinen Kritischen gespielt: 2 für die anderen.",
    "hand_end": "  {seats} gewinnen {points} ({reason}); Stand {scores}.",
    "hand_end_one": "  {seats} gewinnt {points} ({reason}); Stand {scores}.",
    "match_end": "\nPartie vorbei: {scores}, gewonnen von {won}; Bummerl {marks}.",
    "seat": "Platz {n}", "side": "Seite {n}", "seats": "{list}", "stand_in": " [der Vertreter, Platz war weg]",
    "named": "{seat} ({name})", "bot": "{name} (Bot)", "sep": ", ", "and": " und ", "rank": "{rank} ({name})",
    "yes": "ja", "no": "nein", "why_tricks": "Stiche", "why_fold": "nach Ablehnung", "why_concede": "aufgegeben",
    "why_forfeit": "verwirkt", "why_maschine": "Maschine",
    "swap?": "nach dem Schlagwechsel.", "bessere?": "nach der Bessere.", "schadet?": "„schadet's?“",
    "away_head": "Wer weg war (das Wort des Hosts; jeder Zug des Vertreters nachgerechnet):",
    "away_away": "Umschlag {seq}: der Host sagt, {s} ist weg; der Referenz-Vertreter spielt für ihn",
    "away_back": "Umschlag {seq}: {s} ist zurück ({moves} Züge des Vertreters)",
    "away_forfeit": "Umschlag {seq}: Hand {hand} verwirkt von der Seite von {s}, weg",
    "away_still": "{s} war am Ende noch weg ({moves} Züge des Vertreters)",
}
_ZH = {
    "hand": "\n第 {hand} 手{attempt}：{dealer} 发牌，{forehand} 先出，分值 {value}。", "attempt": "（第 {n} 次发牌）",
    "cut": "  {s} 切 {n} 张牌。", "take": "  {s} 切牌时拿了一张（Schlecken）。", "keep": "  {s} 切牌时没有拿牌。",
    "schlag": "  {s} 叫 Schlag {rank}。", "trump": "  {s} 叫将牌 {suit}。",
    "ask": "  {s} 问 {what}", "answer": "  {s} 回答 {answer}。",
    "raise": "  {s} 加注到 {value}。", "accept": "  {s} 接受：这一手值 {value}。",
    "fold": "  {s} 放弃。", "concede": "  {s} 认输。",
    "forfeit": "  {s} 在发牌需要时离开：其一方输掉这一手。",
    "maschine": "  {s} 亮出 Maschine：{cards}。", "signal": "  {s} 打暗号 {name}。",
    "play": "  {s} 出 {card}。",
    "trick": "  一墩：{cards}；{leader} 先出，{s} 赢。",
    "bluff": "  {s} 切牌时虚张声势且未打出 Kritischer：其他人得 2 分。",
    "hand_end": "  {seats} 赢 {points} 分（{reason}）；比分 {scores}。",
    "hand_end_one": "  {seats} 赢 {points} 分（{reason}）；比分 {scores}。",
    "match_end": "\n比赛结束：{scores}，{won} 获胜；Bummerl {marks}。",
    "seat": "座位 {n}", "side": "第 {n} 方", "seats": "{list}", "stand_in": "［代打：该座位离开］",
    "named": "{seat}（{name}）", "bot": "{name}，机器人", "sep": "，", "and": "和", "rank": "{rank}（{name}）",
    "yes": "是", "no": "否", "why_tricks": "墩数", "why_fold": "对方放弃", "why_concede": "认输", "why_forfeit": "判负",
    "why_maschine": "Maschine", "swap?": "是否交换（Schlagwechsel）。", "bessere?": "是否换牌（Bessere）。",
    "schadet?": "schadet's?",
    "away_head": "离开的人（主机的说法；代打的每一步都已重算）：",
    "away_away": "信封 {seq}：主机说 {s} 离开；参考代打替他出牌",
    "away_back": "信封 {seq}：{s} 回来了（代打走了 {moves} 步）",
    "away_forfeit": "信封 {seq}：{s} 一方因离开判负第 {hand} 手",
    "away_still": "{s} 到结束时仍离开（代打走了 {moves} 步）",
}
WORDS: dict[str, dict[str, str]] = {"en": _EN, "de": _DE, "zh": _ZH}

# The engine's event kind of each action verb (an action makes exactly one event of its own kind, by its seat).
_ACTING = {"cut", "take", "keep", "swap?", "swap", "bessere?", "bessere", "schlag", "trump", "raise", "accept",
           "fold", "concede", "schadet?", "schadet", "play", "signal", "maschine"}


@dataclass
class Telling:
    """How to tell one record: the language, the seats' names, the stand-in's moves and whose signals to show."""

    lang: str = "en"
    names: Sequence[str] = ()  # by seat, from the header's roster (raw: shown through `visible`)
    bots: Sequence[bool] = ()  # by seat, the roster's flag: a bot from the start
    moves: Sequence[tuple[int, str, str]] = ()  # every accepted action in order: (seat, action, actor)
    owner: int | None = None  # the record's seat: the signals it was shown; None: the host's record, all
    plays: bool = False  # every card played on a line of its own (the trick line holds them anyway)
    words: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.words = WORDS.get(self.lang, _EN)

    def seat(self, n: int) -> str:
        """'seat 2 (Vroni (bot))', 'Platz 2 (Vroni (Bot))', '座位 2（Vroni，机器人）': a bot marked in the language
        (the German and Chinese --show said "(bot)"), as the client's screen does; a person's name is never touched,
        whatever it ends with."""
        said = self.words["seat"].format(n=n)
        if not (0 <= n < len(self.names) and self.names[n]):
            return said
        name = self.names[n]
        if n < len(self.bots) and self.bots[n] and name.endswith(BOT_SUFFIX):
            name = self.words["bot"].format(name=visible(name[: -len(BOT_SUFFIX)][:NAME_LIMIT]))
        else:
            name = visible(name[:NAME_LIMIT])
        return self.words["named"].format(seat=said, name=name)


def absence_lines(away: Sequence[tuple[str, int, int, int]], telling: Telling | None = None) -> list[str]:
    """Who was away when, and what the stand-in did for them (`Report.away`), in words. In English without a
    Telling the seats are numbers only: the sentences `Report.absences` (and --json) always had."""
    tell = telling or Telling()
    lines = []
    for what, seq, seat, number in away:
        said = tell.seat(seat) if telling is not None else str(seat)
        lines.append(tell.words["away_" + what].format(seq=seq, n=seat, s=said, moves=number, hand=number))
    return lines


def roster_names(header: Any) -> list[str]:
    """The seats' names from a GameHeader payload (raw strings: shown through `visible`)."""
    return [str(r.name) for r in header.roster]


def describe(match: Any, telling: Telling | None = None) -> list[str]:
    """The match's public events (and the owner's signals) in words, one line each (blank lines between hands)."""
    tell = telling or Telling()
    by_bot = stand_in_events(match.events(), tell.moves)
    lines: list[str] = []
    for index, e in enumerate(match.events()):
        if e.to is not None and e.kind not in (EventKind.SCHLAG, EventKind.TRUMP, EventKind.SIGNAL):
            continue
        if e.kind == EventKind.SIGNAL and tell.owner is not None and tell.owner not in (e.to or ()):
            continue  # (another side's signal: not the owner's to see)
        if e.kind == EventKind.PLAY and not tell.plays and index not in by_bot:
            continue  # (the trick line names every card; a card the stand-in chose is said on its own line)
        line = _line(e, tell, match.rules.players)
        if line is not None:
            line += tell.words["stand_in"] if index in by_bot else ""
            # (English lines start with a capital, as they did before they named the seats)
            lines.append(line.replace("  seat", "  Seat", 1) if tell.lang == "en" else line)
    return lines


def stand_in_events(events: Sequence[Event], moves: Sequence[tuple[int, str, str]]) -> set[int]:
    """The indexes of the events that moves by the reference stand-in made: each accepted action, in order, is the
    next event of its own kind by its seat."""
    marked: set[int] = set()
    pending = [(seat, action.split(" ")[0], actor) for seat, action, actor in moves]
    at = 0
    for index, e in enumerate(events):
        if at >= len(pending) or e.kind not in _ACTING:
            continue
        seat, verb, actor = pending[at]
        if e.seat == seat and e.kind == verb:
            if actor == "bot":
                marked.add(index)
            at += 1
    return marked


def _line(e: Event, tell: Telling, players: int) -> str | None:
    """One event in words (None: an event the record's story leaves out)."""
    w, kind, d = tell.words, e.kind, e.data
    s = tell.seat(e.seat)
    if kind == EventKind.HAND_START:
        attempt = w["attempt"].format(n=d["attempt"] + 1) if d["attempt"] else ""
        return w["hand"].format(hand=d["hand"] + 1, attempt=attempt, dealer=tell.seat(d["dealer"]),
                                forehand=tell.seat(d["forehand"]), value=d["value"])
    if kind == EventKind.SCHLAG:
        return w["schlag"].format(s=s, rank=w["rank"].format(rank=d["rank"], name=rank_words(d["rank"])))
    if kind == EventKind.TRUMP:
        return w["trump"].format(s=s, suit=suit_words(d["suit"], tell.lang))
    if kind in (EventKind.SWAP_ASK, EventKind.BESSERE_ASK, EventKind.SCHADET_ASK):
        return w["ask"].format(s=s, what=w.get(str(kind), kind))
    if kind in (EventKind.SWAP, EventKind.BESSERE, EventKind.SCHADET):
        return w["answer"].format(s=s, answer=w.get(str(d["answer"]), visible(str(d["answer"]))))
    if kind in (EventKind.CUT, EventKind.RAISE, EventKind.ACCEPT):
        return w[kind].format(s=s, n=d.get("n"), value=d.get("value"))
    if kind in (EventKind.TAKE, EventKind.KEEP, EventKind.FOLD, EventKind.CONCEDE, EventKind.FORFEIT):
        return w[kind].format(s=s)
    if kind == EventKind.BLUFF_PENALTY:
        return w["bluff"].format(s=s)
    if kind == EventKind.SIGNAL:
        return w["signal"].format(s=s, name=visible(str(d["name"])))
    if kind in (EventKind.MASCHINE, EventKind.PLAY, EventKind.TRICK):
        cards = w["sep"].join(card_words(c) for c in d.get("cards", []))
        leader = tell.seat(d["leader"]) if "leader" in d else ""
        return w["trick" if kind == EventKind.TRICK else str(kind)].format(
            s=s, cards=cards, leader=leader, card=card_words(str(d.get("card", ""))))
    return _ends(e, tell, players)


def _ends(e: Event, tell: Telling, players: int) -> str | None:
    w, d = tell.words, e.data
    if e.kind == EventKind.HAND_END:
        seats = w["seats"].format(list=w["and"].join(tell.seat(n) for n in d["seats"]))
        reason = str(d["reason"])
        template = w["hand_end_one" if len(d["seats"]) == 1 else "hand_end"]
        return template.format(seats=seats, points=d["points"], reason=w.get("why_" + reason, visible(reason)),
                               scores="-".join(map(str, d["scores"])))
    if e.kind == EventKind.MATCH_END:
        # One winner (docs/rules.md 7): a side, or the seats of one side with 3 players (a score per seat).
        who = "seat" if players == 3 else "side"
        won = w["and"].join(tell.seat(n) if who == "seat" else w["side"].format(n=n) for n in d["winners"])
        return w["match_end"].format(scores="-".join(map(str, d["scores"])), won=won,
                                     marks="-".join(map(str, d["bummerl"])))
    return None


def _width(text: str) -> int:
    """Columns `text` takes on a terminal: East Asian wide and full-width characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def wrap_words(line: str, width: int, indent: str = "      ") -> list[str]:
    """`line` broken between words to at most `width` columns (wide characters counted twice), continued indented.

    >>> wrap_words("  Trick: Laub Ober, Eichel Acht (led by seat 0)", 30)
    ['  Trick: Laub Ober, Eichel', '      Acht (led by seat 0)']
    """
    body = line.lstrip(" ")
    words: list[str] = []
    for word in body.split(" "):  # (a number stays with the word before it: "座位" / "2（Loisl…" broke at 80 columns)
        if words and word[:1].isdigit():
            words[-1] += " " + word
        else:
            words.append(word)
    out: list[str] = []
    current = line[: len(line) - len(body)] + words[0]
    for word in words[1:]:
        if _width(f"{current} {word}") > width:
            out.append(current)
            current = indent + word
        else:
            current = f"{current} {word}"
    return [*out, current]
