"""What a newcomer at 80x24 could not follow (en, de, zh), each held by a test that failed before its mend: whose side
won the match, the last trick of which hand, who cut the deck, one word for the stake, the lobby's keys and what a
partner's signal means."""

from __future__ import annotations

from typing import Any

import pytest
from test_story import HAND, ev, lines, named_view, story_of
from test_viewmodel import make_view, text

from client import log_view
from client import viewmodel as vm
from client.i18n import Words
from client.screen_layout import message_line
from client.signal_words import signal_meaning
from client.story_words import story_text
from watten_net.engine import SIGNAL_NAMES
from watten_net.v1 import watten_pb2 as pb

LANGS = ("en", "de", "zh")


def ended_view(your_seat: int, winners: list[int]) -> Any:
    """A finished four-player match: Team B (seats 1 and 3) won 15 to 9, Team A took the Bummerl."""
    view = named_view(winners=winners)
    view.your_seat = your_seat
    for s in view.seats:
        s.you = s.seat == your_seat
    view.table.phase = vm.MATCH_OVER
    view.sides.extend([pb.SideView(side=0, seats=[0, 2], score=9, bummerl=1),
                       pb.SideView(side=1, seats=[1, 3], score=15, bummerl=0)])
    return view


@pytest.mark.parametrize("lang", LANGS)
def test_the_end_of_the_match_marks_the_readers_own_side(lang: str) -> None:
    words = Words(lang)
    you = words["aside"].format(name=f"{words['team']} B", text=words["you"])  # "Team B (you)", "队 B（你）"
    winner = ended_view(1, [1])  # the reader sits on Team B, which won
    loser = ended_view(0, [1])  # the reader sits on Team A, which lost
    spectator = ended_view(-1, [1])
    state = vm.ScreenState(view=winner, story=story_of(HAND, words), deal_status="verified")
    for shown in (text(vm.scores_pane(winner, words)), text(log_view.summary(state, words, state.story)),
                  log_view.farewell(state, words)[0]):
        assert f"{you} {words['won']}".replace("） ", "）") in shown, shown
    assert f"{you} 15".replace("） ", "）") in text(log_view.summary(state, words, state.story))  # sides named
    lost = vm.ScreenState(view=loser, deal_status="verified")
    for shown in (text(vm.scores_pane(loser, words)), text(log_view.summary(lost, words, None)),
                  log_view.farewell(lost, words)[0]):
        assert words["your_side_lost"] in shown and you not in shown, shown
    watched = vm.ScreenState(view=spectator)
    for shown in (text(vm.scores_pane(spectator, words)), text(log_view.summary(watched, words, None))):
        assert words["your_side_lost"] not in shown and you not in shown, shown


def test_the_logs_match_end_marks_the_readers_own_team() -> None:
    story = story_of([ev("match-end", winners=[0], scores=[15, 4], bummerl=[0, 1])])  # the reader is seat 0
    assert "Match over: Team A (you) win" in lines(story)[-1]


@pytest.mark.parametrize("lang", LANGS)
def test_the_last_trick_of_an_earlier_hand_says_its_hand(lang: str) -> None:
    """[p] at the first trick of a new hand showed the previous hand's last trick in the seat rows, and "Last trick
    [p]: → Sepp takes the trick" beside this hand's cards being played, as if it were this hand's."""
    words = Words(lang)
    view = named_view(current_trick=pb.Trick(leader=1, cards=[pb.TrickCard(seat=1, card="HK")], winner=-1))
    story = story_of([*HAND, ev("hand-start", hand=1, attempt=0, dealer=0, forehand=1, cutter=3, value=2)], words)
    state = vm.ScreenState(view=view, story=story, show_last=True)
    assert text(vm.alert_line(view, state, words)).startswith(words["last_trick_of"].format(hand=1) + " [p]")
    story.events([ev("trick", 1, cards=["HK", "S8", "SO", "L7"], leader=1, side=1, tricks=[0, 1])], view)
    assert text(vm.alert_line(view, state, words)).startswith(words["last_trick"] + " [p]")  # this hand's own


@pytest.mark.parametrize("lang", LANGS)
def test_a_cut_nobody_chose_is_not_said_as_a_choice_and_ones_own_take_is_one_line(lang: str) -> None:
    """A verified deal's cut follows from the seeds (docs/protocol.md, Level 1 step 8), yet the log said "Anna cut
    the deck" to an Anna who pressed nothing; and "Anna takes the card shown at the cut" then "You took ♦A" said one
    thing twice."""
    words = Words(lang)
    start = ev("hand-start", hand=0, attempt=0, dealer=1, forehand=2, cutter=0, value=2)
    verified = named_view()
    verified.deal.mode = "verified"
    told = lines(story_of([start, ev("cut", 0, n=12), ev("see", 0, card="SA"), ev("take", 0),
                           ev("took", 0, card="SA")], words, verified))
    assert told[1] == story_text(lang, "cut-seeded").format(who="Anna"), told
    assert told[0] == story_text(lang, "hand-start-seeded").format(hand=1, dealer="Vroni", cutter="Anna",
                                                                    forehand="Sepp", value=2)  # ("Anna cuts")
    assert told[3:] == [story_text(lang, "took").format(card=words.card_short("SA"))], told
    trustless = named_view()
    trustless.deal.mode = "trustless"
    told = lines(story_of([start, ev("cut", 0, n=12), ev("take", 0)], words, trustless))
    assert told[1] == story_text(lang, "cut").format(who="Anna")  # (chosen live: the cutter's own deed)
    assert told[0] == story_text(lang, "hand-start").format(hand=1, dealer="Vroni", cutter="Anna", forehand="Sepp",
                                                             value=2)
    assert told[2] == story_text(lang, "take-you")  # (no card for the seat in a trustless deal: the take alone)
    told = lines(story_of([start, ev("cut", 0, n=12), ev("see", 0, card="S9"), ev("keep", 0)], words, verified))
    assert told[-1] == story_text(lang, "keep-you"), told  # (found playing: "Host leaves the card …" to Host)


@pytest.mark.parametrize("lang", LANGS)
def test_the_log_calls_the_stake_what_the_header_calls_it(lang: str) -> None:
    """The header said "Stake 2", the log "worth 2" and "the hand is worth 3": one word for one thing."""
    words = Words(lang)
    story = story_of(HAND, words)
    said = {line.kind: line.text.lower() for line in story.lines}
    stake = words["stake"].lower()
    assert f"{stake} 2" in text(vm.status_pane(named_view(), words)).lower()
    assert f"{stake} 2" in said["hand-start"] and stake in said["accept"], said


@pytest.mark.parametrize("lang", LANGS)
def test_the_lobbys_keys_line_shows_the_keys_that_work_there(lang: str) -> None:
    """The lobby's keys line read "? help · v log · p last trick · : command": no trick in a lobby."""
    words = Words(lang)
    lobby = make_view(game_fingerprint="", dealer=-1)
    lobby.table.phase = pb.TABLE_PHASE_LOBBY
    shown = text(message_line(vm.ScreenState(view=lobby), words))
    keys = [part.split()[0] for part in shown.split(" · ")]
    assert keys == ["?", "t", "v", "q"], shown  # (help, talk, what was said, leave: each works in the lobby)
    assert text(message_line(vm.ScreenState(view=None), words)) == shown  # (before the first view: the lobby)
    assert " p " in text(message_line(vm.ScreenState(view=make_view()), words))  # (at the table [p] works)


@pytest.mark.parametrize("lang", LANGS)
def test_a_signal_says_what_it_means_in_the_log_and_the_help(lang: str) -> None:
    """The log said "Sepp signals: schlag" and the help named no signal's meaning (docs/rules-decisions.md
    "Signals" says what each means)."""
    words = Words(lang)
    told = lines(story_of([ev("signal", 2, name="schlag"), ev("signal", 0, name="nimm")], words))
    schlag, nimm = signal_meaning(lang, "schlag"), signal_meaning(lang, "nimm")
    assert told[-2] == story_text(lang, "signal").format(who="Sepp", name=words["aside"].format(name="schlag",
                                                                                                text=schlag))
    assert nimm in told[-1] and "nimm" in told[-1]  # (one's own signal too)
    shown = words.help()
    for name in SIGNAL_NAMES:
        assert signal_meaning(lang, name) and name in shown, name
    for said in ("take this trick", "stich du", "这一墩你来拿"):
        assert (said in shown) == (said == signal_meaning(lang, "nimm")), said
    assert signal_meaning(lang, "\x1b]0;x") == ""  # (a hostile host's name: shown escaped, with no meaning)
