"""What the terminal table shows, as pure functions of the seat's TableView and the screen's own state.

No prompt-toolkit widgets here: every function returns formatted-text fragments (style, text), so the
screen can be tested without a terminal and the layout only arranges these pieces. The client never
decides a rule: legality comes from the host's `legal_actions`; the engine is used only to sort the
hand in the order of the current announcement.

Every string the host sent (names, the preset, the fingerprint, actions, messages) goes through `visible` where it
is placed, so a name with an escape sequence or a bidi override shows as text; `safe` applies it once more to
whole panes at render time, for whatever a pane builds from host data without naming it (card texts, say).
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from watten_net.cardwords import SUIT_DE
from watten_net.deal.protocol import seconds_text
from watten_net.engine import Card, Rules
from watten_net.engine.ranking import ranking
from watten_net.printable import visible, visible_lines

from .columns import fit_columns, pad_columns
from .i18n import SUIT_COLOUR, Words
from .story import Story

Fragments = list[tuple[str, str]]

LOBBY, STARTING, PLAYING, MATCH_OVER, ABANDONED = 1, 2, 3, 4, 5
SCHLAG_KEYS = {"7": "7", "8": "8", "9": "9", "0": "10", "u": "U", "o": "O", "k": "K", "a": "A", "6": "6"}
TRUMP_KEYS = {"e": "E", "l": "L", "h": "H", "s": "S"}
PACE = 1.5  # seconds a finished trick stays on the table at least (the screen's pacing, never the protocol's)
MIN_SIZE = (60, 20)  # columns, rows: below this the screen asks for a larger window


@dataclass
class ScreenState:
    """The screen's own state (never game state: that is the host's TableView)."""

    view: Any = None
    cursor: int = 0
    message: str = ""
    confirm: str = ""  # an action waiting for y/n: "fold", "concede", "quit", "quit_host" (ends the match)
    show_help: bool = False
    help_line: int = 0  # the help's first row shown (a small window scrolls it)
    show_last: bool = False
    connection: str = "connected"  # or "reconnecting", "host-left"
    deal_status: str = ""  # the client's own judgement: "", "verified", or the failure in words
    check_note: str = ""  # a verified record's verdict beyond "verified": "abandoned" or "disputed-claimed"
    dispute: str = ""  # this seat disputes what the host did (docs/protocol.md Disputes), in words
    # Level 1 with reveal = hand-end: every deck so far matched its seals, but k_H (which proves them) is to come
    deal_consistent: bool = False
    lobby_lines: list[str] = field(default_factory=list)  # the host's own lobby (address, fingerprint)
    host_controls: bool = False
    story: Story | None = None  # the table log (client/story.py), fed from the stream's events
    show_log: bool = False  # the whole match's log fills the screen
    log_scroll: int = 0  # lines scrolled up from the log's end
    trick_done_at: float = -PACE  # when the last trick was won (time.monotonic): it stays at least PACE seconds
    banner: str = ""  # the last hand's result, until a key is pressed
    record_path: str = ""  # this seat's record of the match (the summary names it)
    # The step timeout of the game header this seat signed (GameHeader.step_timeout_ms, seconds; 0: no limit); None
    # before there is one (the lobby: then the rules line shows the host's unsigned TableInfo word)
    signed_step_timeout: float | None = None


@lru_cache(maxsize=32)
def rules_of(rules_json: str) -> Rules | None:
    try:
        return Rules.from_json(rules_json)
    except (ValueError, TypeError):
        return None


def sort_hand(cards: list[str], rules_json: str, schlag: str, trump: str) -> list[str]:
    """Kritische, Guate, Hauptschlag, Schlag cards, trumps, then the rest by suit; strongest first."""
    rules = rules_of(rules_json)
    parsed = [Card.parse(c) for c in cards]
    if rules is None or not schlag or not trump:
        return [c.text for c in sorted(parsed, key=lambda c: (c.suit_index, -c.rank_index))]
    strength = ranking(rules, schlag, trump).strength
    return [c.text for c in sorted(parsed, key=lambda c: (-strength[c.code], c.suit_index, -c.rank_index))]


def legal_cards(view: Any) -> set[str]:
    return {a[5:] for a in view.legal_actions if a.startswith("play ")}


def my_hand(view: Any) -> list[str]:
    return sort_hand(list(view.your_hand), view.table.rules_json, view.schlag, view.trump)


def card_fragments(words: Words, card: str, style: str = "") -> Fragments:
    return [(f"{SUIT_COLOUR[card[0]]} {style}".strip(), words.card_short(card))]


def safe(fragments: Fragments) -> Fragments:
    """`fragments` fit for the terminal: each text through `visible_lines` (the panes' own line breaks stay)."""
    return [(style, visible_lines(text)) for style, text in fragments]


def seat_name(view: Any, seat: int, words: Words) -> str:
    for s in view.seats:
        if s.seat == seat:
            name = words.seat_label(visible(s.name), s.bot) if s.name else f"{words['seat']} {seat}"
            return words["aside"].format(name=name, text=words["you"]) if s.you else name
    return f"{words['seat']} {seat}"


# ------------------------------------------------------------------------------------------------ panes
def deal_progress(view: Any, state: ScreenState, words: Words, compact: bool = False) -> str:
    """What this seat has checked of the deal so far (the final verdict replaces it at the match end); `compact`:
    the first part alone (a narrow window)."""
    if state.deal_consistent:
        text = words["deal_consistent"]
    elif not view.hand_phase and not view.your_hand:
        text = words["deal_pending"]
    else:
        text = words["deal_cards_checked"]
    return text.split(" · ")[0] if compact else text


def header(state: ScreenState, words: Words, tall: bool = True, compact: bool = False) -> Fragments:
    view = state.view
    out: Fragments = [("class:title", " watten-net ")]
    if view is None:
        if state.deal_status:  # (the host broke the protocol before any view came: at its header, say)
            out.append(("class:error", f"\n {words['deal_failed']}{words['colon']}{visible(state.deal_status)}"))
        return out
    if view.game_fingerprint and not tall:
        out = []  # (the name of the program gives its room to the deal's status)
    if view.game_fingerprint:
        out.append(("class:fingerprint", f" {words['game']} {visible(view.game_fingerprint)}"))
    if state.deal_status == "verified":
        out.append(("class:ok", f" · {words['deal_verified']}"))
    elif state.deal_status:
        out.append(("class:error", f" · {words['deal_failed']}{words['colon']}{visible(state.deal_status)}"))
    elif view.game_fingerprint and view.your_seat >= 0:  # (a spectator checks no deal: it holds no record)
        out.append(("class:dim", f" · {deal_progress(view, state, words, compact)}"))
    out += watching(view, words)
    if state.connection != "connected":  # "reconnecting", or "host-left" (the host ended the stream as it exited)
        out.append(("class:error", f"  {words['host_left' if state.connection == 'host-left' else 'reconnecting']}"))
    if state.dispute:
        out.append(("class:error", f"\n {words['dispute']}{words['colon']}{visible(state.dispute)}"))
    if view.game_fingerprint and tall:
        note = "host_blind" if view.deal.mode == "trustless" else "host_sees"
        out.append(("class:ok" if note == "host_blind" else "class:dim", f"\n {words[note]}"))
    return out


def rules_line(view: Any, words: Words, signed_step_timeout: float | None = None) -> Fragments:
    """The rules and the step clock: the one in the header this seat signed, else (no header yet) the host's word."""
    rules = rules_of(view.table.rules_json)
    preset = visible(view.table.preset) or "custom"
    text = f"{words['rules']}{words['colon']}{preset}"
    if rules is not None:
        try:
            base = Rules.preset(preset, rules.players)
            changed = rules.differences(base)
        except ValueError:
            changed = {}
        if changed:
            flags = ", ".join(f"{k}={v}" for k, v in sorted(changed.items()))
            text += f" ({words['flags']}{words['colon']}{visible(flags)})"
        text += f" · {words['target']} {rules.target}"
    clock = view.table.step_timeout if signed_step_timeout is None else signed_step_timeout
    return [("class:dim", text + _step_clock(clock, words))]


def _step_clock(seconds: float, words: Words) -> str:
    """How long a seat may leave a step of the deal's protocol unanswered before a bot stands in for it (shown so that
    a table sees the clock; a seat's dispute claims measure against the header's, which it signed)."""
    if not math.isfinite(seconds) or seconds < 0:
        return ""
    if seconds == 0:
        return f" · {words['no_step_clock']}"
    return f" · {words['step_clock'].format(seconds=seconds_text(seconds))}"


def lobby(state: ScreenState, words: Words) -> Fragments:
    view = state.view
    # (a friend at a full table read "Waiting for players" and waited: it is the host who starts)
    full = bool(view.seats) and all(s.name for s in view.seats)
    heading = words["lobby_full_host" if state.host_controls else "lobby_full"] if full else words["lobby"]
    out: Fragments = [("class:heading", f"{heading}\n")]
    for line in state.lobby_lines:
        out.append(("", line + "\n"))
    for s in view.seats:
        free = words["aside"].format(name="", text=words["free"]).strip()  # "(free)", "（空）"
        who = words.seat_label(visible(s.name), s.bot) if s.name else free
        tags = []
        if s.bot and not who.endswith(words["bot_mark"]):  # ("Vroni (bot)  Team B  bot" said it twice)
            tags.append(words["bot"])
        if s.you:
            tags.append(words["you"])
        side = "" if s.side < 0 else f"{words['team']} {'AB'[s.side]}"
        out.append(("class:seat" if s.name else "class:dim",
                    f"  {words['seat']} {s.seat}  {fit_columns(who, 24)} {pad_columns(side, 8)} {' '.join(tags)}\n"))
    trustless = view.table.settings.deal == "trustless"
    out.append(("", f"\n  {words['host_blind'] if trustless else words['host_sees']}\n"))
    if state.host_controls:
        out.append(("class:key", f"\n  {words['bot_key']}   {words['start_key']}   {words['deal_key']}\n"))
    out += rules_line(view, words, state.signed_step_timeout)
    return out


def table_cards(view: Any, state: ScreenState, now: float) -> tuple[dict[int, str], int]:
    """The cards on the table by seat, and the trick's winner (-1 while it runs).

    A finished trick stays until the next trick's first card is played and at least PACE seconds have passed;
    the last trick of a hand stays into the next hand for PACE seconds only (the story keeps it when the view has
    moved on): left longer, the old hand's cards and "Resi takes the trick" stood beside the new hand's
    announcement as if they were its own; [p] still shows it.
    """
    current = {tc.seat: tc.card for tc in view.current_trick.cards}
    story = state.story
    last = story.last_trick if story is not None else None
    if state.show_last and last is not None:  # ([p] shows the last finished trick until pressed again)
        return dict(last[0]), last[1]
    fresh = now - state.trick_done_at < PACE
    if last is not None and (not current or fresh) and (fresh or story is None or story.last_trick_hand == story.hand):
        return dict(last[0]), last[1]
    return current, int(view.current_trick.winner) if current else -1


def seats_pane(view: Any, words: Words, state: ScreenState | None = None, width: int = 80,
               now: float | None = None) -> Fragments:
    """One row per seat: who, which side, cards held, the card it played to this trick, and what is special."""
    state = state if state is not None else ScreenState(view=view)
    cards, winner = table_cards(view, state, time.monotonic() if now is None else now)
    over = view.table.phase in (MATCH_OVER, ABANDONED)
    signals = state.story.signals if state.story is not None else {}
    name_width = 16 if width >= 76 else 10
    out: Fragments = []
    to_act = set(view.to_act)
    for s in view.seats:
        marks = _seat_marks(view, s, words, over)
        if s.seat in signals:
            marks.append(f"{words['signals']}{words['colon']}{visible(signals[s.seat])}")
        style = "class:active" if s.seat in to_act else ("class:you" if s.you else "")
        arrow = "▶ " if s.seat in to_act else "  "
        side = f"{words['team']} {'AB'[s.side]}" if view.table.player_count != 3 else (
            "solo" if s.side == 0 else "pair")
        name = fit_columns(seat_name(view, s.seat, words), name_width)
        out.append((style, f"{arrow}{s.seat} {name} {side:<6} [{s.hand_size}] "))
        card = cards.get(s.seat)
        if card is None:
            out.append(("class:dim", " ·  "))
        else:
            out += card_fragments(words, card, "bold")
            out.append(("", " " * max(1, 4 - len(words.card_short(card)))))
        out.append(("class:ok", "★ " if s.seat == winner else "  "))
        out.append((style, ", ".join(marks) + "\n"))
    return out


def _seat_marks(view: Any, s: Any, words: Words, over: bool) -> list[str]:
    marks = []
    if s.seat == view.dealer:
        marks.append(words["dealer"])
    if s.seat == view.forehand:
        marks.append(words["forehand"])
    if not s.online and not over:  # (at the end nobody is "offline": the streams close with the match)
        since = view.extra.get(f"offline_since.{s.seat}")
        if since:
            try:
                gone = max(0, int(time.time() - float(since)))
            except ValueError:
                gone = 0
            marks.append(f"{words['offline']} {gone // 60}:{gone % 60:02d}")
        else:
            marks.append(words["offline"])
    if s.stand_in:
        # (trustless: nobody can play for the seat, so the table waits for it; see docs/protocol-decisions.md)
        marks.append(words["away_waits"] if view.deal.mode == "trustless" else words["stand_in"])
    return marks


def status_pane(view: Any, words: Words) -> Fragments:
    """One line: the Schlag, the trump, the stake and the tricks per side."""
    schlag = view.schlag or (words["hidden"] if view.announcement_hidden else "–")
    trump = view.trump or (words["hidden"] if view.announcement_hidden else "–")
    out: Fragments = [
        ("class:label", "Schlag "), ("class:value", words.rank(schlag) if view.schlag else schlag),
        ("", " · "), ("class:label", "Trumpf "),
        ("class:value", f"{words.marks[trump]} {SUIT_DE[trump]}" if view.trump in SUIT_DE else trump),
        ("", " · "), ("class:label", f"{words['stake']} "), ("class:value", f"{view.stake}"),
    ]
    if view.tricks_per_side:
        out += [("", " · "), ("class:label", f"{words['tricks_short']} "),
                ("class:value", "–".join(str(t) for t in view.tricks_per_side))]
    return [*out, ("", "\n")]


def alert_line(view: Any, state: ScreenState, words: Words) -> Fragments:
    """The moment's news under the seats: a raise, the hand's result (until a key), the trick's winner."""
    if state.show_last:
        last = state.story.last_trick if state.story is not None else None
        if last is None:
            return [("class:dim", f"{words['no_last_trick']} [p]\n")]
        story = state.story
        assert story is not None
        # (at a new hand's first trick [p] showed the previous hand's last trick beside this hand's cards as if it
        # were this hand's: one of an earlier hand says which)
        said = words["last_trick"] if story.last_trick_hand == story.hand else words["last_trick_of"].format(
            hand=story.last_trick_hand + 1)
        return [("class:ok", f"{said} [p]: " + words["takes_trick"].format(seat=seat_name(view, last[1], words))
                 + "\n")]
    if view.pending_raise.proposed_value:
        raiser = seat_name(view, view.pending_raise.seat, words)
        return [("class:alert", words["pending_raise"].format(seat=raiser, value=view.pending_raise.proposed_value)
                 + "\n")]
    if state.banner:  # (also while this seat decides: the next hand's first question came at once and hid it)
        any_key = "" if view.legal_actions else f"  [{words['any_key']}]"  # (with a decision a key acts, too)
        return [("class:ok", f"{visible(state.banner)}{any_key}\n")]
    _, winner = table_cards(view, state, time.monotonic())
    if winner >= 0:
        return [("class:ok", words["takes_trick"].format(seat=seat_name(view, winner, words)) + "\n")]
    return [("", "\n")]


def scores_pane(view: Any, words: Words, width: int = 80) -> Fragments:
    """One line: each side's points (and gespannt), the target and the Bummerl."""
    parts: list[str] = []
    tight = list(view.tight_per_side)
    three = view.table.player_count == 3
    for side in view.sides:
        seats = "+".join(str(s) for s in side.seats)
        label = f"{words['seat']} {seats}" if three else f"{words['team']} {'AB'[side.side]}"
        if width >= 76 and not three:  # (narrow: the seat rows say who is on which team)
            label = words["aside"].format(name=label, text=seats)  # ("队 A（0+2）：2": no Latin marks in Chinese)
        gespannt = f" {words['gespannt']}" if side.side < len(tight) and tight[side.side] and not three else ""
        parts.append(f"{label}{words['colon']}{side.score}{gespannt}")
    bummerl = "–".join(str(side.bummerl) for side in view.sides)
    out: Fragments = [("class:score", " · ".join(parts) + f" · {words['target']} {view.target} · "
                       f"{words['bummerl']} {bummerl}\n")]
    if view.winners:
        out.append(("class:ok", f"{words['match_over']}{words['colon']}{winners_text(view, words)}\n"))
    return out


def _is_mine(view: Any, winner: int) -> bool:
    """Whether `winner` (a side; with three players a seat) is the reader's own: teams are the seats of one parity
    (docs/rules.md section 1), a spectator has none."""
    me = int(view.your_seat)
    if me < 0:
        return False
    return winner == me if view.table.player_count == 3 else winner == me % 2


def winners_text(view: Any, words: Words) -> str:
    """Who won the match, the reader's own side marked: "Team B (you) wins", "Team A wins · your side lost" (a
    newcomer read "Match over: Team B wins" and "Bummerl 1–0" without knowing which team was theirs); a spectator
    reads no "you"."""
    three = view.table.player_count == 3
    names = []
    for w in view.winners:
        name = f"{words['seat']} {w}" if three else f"{words['team']} {'AB'[w % 2]}"
        names.append(words["aside"].format(name=name, text=words["you"]) if _is_mine(view, w) else name)
    who = words["list_sep"].join(names)
    text = f"{who}{'' if who.endswith('）') else ' '}{words['won']}"  # ("队 A（你）获胜": no space after a bracket)
    if view.your_seat >= 0 and not any(_is_mine(view, w) for w in view.winners):
        text += f" · {words['you_lost' if three else 'your_side_lost']}"
    return text


def side_scores(view: Any, words: Words, what: str) -> str:
    """Each side's `what` ("score" or "bummerl") with its name, the reader's own marked: "Team A 9 – Team B (you) 15"
    (the bare "9 – 15" did not say whose was whose)."""
    three = view.table.player_count == 3
    parts = []
    for side in view.sides:
        seats = "+".join(str(s) for s in side.seats)
        name = f"{words['seat']} {seats}" if three else f"{words['team']} {'AB'[side.side % 2]}"
        mine = view.your_seat >= 0 and view.your_seat in side.seats
        label = words["aside"].format(name=name, text=words["you"]) if mine else name
        parts.append(f"{label}{'' if label.endswith('）') else ' '}{getattr(side, what)}")  # ("队 A（你）0")
    return " – ".join(parts)


def hand_pane(view: Any, state: ScreenState, words: Words, width: int = 80) -> Fragments:
    cards = my_hand(view)
    legal = legal_cards(view)
    out: Fragments = [("class:heading", f"{words['your_hand']}{words['colon']}")]
    for i, card in enumerate(cards):
        chosen = i == state.cursor
        style = "reverse" if chosen else ("bold" if card in legal else "class:dim")
        out.append(("class:dim", f" {i + 1}:"))
        out += card_fragments(words, card, style)
    if cards and 0 <= state.cursor < len(cards):
        card = cards[state.cursor]
        # (narrow: the German name alone; the language's explanation is in the help)
        name = words.card_name(card) if width >= 76 else words.card_name(card).split(" — ")[0]
        out.append(("class:dim", f"   {name}"))
    return [*out, ("", "\n")]


# ---- spectators and table chat (issue 13 items 5 and 6)
MAX_NAME_SHOWN = 32  # (what an honest host sends at most: a hostile one's longer strings are cut)
MAX_CHAT_SHOWN = 200


def watching(view: Any, words: Words) -> Fragments:
    """' You are watching' for a spectator, ' 2 watching' when anybody does (the header's)."""
    out: Fragments = []
    if view.your_seat < 0:
        out.append(("class:active", f" {words['spectator']} "))
    if view.table.watching:
        out.append(("class:dim", f" {words['watching'].format(count=int(view.table.watching))} "))
    return out


def chat_line(event: Any, words: Words) -> str | None:
    """A `chat` or `watching` event as one line for the screen ('Anna: hi'); None for any other event. Everything in
    it came from the host (which may be hostile): through `visible`, and one line whatever it holds."""
    if event.kind not in ("chat", "watching"):
        return None
    try:
        data = {k: json.loads(v) for k, v in event.fields.items()}
    except ValueError:
        return None
    name = visible(str(data.get("name", "?")))[:MAX_NAME_SHOWN]
    if event.kind == "watching":
        return words["watch_joined" if data.get("joined") else "watch_left"].format(name=name)
    return words["said"].format(name=name, text=visible(str(data.get("text", "")))[:MAX_CHAT_SHOWN])


def end_message(view: Any, words: Words) -> str:
    """The line once the table's stream has ended: [n] for another match and whom it waits for; a spectator, who
    plays none, reads that the match is over."""
    if view is not None and view.your_seat < 0:
        return words["watch_over"]
    others = not_asked_again(view)
    return f"{words['again']} · {words['again_waiting']} {', '.join(others)}" if others else words["again"]


def asked_again_message(view: Any, words: Words) -> str:
    """The line after this seat's own [n]: whom the next match still waits for ("" once nobody)."""
    others = not_asked_again(view)
    return f"{words['again_waiting']} {', '.join(others)} …" if others else ""


def not_asked_again(view: Any) -> list[str]:
    """The other persons at the table who have not asked for another match (bots always agree), as shown.
    (only the others: the seat reading it is the one [n] is for, "waiting for Newbie" to Newbie puzzled)"""
    seats = view.table.seats if view is not None else []
    return [visible(x.name)[:MAX_NAME_SHOWN] for x in seats
            if x.occupied and not x.bot and not x.ready and x.seat != view.your_seat]
