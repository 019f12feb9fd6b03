"""The table log without a terminal: the events a seat receives become one line each, with names, in its language.

The events are the wire's `GameEvent`s (every field JSON-encoded), as client/connection.py hands them to the screen;
the views are the host's `TableView`s (tests/test_viewmodel.py builds them the same way).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from test_viewmodel import EN, make_view, text

from client import log_view
from client import viewmodel as vm
from client.commands import parse_card, to_action
from client.i18n import Words
from client.prompts import keymap, prompt_line
from client.story import Story
from watten_net.engine import Rules
from watten_net.v1 import watten_pb2 as pb

DE = Words("de")


def ev(kind: str, seat: int = -1, **fields: Any) -> Any:
    """A wire event: every value JSON-encoded (docs/protocol.md section 8)."""
    renamed = {("from" if k == "from_" else k): json.dumps(v) for k, v in fields.items()}
    return pb.GameEvent(kind=kind, seat=seat, fields=renamed)


def named_view(**fields: Any) -> Any:
    view = make_view(hand_phase="play", **fields)
    for s, name in zip(view.seats, ["Anna", "Vroni", "Sepp", "Resi"], strict=False):
        s.name = name
    return view


HAND = [
    ev("hand-start", hand=0, attempt=0, dealer=3, forehand=0, cutter=2, value=2, gespannt=[False, False]),
    ev("cut", 2, n=14),
    ev("schlag", 0, rank="O"), ev("trump", 3, suit="H"),
    ev("raise", 1, value=3, from_=2), ev("accept", 0, value=3),
    ev("play", 0, card="S7", position=1), ev("play", 1, card="S8", position=2), ev("play", 2, card="SO", position=3),
    ev("play", 3, card="L7", position=4),
    ev("trick", 2, cards=["S7", "S8", "SO", "L7"], leader=0, side=0, tricks=[1, 0]),
    ev("raise", 2, value=4, from_=3), ev("fold", 1, value=3),
    ev("hand-end", side=0, seats=[0, 2], points=3, reason="fold", scores=[3, 0], hand=0, tricks=[1, 0]),
]


def story_of(events: list[Any], words: Words = EN, view: Any = None) -> Story:
    story = Story(words)
    story.events(events, view if view is not None else named_view())
    return story


def lines(story: Story) -> list[str]:
    return [line.text for line in story.lines]


def test_a_hand_is_told_with_names_who_named_raised_answered_and_won() -> None:
    told = lines(story_of(HAND))
    assert told[0] == "── Hand 1: Resi deals, cut for Sepp, Anna leads · stake 2"
    assert "Anna names the Schlag: O (Ober)" in told and "Resi names Trumpf: ♥ Herz" in told
    assert "Vroni raises: Gehts? to 3" in told and "Anna accepts: the stake is 3" in told
    assert "Trick 1: Anna ♦7, Vroni ♦8, Sepp ♦O, Resi ♠7 → Sepp (1–0)" in told
    assert "Vroni folds: the raisers score 3" in told
    assert told[-1] == "Hand 1: Anna & Sepp win 3 (Vroni folded) · score 3–0"


def test_the_story_speaks_german_under_lang_de() -> None:
    told = lines(story_of(HAND, DE))
    assert "Anna sagt den Schlag an: O (Ober)" in told and "Vroni gibt ab: die Bieter schreiben 3" in told
    assert told[-1] == "Hand 1: Anna & Sepp schreiben 3 (Vroni hat abgegeben) · Stand 3–0"


def test_blind_shows_a_hidden_announcement_without_its_rank_and_reveals_it_at_the_end() -> None:
    # What a seat that is no announcer receives in Blind: `announced` only (the host filters `schlag`/`trump`)
    story = story_of([ev("hand-start", hand=0, attempt=0, dealer=3, forehand=0, cutter=2, value=2, gespannt=[]),
                      ev("announced", 0, what="schlag"), ev("announced", 3, what="trump")])
    told = lines(story)
    assert "Anna named the Schlag (hidden: Blind)" in told and "Resi named Trumpf (hidden: Blind)" in told
    assert not any("Ober" in line or "Herz" in line for line in told)
    story.events([ev("announcement", schlag="O", trump="H")])
    assert lines(story)[-1] == "Revealed: Schlag O (Ober), Trumpf ♥ Herz"
    # An announcer sees the rank, and the `announced` after it adds nothing
    seen = lines(story_of([ev("schlag", 0, rank="O"), ev("announced", 0, what="schlag")]))
    assert seen[-1] == "Anna names the Schlag: O (Ober)" and not any("hidden" in line for line in seen)


def test_questions_answers_signals_and_the_cut_are_lines_and_the_prompt_names_the_asker() -> None:
    story = story_of([ev("bessere?", 1), ev("bessere", 3, answer="no"), ev("swap?", 0), ev("signal", 2, name="max"),
                      ev("see", 0, card="HK", position=3), ev("keep", 2), ev("concede", 1)])
    assert lines(story) == [
        "── Hand 1: Resi deals, cut for Sepp, Anna leads", "Vroni asks for Bessere (new cards)", "Resi refuses Bessere",
        "Anna asks for a Schlagwechsel", "Sepp signals: max (holds the Max)", "You see ♥K at the cut",
        "Sepp leaves the card shown at the cut", "Vroni concedes the hand"]
    asked = named_view(legal_actions=["bessere yes", "bessere no"], to_act=[0])
    state = vm.ScreenState(view=asked, story=story)
    assert text(prompt_line(asked, state, EN)) == "Vroni asks: new cards for both announcers (Bessere)? [y] / [n]"
    assert "signals: max" in text(vm.seats_pane(asked, EN, state)).splitlines()[2]


def test_the_schlagwechsel_question_says_who_then_names_what() -> None:
    """Found playing as the dealer: "Vroni asks: swap Schlag and Trumpf (Schlagwechsel)?" before either was named
    (what is swapped is who names which: docs/rules.md 6, on yes the dealer names the Schlag, the forehand Trumpf)."""
    story = story_of([ev("swap?", 1)])
    asked = named_view(legal_actions=["swap yes", "swap no"], to_act=[0])
    state = vm.ScreenState(view=asked, story=story)
    assert text(prompt_line(asked, state, EN)) == (
        "Vroni asks: Schlagwechsel (you name the Schlag, Vroni Trumpf)? [y] / [n]")
    assert text(prompt_line(asked, state, Words("de"))).startswith(
        "Vroni fragt: Schlagwechsel (du sagst den Schlag an, Vroni den Trumpf)? [y] ja / [n] nein")
    assert "Vroni 问：Schlagwechsel" in text(prompt_line(asked, state, Words("zh")))


def test_a_reconnect_rebuilds_the_current_hand_without_doubling_a_line() -> None:
    story = story_of(HAND[:6])
    before = lines(story)
    story.snapshot(named_view(), HAND[:6])  # a full snapshot: the hand's recent_events again
    assert lines(story) == before
    story.snapshot(named_view(hand=0), HAND)
    assert lines(story) == lines(story_of(HAND))


def test_a_stand_in_and_the_return_are_told_from_the_seat_rows() -> None:
    story = story_of([])
    away = named_view()
    away.seats[1].stand_in = True
    story.events([], away)
    story.events([], named_view())
    assert lines(story)[-2:] == ["A bot plays for Vroni while they are away", "Vroni is back"]


def test_hostile_values_are_shown_escaped_and_broken_fields_are_skipped() -> None:
    view = named_view()
    view.seats[1].name = "\u202eevil\x1b[2J"
    story = story_of([ev("raise", 1, value=3, from_=2), ev("signal", 1, name="\x1b]0;x\x07"),
                      pb.GameEvent(kind="fold", seat=1, fields={"value": "{not json"})], view=view)
    shown = "\n".join(lines(story))
    assert "<U+202E>evil\\x1b[2J raises" in shown and "\x1b" not in shown and "\u202e" not in shown
    assert not any("folds" in line for line in lines(story))


def test_the_summary_has_a_row_per_hand_the_final_score_the_own_verdict_and_the_record() -> None:
    story = story_of(HAND)
    view = named_view(winners=[0])
    view.table.phase = vm.MATCH_OVER
    view.sides.extend([pb.SideView(side=0, seats=[0, 2], score=15, bummerl=0),
                       pb.SideView(side=1, seats=[1, 3], score=4, bummerl=1)])
    state = vm.ScreenState(view=view, story=story, deal_status="verified", record_path="/r/watten-1.wrec")
    shown = text(log_view.summary(state, EN, story)).splitlines()
    assert any(row.split()[:6] == ["1", "Resi", "O", "(Ober)", "♥", "Herz"] and "Anna & Sepp" in row
               and "Vroni folded" in row for row in shown), shown
    assert "Final score: Team A (you) 15 – Team B 4 · Bummerl 0 – 1" in shown
    assert "Your own check of the record: deal verified ✓" in shown and "Record: /r/watten-1.wrec" in shown
    assert any("[q] leave" in row for row in shown)


def test_the_summarys_columns_stay_in_line_with_the_widest_announcement() -> None:
    """Found playing to the end at 80x24: the row of "7 (Sieben) ♦ Schellen" (21 columns, the column had 20) had its
    points, winners and tricks one column right of every other row's; with --suits german ("Sc") two."""
    sieben = [ev("schlag", 0, rank="7") if e.kind == "schlag" else ev("trump", 3, suit="S") if e.kind == "trump"
              else e for e in HAND]
    second = [ev(e.kind, e.seat, **{k: json.loads(v) for k, v in e.fields.items()} | {"hand": 1})
              if e.kind in ("hand-start", "hand-end") else e for e in HAND]
    view = named_view(winners=[0])
    view.table.phase = vm.MATCH_OVER
    for words in (EN, DE, Words("zh"), Words("en", "german")):
        story = story_of(sieben + second, words, view)
        shown = text(log_view.summary(vm.ScreenState(view=view, story=story), words, story)).splitlines()
        rows = [row for row in shown if row.lstrip()[:2] in ("1 ", "2 ")]
        assert len(rows) == 2 and "Schellen" in rows[0] and "Herz" in rows[1], shown
        # the points (" 3 ") and the winners ("Anna & Sepp") start in the same column on both rows
        assert len({row.index(" 3  ") for row in rows}) == 1, rows
        assert len({row.index("Anna & Sepp") for row in rows}) == 1, rows


def test_the_summary_writes_the_records_path_from_home_as_tilde() -> None:
    """Found at 80x24: "Record: /home/…/records/watten-9bfd-c678-6ac3-172e-se" / "at0.wrec", the name broken."""
    home = str(Path.home())
    records = ".local/share/watten-net/records/w.wrec"
    assert log_view.home_short(f"{home}/{records}") == f"~/{records}"
    assert log_view.home_short("/srv/records/w.wrec", home="/home/anna") == "/srv/records/w.wrec"
    assert log_view.home_short("/home/annabel/w.wrec", home="/home/anna") == "/home/annabel/w.wrec"
    assert log_view.home_short("/w.wrec", home="/") == "/w.wrec"
    view = named_view()
    view.table.phase = vm.MATCH_OVER
    state = vm.ScreenState(view=view, story=story_of(HAND), record_path=f"{home}/records/watten-1.wrec")
    assert "Record: ~/records/watten-1.wrec" in text(log_view.summary(state, EN, state.story)).splitlines()
    # Found at 80x24 in German: "Aufzeichnung: ~/.local/share/watten-net/records/watten-…-seat0" with ".wrec" alone
    # on the next row. When label and path do not fit the row, the path gets a row of its own, whole.
    name = "watten-9bfd-c678-6ac3-172e-seat0.wrec"
    state.record_path = f"{home}/.local/share/watten-net/records/{name}"
    shown = text(log_view.summary(state, Words("de"), state.story, 80)).splitlines()
    assert "Aufzeichnung:" in shown and f"  ~/.local/share/watten-net/records/{name}" in shown, shown
    assert all(len(row) <= 80 for row in shown[shown.index("Aufzeichnung:"):]), shown
    shown = text(log_view.summary(state, EN, state.story, 80)).splitlines()  # (English fits: one row)
    assert f"Record: ~/.local/share/watten-net/records/{name}" in shown, shown


def test_nobody_is_offline_on_the_summary_or_at_the_end() -> None:
    view = named_view()
    view.table.phase = vm.MATCH_OVER
    view.seats[1].online = False
    assert "offline" not in text(vm.seats_pane(view, EN))


def test_a_finished_trick_stays_for_its_time_and_until_the_next_card() -> None:
    story = story_of(HAND[:11])
    led = named_view(current_trick=pb.Trick(leader=2, winner=-1, cards=[pb.TrickCard(seat=2, card="HA")]))
    state = vm.ScreenState(view=led, story=story, trick_done_at=100.0)
    assert vm.table_cards(led, state, now=100.5) == ({0: "S7", 1: "S8", 2: "SO", 3: "L7"}, 2)
    assert vm.table_cards(led, state, now=101.6) == ({2: "HA"}, -1)
    empty = named_view()
    assert vm.table_cards(empty, state, now=500.0)[1] == 2  # no card led yet: the last trick stays


def test_a_trick_stays_into_the_next_hand_for_its_time_only() -> None:
    """A hand's last trick stays on the table into the next hand for PACE seconds, not through the new hand's
    announcement (found playing: hand 4's cards and "Resi takes the trick" beside hand 5's Schlag question); [p]
    still shows it. A hand after one without a trick (a Maschine) does not show the trick of the hand before that."""
    story = story_of(HAND)
    story.events([ev("hand-start", hand=1, attempt=0, dealer=0, forehand=1, cutter=3, value=2)], named_view())
    state = vm.ScreenState(view=named_view(), story=story, trick_done_at=100.0)
    last = ({0: "S7", 1: "S8", 2: "SO", 3: "L7"}, 2)
    assert vm.table_cards(named_view(), state, now=101.0) == last
    assert vm.table_cards(named_view(), state, now=500.0) == ({}, -1)
    state.show_last = True
    assert vm.table_cards(named_view(), state, now=500.0) == last
    state.show_last = False
    story.events([ev("maschine", 1, cards=["HK", "S7", "E7"]),
                  ev("hand-end", side=1, seats=[1, 3], points=2, reason="maschine", scores=[3, 2], hand=1,
                     tricks=[0, 0]),
                  ev("hand-start", hand=2, attempt=0, dealer=1, forehand=2, cutter=0, value=2)], named_view())
    assert story.last_trick is None
    assert vm.table_cards(named_view(), state, now=500.0) == ({}, -1)


def test_a_card_is_taken_as_the_screen_shows_it() -> None:
    for typed in ("♥K", "HK", "hk", "Herz König", "HeK", "play ♥K", "herz koenig"):
        assert to_action(typed) == "play HK", typed
    assert parse_card("Sc7") == "S7" and parse_card("♦10") == "S10" and parse_card("Eichel Ass") == "EA"
    assert to_action("signal max") == "signal max" and to_action("raise") == "raise"
    assert parse_card("keep") is None and parse_card("help") is None


def test_the_looking_keys_are_never_an_action_in_any_phase() -> None:
    """`l` is Laub only; the last trick is p, the log v; accept is y, so a and k only name Ass and König."""
    phases = [["schlag 7", "schlag A", "schlag K", "swap?", "bessere?", "raise"],
              ["trump E", "trump L", "trump H", "trump S", "bessere?"], ["take", "keep"], ["accept", "fold"],
              ["swap yes", "swap no"], ["play HK", "raise", "concede"], ["cut 5", "cut 6"]]
    for legal in phases:
        keys = keymap(make_view(legal_actions=legal, to_act=[0]))
        assert not set(keys) & {"p", "v", "?", "i", "q", "g", ":"}, legal
        assert keys.get("a", "schlag A") == "schlag A" and keys.get("k", "schlag K") == "schlag K", legal
    assert keymap(make_view(legal_actions=["take", "keep"], to_act=[0])) == {"y": "take", "n": "keep"}


def test_help_wraps_at_word_boundaries_and_a_small_window_gets_one_clear_line() -> None:
    for width in (52, 72):
        for line in log_view.wrapped_help(EN, width).splitlines():
            assert len(line) <= width, line
    words = set(EN.help().split())
    assert set(log_view.wrapped_help(EN, 52).split()) == words  # no word cut in two
    assert log_view.too_small(80, 24, EN) is False and log_view.too_small(60, 20, EN) is False
    assert log_view.too_small(40, 15, EN) == "Please make this window at least 60×20 (now 40×15)."


def test_the_help_names_the_chat_key_and_writes_the_kritische_as_the_table_shows_cards() -> None:
    """Found reading the help at 80x24: [t] (table chat) was in no language's help (its line was to go before an
    "l last trick" line that had become "p"; Chinese got it inside another line), and the Kritische were "Max (HK)",
    a notation the table never shows."""
    for lang in ("en", "de", "zh"):
        shown = Words(lang).help()
        assert re.search(r"(?m)^  t  ?\S", shown), lang  # (a line of its own)
        if lang != "de":
            assert "Max (♥K)" in shown and "Belli (♦7)" in shown and "Spitz (♣7)" in shown, lang
        assert "(HK" not in shown, lang
    assert "Max (HeK)" in Words("en", "german").help()


def test_the_german_help_names_the_kritische_as_a_german_player_does_and_every_help_says_the_same() -> None:
    """Found reading the German help: it explained no Kritischer at all and showed the card example '♥K' even with
    German suit marks; the Chinese help lacked lines the English has (the header's deal check, 'schadet?')."""
    german = Words("de").help()
    for term in ("der Max (♥K, Herz-König)", "der Belli (♦7, Schellen-Sieben)", "der Spitz (♣7, Eichel-Sieben)",
                 "gespannt:", "Bummerl:", "'schadet?'"):
        assert term in german, term
    marked = Words("de", "german").help()
    assert "'HeK'" in marked and "♥" not in marked and "der Max (HeK, Herz-König)" in marked
    # Every help names the same keys and commands as the English one
    for lang in ("de", "zh"):
        shown = Words(lang).help()
        for same in ("'play HK'", "'♥K'", "'Herz König'", "'signal max'", "'schadet?'", "'signal '", "Gehts?",
                     "7 8 9 0(=10) u o k a", "e l h s", "Schlagwechsel", "Bessere", "Schlecken", "Bummerl", "gespannt"):
            assert same in shown, (lang, same)
    assert "Oben steht, was dein Programm vom Austeilen geprüft hat" in german
    # Found reading the help at 80x24: "7 8 9 0 u o k a (6) name the Schlag", a "(6)" nothing explained and a "0"
    # the prompt calls "0(=10)"
    for lang in ("en", "de", "zh"):
        shown = Words(lang).help()
        assert "(6)" not in shown and "Weli" in shown and "0(=10)" in shown, lang
    assert "顶行显示你的客户端已检查了发牌的哪些部分" in Words("zh").help()


def test_six_seat_rows_fit_80_and_60_columns() -> None:
    rules = Rules.preset("bavarian", 6)
    view = make_view(rules=rules, current_trick=pb.Trick(leader=0, winner=-1,
                                                         cards=[pb.TrickCard(seat=s, card="HK") for s in range(6)]))
    for seat in view.seats:
        seat.name = "Maximiliane-Theresia"
    for width in (80, 60):
        rows = text(vm.seats_pane(view, EN, width=width)).splitlines()
        assert len(rows) == 6 and all(len(row) <= width for row in rows), rows
        assert all("♥K" in row and "…" in row for row in rows)


# ------------------------------------------------------------------------------------------ keys on pipe input
def test_the_command_line_takes_a_card_as_shown_and_completes_a_legal_action() -> None:
    from test_viewmodel import press

    view = make_view(your_hand=["HK", "L7"], schlag="O", trump="L", to_act=[0],
                     legal_actions=["play HK", "play L7", "signal max"])
    assert press(view, [":", "♥K", "\r"])[0] == ["play HK"]
    assert press(view, [":", "Laub Sieben", "\r"])[0] == ["play L7"]
    assert press(view, [":", "sig", "\t", "\r"])[0] == ["signal max"]  # Tab completes from the legal actions


def test_looking_keys_send_nothing_while_the_trump_is_named_and_l_names_laub() -> None:
    from test_viewmodel import press

    naming = make_view(legal_actions=["trump E", "trump L", "trump H", "trump S"], to_act=[0])
    sent, state = press(naming, ["p", "v", "v", "?", "?"])
    assert sent == [] and not state.show_log and not state.show_help
    assert press(naming, ["l"])[0] == ["trump L"]
    raising = make_view(legal_actions=["accept", "fold"], to_act=[0],
                        pending_raise=pb.PendingRaise(seat=1, side=1, proposed_value=3))
    assert press(raising, ["a", "k"])[0] == [] and press(raising, ["y"])[0] == ["accept"]


def test_a_stale_message_clears_with_the_next_action_and_a_key_puts_the_banner_away() -> None:
    from test_viewmodel import press

    view = make_view(your_hand=["HK", "L7"], schlag="O", trump="L", legal_actions=["play HK", "play L7"],
                     to_act=[0])
    sent, state = press(view, ["2", "\r", "1", "\r"], refuse={"play L7": ("must-play-trump", "host words")})
    assert sent == ["play HK"] and state.message == ""
    idle = make_view()
    _, state = press(idle, ["x"], banner="Hand 1: Anna & Sepp win 3 (tricks 3–1) · score 3–0")
    assert state.banner == ""


def test_the_help_scrolls_with_the_arrows_and_opens_at_its_top() -> None:
    from test_viewmodel import press

    view = make_view(your_hand=["HK", "L7"], legal_actions=["play HK", "play L7"], to_act=[0])
    sent, state = press(view, ["?", "\x1b[B", "\x1b[B", "\x1b[B", "\x1b[A"])
    assert sent == [] and state.show_help and state.help_line == 2 and state.cursor == 0
    _, state = press(view, ["?", "\x1b[B", "?", "?"])
    assert state.show_help and state.help_line == 0


def test_every_log_sentence_is_in_every_language() -> None:
    from client.story_words import STORY

    assert set(STORY["de"]) == set(STORY["en"]) == set(STORY["zh"])
    told = lines(story_of(HAND, Words("zh")))
    assert told[-1] == "第 1 手：Anna & Sepp 得 3 分（Vroni 放弃）· 比分 3–0"


def test_the_whole_log_scrolls_back_by_rows_not_lines() -> None:
    """A long line wraps into several rows: how far the log scrolls back counts rows, so its first lines stay
    reachable (a six-player trick line takes two rows at 80 columns)."""
    from client.log_view import full_log_rows
    from client.story import LogLine
    from client.viewmodel import ScreenState

    words = Words("en")
    story = Story(words)
    story.lines = [LogLine(1, "trick", "Trick 1: " + ", ".join(f"Seat{i} ♥K" for i in range(6)) + " → Seat0 (1–0)")] * 3
    state = ScreenState(story=story)
    assert full_log_rows(state, 200) == 3  # (each fits a wide window in one row)
    assert full_log_rows(state, 40) > len(story.lines)


def test_every_screen_word_is_in_every_language() -> None:
    """Found reading a Chinese screen: the Bessere question, the match's summary and the log's title were English
    (18 words had no Chinese); every word of the screen is in every language now."""
    from client.i18n import TEXT

    for lang in ("de", "zh"):
        assert sorted(set(TEXT["en"]) - set(TEXT[lang])) == [], lang
        assert sorted(set(TEXT[lang]) - set(TEXT["en"])) == [], lang
