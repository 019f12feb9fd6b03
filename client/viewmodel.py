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

import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from watten_net.engine import Card, Rules
from watten_net.engine.ranking import ranking, schlag_choices
from watten_net.printable import visible, visible_lines

from .i18n import SUIT_COLOUR, Words

Fragments = list[tuple[str, str]]

LOBBY, STARTING, PLAYING, MATCH_OVER, ABANDONED = 1, 2, 3, 4, 5
SCHLAG_KEYS = {"7": "7", "8": "8", "9": "9", "0": "10", "u": "U", "o": "O", "k": "K", "a": "A", "6": "6"}
TRUMP_KEYS = {"e": "E", "l": "L", "h": "H", "s": "S"}


@dataclass
class ScreenState:
    """The screen's own state (never game state: that is the host's TableView)."""

    view: Any = None
    cursor: int = 0
    message: str = ""
    confirm: str = ""  # an action waiting for y/n: "fold", "concede", "quit", "quit_host" (ends the match)
    show_help: bool = False
    show_last: bool = False
    connection: str = "connected"  # or "reconnecting", "host-left"
    deal_status: str = ""  # the client's own judgement: "", "verified", or the failure in words
    dispute: str = ""  # this seat disputes what the host did (docs/protocol.md Disputes), in words
    # Level 1 with reveal = hand-end: every deck so far matched its seals, but k_H (which proves them) is to come
    deal_consistent: bool = False
    lobby_lines: list[str] = field(default_factory=list)  # the host's own lobby (address, fingerprint)
    host_controls: bool = False


@lru_cache(maxsize=32)
def _rules(rules_json: str) -> Rules | None:
    try:
        return Rules.from_json(rules_json)
    except (ValueError, TypeError):
        return None


def sort_hand(cards: list[str], rules_json: str, schlag: str, trump: str) -> list[str]:
    """Kritische, Guate, Hauptschlag, Schlag cards, trumps, then the rest by suit; strongest first."""
    rules = _rules(rules_json)
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
            name = visible(s.name) if s.name else f"{words['seat']} {seat}"
            return f"{name} ({words['you']})" if s.you else name
    return f"{words['seat']} {seat}"


# ------------------------------------------------------------------------------------------------ panes
def header(state: ScreenState, words: Words) -> Fragments:
    view = state.view
    out: Fragments = [("class:title", " watten-net ")]
    if view is None:
        return out
    if view.game_fingerprint:
        out.append(("class:fingerprint", f" {words['game']} {visible(view.game_fingerprint)} "))
    if state.deal_status == "verified":
        out.append(("class:ok", f" {words['deal_verified']} "))
    elif state.deal_status:
        out.append(("class:error", f" {words['deal_failed']}: {visible(state.deal_status)} "))
    elif view.game_fingerprint:
        out.append(("class:dim", f" {words['deal_consistent' if state.deal_consistent else 'deal_pending']} "))
    if state.connection != "connected":  # "reconnecting", or "host-left" (the host ended the stream as it exited)
        out.append(("class:error", f"  {words['host_left' if state.connection == 'host-left' else 'reconnecting']}"))
    if state.dispute:
        out.append(("class:error", f"\n {words['dispute']}: {visible(state.dispute)}"))
    if view.game_fingerprint:
        note = "host_blind" if view.deal.mode == "trustless" else "host_sees"
        out.append(("class:ok" if note == "host_blind" else "class:dim", f"\n {words[note]}"))
    return out


def rules_line(view: Any, words: Words) -> Fragments:
    rules = _rules(view.table.rules_json)
    preset = visible(view.table.preset) or "custom"
    text = f"{words['rules']}: {preset}"
    if rules is not None:
        try:
            base = Rules.preset(preset, rules.players)
            changed = rules.differences(base)
        except ValueError:
            changed = {}
        if changed:
            flags = ", ".join(f"{k}={v}" for k, v in sorted(changed.items()))
            text += f" ({words['flags']}: {visible(flags)})"
        text += f" · {words['target']} {rules.target}"
    return [("class:dim", text)]


def lobby(state: ScreenState, words: Words) -> Fragments:
    view = state.view
    out: Fragments = [("class:heading", f"{words['lobby']}\n")]
    for line in state.lobby_lines:
        out.append(("", line + "\n"))
    for s in view.seats:
        who = visible(s.name) if s.name else f"({words['free']})"
        tags = []
        if s.bot:
            tags.append(words["bot"])
        if s.you:
            tags.append(words["you"])
        side = "" if s.side < 0 else f"{words['team']} {'AB'[s.side]}"
        out.append(("class:seat" if s.name else "class:dim",
                    f"  {words['seat']} {s.seat}  {who:<24} {side:<8} {' '.join(tags)}\n"))
    trustless = view.table.settings.deal == "trustless"
    out.append(("", f"\n  {words['host_blind'] if trustless else words['host_sees']}\n"))
    if state.host_controls:
        out.append(("class:key", f"\n  {words['bot_key']}   {words['start_key']}   {words['deal_key']}\n"))
    out += rules_line(view, words)
    return out


def seats_pane(view: Any, words: Words) -> Fragments:
    out: Fragments = []
    to_act = set(view.to_act)
    for s in view.seats:
        marks = []
        if s.seat == view.dealer:
            marks.append(words["dealer"])
        if s.seat == view.forehand:
            marks.append(words["forehand"])
        if not s.online:
            since = view.extra.get(f"offline_since.{s.seat}")
            if since:
                gone = max(0, int(time.time() - float(since)))
                marks.append(f"{words['offline']} {gone // 60}:{gone % 60:02d}")
            else:
                marks.append(words["offline"])
        if s.stand_in:
            # (trustless: nobody can play for the seat, so the table waits for it; see docs/protocol-decisions.md)
            marks.append(words["away_waits"] if view.deal.mode == "trustless" else words["stand_in"])
        style = "class:active" if s.seat in to_act else ("class:you" if s.you else "")
        arrow = "▶ " if s.seat in to_act else "  "
        side = f"{words['team']} {'AB'[s.side]}" if view.table.player_count != 3 else (
            "solo" if s.side == 0 else "pair")
        name = seat_name(view, s.seat, words)
        out.append((style, f"{arrow}{s.seat} {name:<22} {side:<7} [{s.hand_size}] {', '.join(marks)}\n"))
    return out


def trick_pane(view: Any, state: ScreenState, words: Words) -> Fragments:
    """The cards of the current trick placed by seat (compass layout for four players)."""
    if state.show_last:
        title = words["last_trick"]
        trick = view.tricks[-1] if view.tricks else None
        if trick is None:
            return [("class:dim", words["no_last_trick"])]
    elif view.current_trick.cards or not view.tricks:
        title = words["trick"]
        trick = view.current_trick if view.current_trick.cards else None
    else:  # between tricks the last one stays on the table until the next card is led
        title = words["last_trick"]
        trick = view.tricks[-1]
    played = {tc.seat: tc.card for tc in trick.cards} if trick is not None else {}
    n = view.table.player_count
    me = view.your_seat if view.your_seat >= 0 else 0

    def slot(seat: int) -> Fragments:
        card = played.get(seat)
        label = f"{seat_name(view, seat, words)[:14]:>14} "
        if card is None:
            return [("class:dim", label + "  · ")]
        return [("", label), *card_fragments(words, card, "bold"), ("", " ")]

    out: Fragments = [("class:heading", f"{title}\n")]
    if n == 4:
        # Seen from your chair: the next player clockwise sits on your left, your partner opposite.
        top, left, right = (me + 2) % 4, (me + 1) % 4, (me + 3) % 4
        out += [("", " " * 18), *slot(top), ("", "\n")]
        out += [*slot(left), ("", " " * 10), *slot(right), ("", "\n")]
        out += [("", " " * 18), *slot(me), ("", "\n")]
    else:
        for seat in range(n):
            out += [*slot(seat), ("", "\n")]
    if trick is not None and trick.winner >= 0:
        out.append(("class:dim", f"→ {seat_name(view, trick.winner, words)}\n"))
    return out


def status_pane(view: Any, words: Words) -> Fragments:
    schlag = view.schlag or (words["hidden"] if view.announcement_hidden else "–")
    trump = view.trump or (words["hidden"] if view.announcement_hidden else "–")
    out: Fragments = [
        ("class:label", f"{words['schlag']}: "), ("class:value", words.rank(schlag) if view.schlag else schlag),
        ("", "   "), ("class:label", f"{words['trump']}: "),
        ("class:value", words.suit(trump) if view.trump else trump),
        ("", "\n"), ("class:label", f"{words['stake']}: "), ("class:value", f"{view.stake}"),
    ]
    if view.tricks_per_side:
        out += [("", "   "), ("class:label", f"{words['tricks']}: "),
                ("class:value", " – ".join(str(t) for t in view.tricks_per_side))]
    out.append(("", "\n"))
    if view.pending_raise.proposed_value:
        raiser = seat_name(view, view.pending_raise.seat, words)
        out.append(("class:alert", words["pending_raise"].format(seat=raiser, value=view.pending_raise.proposed_value)
                    + "\n"))
    return out


def scores_pane(view: Any, words: Words) -> Fragments:
    out: Fragments = []
    tight = list(view.tight_per_side)
    for side in view.sides:
        seats = "+".join(str(s) for s in side.seats)
        label = f"{words['team']} {'AB'[side.side]}" if view.table.player_count != 3 else f"{words['seat']} {seats}"
        gespannt = ""
        for s in side.seats:
            for row in view.seats:
                if row.seat == s and row.side < len(tight) and tight[row.side]:
                    gespannt = f"  {words['gespannt']}"
        out.append(("class:score", f"{label} ({seats}): {side.score} {words['score']}, "
                    f"{words['bummerl']} {side.bummerl}{gespannt}\n"))
    if view.winners:
        who = ", ".join(f"{words['team']} {'AB'[w]}" if view.table.player_count != 3 else f"{words['seat']} {w}"
                        for w in view.winners)
        out.append(("class:ok", f"{words['match_over']}: {who} {words['won']}\n"))
    return out + rules_line(view, words)


def hand_pane(view: Any, state: ScreenState, words: Words) -> Fragments:
    cards = my_hand(view)
    legal = legal_cards(view)
    out: Fragments = [("class:heading", f"{words['your_hand']}: ")]
    for i, card in enumerate(cards):
        chosen = i == state.cursor
        style = "reverse" if chosen else ("bold" if card in legal else "class:dim")
        out.append(("class:dim", f" {i + 1}:"))
        out += card_fragments(words, card, style)
    if cards and 0 <= state.cursor < len(cards):
        out.append(("class:dim", f"   {words.card_name(cards[state.cursor])}"))
    return [*out, ("", "\n")]


def prompt_line(view: Any, state: ScreenState, words: Words) -> Fragments:
    """What the seat is asked to do now, with the keys for it."""
    if state.confirm:
        return [("class:alert", words[f"confirm_{state.confirm}"])]
    legal = list(view.legal_actions)
    if not legal:
        if view.to_act:
            names = ", ".join(seat_name(view, s, words) for s in view.to_act)
            return [("class:dim", f"{words['waiting_for']}: {names}")]
        return []
    if any(a.startswith("schlag ") for a in legal):
        rules = _rules(view.table.rules_json)
        six = " 6(=Weli)" if rules is not None and "6" in schlag_choices(rules) else ""
        return [("class:active", f"{words['your_turn']}: {words['choose_schlag'].format(six=six)}"
                 + _also(legal))]
    if any(a.startswith("trump ") for a in legal):
        return [("class:active", f"{words['your_turn']}: {words['choose_trump']}" + _also(legal))]
    if any(a.endswith(" yes") for a in legal):
        question = visible(legal[0].split(" ")[0])
        return [("class:active", f"{words['your_turn']}: {question}? {words['answer']}" + _also(legal))]
    cuts = [int(a.split()[1]) for a in legal if a.startswith("cut ")]
    if cuts:
        return [("class:active", words["cut_prompt"].format(low=min(cuts), high=max(cuts)))]
    if "take" in legal or legal == ["keep"]:
        card = view.extra.get("schlecken_card", "?")
        return [("class:active", words["schlecken"].format(card=words.card_short(card) if card != "?" else card))]
    if view.your_seat in view.to_act:
        return [("class:active", f"{words['your_turn']} · " + " ".join(_shortcuts(legal)))]
    return [("class:dim", " ".join(_shortcuts(legal)))]


def _also(legal: list[str]) -> str:
    """The side keys (a raise during the announcement, RULES.md 6) after the announcer's own prompt."""
    keys = _shortcuts(legal)
    return " · " + " ".join(keys) if keys else ""


def _shortcuts(legal: list[str]) -> list[str]:
    keys = {"raise": "[r] raise", "accept": "[a] accept", "fold": "[f] fold", "concede": "[c] concede",
            "schadet?": "[:] schadet?"}
    return [keys[a] for a in legal if a in keys]


def keymap(view: Any) -> dict[str, str]:
    """Single keys that mean an action now (context-dependent: 'a' is Ass while naming the Schlag)."""
    if view is None:
        return {}
    legal = set(view.legal_actions)
    out: dict[str, str] = {}
    if any(a.startswith("schlag ") for a in legal):
        out.update({k: f"schlag {r}" for k, r in SCHLAG_KEYS.items() if f"schlag {r}" in legal})
    if any(a.startswith("trump ") for a in legal):
        out.update({k: f"trump {s}" for k, s in TRUMP_KEYS.items() if f"trump {s}" in legal})
    for key, action in (("w", "swap?"), ("b", "bessere?"), ("t", "take"), ("k", "keep")):
        if action in legal and key not in out:
            out[key] = action
    for key, action in (("r", "raise"), ("a", "accept"), ("f", "fold"), ("c", "concede")):
        if action in legal and key not in out:
            out[key] = action
    for answer, key in (("yes", "y"), ("no", "n")):
        for a in legal:
            if a.endswith(f" {answer}"):
                out[key] = a
    return out
