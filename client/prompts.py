"""What the seat is asked now, and which single keys mean an action at this moment.

A prompt names who asks what ("Vroni asks: new cards for both announcers (Bessere)? [y] / [n]") and is shown only to
a seat whose `legal_actions` hold the answer; every other seat reads whom the table waits for and for what. The keys
never change meaning between a harmless and an irreversible act: the last trick and the log have keys of their own
(client/keys.py), answers are always y / n, accepting a raise is y, fold and concede ask first.
"""

from __future__ import annotations

from typing import Any

from watten_net.cardwords import SUIT_DE
from watten_net.engine.ranking import schlag_choices

from .i18n import Words
from .story import Story
from .viewmodel import PLAYING, SCHLAG_KEYS, STARTING, TRUMP_KEYS, Fragments, ScreenState, rules_of, seat_name

# What the table waits for, from the view's announce_step or hand_phase (docs/rules.md's moments)
WAITING_FOR = {"schlag": "wait_schlag", "trump": "wait_trump", "swap-answer": "wait_swap",
               "bessere-answer": "wait_bessere", "cut": "wait_cut", "schlecken": "wait_schlecken",
               "raise-pending": "wait_raise", "play": "wait_play"}
QUESTIONS = ("swap", "bessere", "schadet")


def prompt_line(view: Any, state: ScreenState, words: Words) -> Fragments:
    """What the seat is asked to do now, with the keys for it."""
    if state.confirm:
        return [("class:alert", words[f"confirm_{state.confirm}"])]
    legal = list(view.legal_actions)
    if not legal:
        return _waiting(view, words)
    asked = _asked(view, state.story, legal, words)
    if asked:
        return [("class:active", asked + _also(legal, words))]
    cuts = [int(a.split()[1]) for a in legal if a.startswith("cut ") and a.split()[1].isdigit()]
    if cuts:
        return [("class:active", words["cut_prompt"].format(low=min(cuts), high=max(cuts)))]
    if "take" in legal or legal == ["keep"]:
        return [("class:active", _schlecken(view, "take" in legal, words))]
    if "accept" in legal:
        raiser = seat_name(view, view.pending_raise.seat, words)
        return [("class:active", words["answer_raise"].format(seat=raiser, value=view.pending_raise.proposed_value))]
    if any(a.startswith("play ") for a in legal) and view.your_seat in view.to_act:
        # (one card left: no "(1-1, ← →)" to choose from)
        choose = words["choose_card"].format(n=len(view.your_hand)) if len(view.your_hand) > 1 else words["last_card"]
        return [("class:active", f"{words['your_turn']}{words['colon']}{choose}" + _also(legal, words))]
    keys = _shortcuts(legal, words)
    if not keys:
        return _waiting(view, words)
    # Out of turn with something still allowed (a raise, a signal): who the table waits for, then the keys
    waiting = _waiting(view, words) if view.your_seat not in view.to_act else []
    return [*waiting, ("class:dim", (" · " if waiting else "") + " ".join(keys))]


def _asked(view: Any, story: Story | None, legal: list[str], words: Words) -> str:
    """The announcer's own choice, or a question asked of this seat (with who asked it)."""
    if any(a.startswith("schlag ") for a in legal):
        rules = rules_of(view.table.rules_json)
        six = " 6(=Weli)" if rules is not None and "6" in schlag_choices(rules) else ""
        return f"{words['your_turn']}{words['colon']}{words['choose_schlag'].format(six=six)}"
    if any(a.startswith("trump ") for a in legal):
        return f"{words['your_turn']}{words['colon']}{words['choose_trump']}"
    for question in QUESTIONS:
        if f"{question} yes" in legal:
            seat = story.asker(f"{question}?") if story is not None else -1
            who = seat_name(view, seat, words) if seat >= 0 else words["someone"]
            return f"{words[f'asks_{question}'].format(seat=who)} {words['answer']}"
    return ""


def _schlecken(view: Any, may_take: bool, words: Words) -> str:
    """The card shown at the cut and the keys; a card that is no Kritischer says that taking it is a bluff (found
    playing: a newcomer took ♥U, then read "Sepp bluffed at the cut: 2 points to the others" with no word before)."""
    card = view.extra.get("schlecken_card", "?")
    shown = words.card_short(card) if card[:1] in words.marks and len(card) in (2, 3) else "?"
    said = words["schlecken" if may_take else "schlecken_keep"].format(card=shown)
    rules = rules_of(view.table.rules_json)
    if may_take and shown != "?" and rules is not None and card not in rules.kritische:
        said += f" · {words['schlecken_bluff']}"
    return said


def _waiting(view: Any, words: Words) -> Fragments:
    if not view.to_act:
        return []
    names, what = _waited_for(view, words)
    if what is None:
        return [("class:dim", f"{words['waiting_for']}{words['colon']}{names}")]
    return [("class:dim", words["waiting_to"].format(names=names, what=words[what]))]


def table_waits(view: Any, words: Words) -> str:
    """Whom the table waits for and for what, as a clause ("the table waits for Vroni to cut"): why a move of this
    seat is not wanted now; during the deal's own steps, which no seat's move ends, what they wait for ("the table
    waits for Vroni to do their part of the deal", "the deal is being checked"); "" when the table waits for nothing."""
    if not view.to_act:
        return deal_waits(view, words)
    names, what = _waited_for(view, words)
    if list(view.to_act) == [view.your_seat]:  # (the move the table waits for is this seat's own: not "Anna (you)")
        return words["table_waits_you"] if what is None else words["table_waits_you_to"].format(what=words[what])
    if what is None:
        return words["table_waits_for"].format(names=names)
    return words["table_waits_to"].format(names=names, what=words[what])


# What the seats do at a step of the deal's own protocol (the view's `deal.step`), which their clients do by
# themselves; any other step: "to do their part of the deal"
DEAL_STEP_WORDS = {"shuffle": "wait_shuffle", "keys": "wait_keys", "shares": "wait_shares"}


def deal_waits(view: Any, words: Words) -> str:
    """While the seats sign the deal's steps (their clients do it by themselves) or the host deals and the seats
    check it, nobody is to move: what the table waits for then (found playing: "Not allowed: Not now." read as if a
    key of this seat's were wrong); a trustless deal's step by its name ("the table waits for Vroni to shuffle").
    Also a move refused because the cards are still being dealt (`dealing`), whoever else may move meanwhile."""
    if not view.game_fingerprint or view.table.phase not in (PLAYING, STARTING):
        return ""
    signing = [s for s in view.deal.waiting_for if s != view.your_seat]
    if signing:
        names = words["list_sep"].join(seat_name(view, s, words) for s in signing)
        what = words[DEAL_STEP_WORDS.get(view.deal.step, "wait_sign")]
        return words["table_waits_to"].format(names=names, what=what)
    return words["deal_being_checked"]


def _waited_for(view: Any, words: Words) -> tuple[str, str | None]:
    """The names of the seats to act (escaped: `seat_name`) and the key of the words for what they are to do."""
    names = words["list_sep"].join(seat_name(view, s, words) for s in view.to_act)
    if view.hand_phase == "raise-pending":  # (a raise during the announcement is answered before the Trumpf is named)
        return names, WAITING_FOR["raise-pending"]
    return names, WAITING_FOR.get(view.announce_step) or WAITING_FOR.get(view.hand_phase)


def _also(legal: list[str], words: Words) -> str:
    """The side keys (a raise during the announcement, docs/rules.md 6) after the seat's own prompt."""
    keys = _shortcuts(legal, words)
    return " · " + " ".join(keys) if keys else ""


def _shortcuts(legal: list[str], words: Words) -> list[str]:
    keys = {"raise": "[r] ", "accept": "[y] ", "fold": "[f] ", "concede": "[c] ", "schadet?": "[:] "}
    return [keys[a] + words[f"do_{a.rstrip('?')}"] for a in legal if a in keys]


def keymap(view: Any) -> dict[str, str]:
    """Single keys that mean an action now. A letter names a Schlag or a trump only while one is named; every
    answer is y / n (a question, the card at the cut, a raise: y accepts); r raises, f folds, c concedes."""
    if view is None:
        return {}
    legal = set(view.legal_actions)
    out: dict[str, str] = {}
    if any(a.startswith("schlag ") for a in legal):
        out.update({k: f"schlag {r}" for k, r in SCHLAG_KEYS.items() if f"schlag {r}" in legal})
    if any(a.startswith("trump ") for a in legal):
        out.update({k: f"trump {s}" for k, s in TRUMP_KEYS.items() if f"trump {s}" in legal})
    for key, action in (("w", "swap?"), ("b", "bessere?")):
        if action in legal and key not in out:
            out[key] = action
    for question in QUESTIONS:
        for answer, key in (("yes", "y"), ("no", "n")):
            if f"{question} {answer}" in legal:
                out.setdefault(key, f"{question} {answer}")
    for key, action in (("y", "take"), ("n", "keep"), ("y", "accept"), ("r", "raise"), ("f", "fold"),
                        ("c", "concede")):
        if action in legal:
            out.setdefault(key, action)
    return out


def action_words(action: str, words: Words) -> str:
    """A legal action (docs/rules.md notation) as the screen says it, for the hint: "play ♦U", "Schlag 7 (Sieben)",
    "Trumpf ♥ Herz" (found playing: "Hint: play SU" in the notation, English inside a German screen, and
    a card the hand shows as ♦U). An action it has no words for stays as it is (`visible` by the caller)."""
    verb, _, rest = action.partition(" ")
    if verb == "play" and rest[:1] in words.marks and len(rest) in (2, 3):
        return words["do_play"].format(card=words.card_short(rest))
    if verb == "schlag" and rest:
        return f"Schlag {words.rank(rest)}"
    if verb == "trump" and rest in words.marks:
        return f"Trumpf {words.marks[rest]} {SUIT_DE[rest]}"  # (as the log names it)
    if verb == "cut" and rest.isdigit():
        return words["do_cut"].format(n=rest)
    if verb.rstrip("?") in ("swap", "bessere", "schadet") and rest in ("yes", "no"):
        return f"{words['ask_' + verb]}{words['colon']}{words['say_' + rest]}"
    if action in ("swap?", "bessere?", "take", "keep", "raise", "accept", "fold", "concede", "schadet?"):
        return words[f"do_{action.rstrip('?')}"]
    return action
