"""`watten-replay`'s parts without a terminal (issue 14 item 1): the steps of a recorded match are the engine's own
replay of its inputs; a record that fails replays up to its failing envelope, with exactly the moves the host
accepted before it; what the screen builds from a record's names holds no control byte. Records from `LocalTable`
(the real dealing layer, in process); the terminal itself is tests/test_replay_tmux.py's."""

from __future__ import annotations

import dataclasses
import random
import re
from typing import Any

import pytest

from client import viewmodel as vm
from client.i18n import Words
from client.replay import Replay
from client.replay_steps import cards_of, next_index, steps_of
from watten_net.deal.protocol import parse_envelope
from watten_net.engine import Match, Rules
from watten_net.engine.events import EventKind
from watten_net.record import KIND_HOST, KIND_WITHHELD, Entry
from watten_net.v1 import watten_pb2 as pb
from watten_net.verify import ABANDONED, FAILED, Report, replay_before, verify_entries

from local_table import LocalTable
from tampering import Game, edit_host, play_game, signed

RULES = dataclasses.replace(Rules.preset("bavarian", 4), target=5)
RAW_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@pytest.fixture(scope="module")
def game() -> Game:
    return play_game("replay", RULES, seed=14)


def test_every_step_is_the_engines_replay_of_the_inputs_so_far(game: Game) -> None:
    report = verify_entries(game.host())
    match = report.match
    assert report.verdict == "verified" and isinstance(match, Match)
    steps = steps_of(match)
    history = match.history()
    moves = [i for i, item in enumerate(history) if item[0] != "deck"]
    assert len(steps) == len(moves) + 1 and steps[-1].match == match
    for number, at in enumerate(moves, start=1):
        assert steps[number].match == Match.replay(match.rules, history[:at + 1], match.first_dealer)
        assert (steps[number].seat, steps[number].action) == history[at]
    # every seat's five cards, known: a verified deal's hands come from the seeds
    dealt = next(s for s in steps if sum(len(cards_of(s.match, seat)) for seat in range(4)) == 20)
    assert all(len(cards_of(dealt.match, seat)) == 5 for seat in range(4))
    assert "▒▒" not in " ".join(" ".join(cards_of(dealt.match, seat)) for seat in range(4))


def test_tricks_and_hands_are_jumped_to(game: Game) -> None:
    report = verify_entries(game.host())
    assert report.match is not None
    steps = steps_of(report.match)
    first_trick = next_index(steps, 0, True, "trick")
    assert steps[first_trick].ends_trick() and not any(s.ends_trick() for s in steps[:first_trick])
    first_hand_end = next_index(steps, 0, True, "hand")
    assert any(e.kind == EventKind.HAND_END for e in steps[first_hand_end].events)
    assert next_index(steps, first_hand_end, False, "hand") == 0
    assert next_index(steps, len(steps) - 1, True, "trick") == len(steps) - 1


def _chain(entries: list[Entry]) -> list[int]:
    """The indexes of the record's chain entries (host envelopes and the stubs of those withheld from its owner)."""
    return [i for i, e in enumerate(entries) if e.kind in (KIND_HOST, KIND_WITHHELD)]


def _chain_types(entries: list[Entry]) -> list[str]:
    def type_of(entry: Entry) -> str:
        if entry.kind == KIND_HOST:
            return str(parse_envelope(entry.data, host=True).type)
        stub = pb.Withheld()
        stub.ParseFromString(entry.data)
        return str(stub.type)

    return [type_of(entries[i]) for i in _chain(entries)]


def _broken_at(entries: list[Entry], seq: int) -> list[Entry]:
    """The record with the host's signature of chain envelope `seq` broken."""
    out = list(entries)
    index = _chain(entries)[seq - 1]
    entry = out[index]
    assert entry.kind == KIND_HOST
    out[index] = Entry(entry.kind, entry.data[:-1] + bytes([entry.data[-1] ^ 1]))
    return out


@pytest.mark.parametrize("owner", [None, 1])
def test_a_failing_record_replays_the_moves_accepted_before_its_failing_envelope(game: Game, owner: int | None) -> None:
    """The host's record, and a seat's (whose stubs the host's disclosures at the match's end open, though they stand
    after the failure): at any envelope whose signature is broken."""
    entries = game.record(owner)
    types = _chain_types(entries)
    honest = verify_entries(entries).match
    assert honest is not None
    hosts = [seq for seq, i in enumerate(_chain(entries), start=1) if entries[i].kind == KIND_HOST]
    for seq in hosts[1::max(1, len(hosts) // 25)]:
        broken = _broken_at(entries, seq)
        report = verify_entries(broken)
        assert report.verdict == FAILED and report.errors[0].envelope == seq
        match = replay_before(broken, report)
        accepted = types[:seq - 1].count("ActionAccepted")
        if match is None:  # (a failure before the first deck was ready: no table to show yet)
            assert accepted == 0, seq
            continue
        moves = [item for item in match.history() if item[0] != "deck"]
        assert len(moves) == accepted, (seq, types[seq - 1])
        assert moves == [item for item in honest.history() if item[0] != "deck"][:accepted]


def test_a_record_whose_header_fails_has_nothing_to_replay(game: Game) -> None:
    broken = _broken_at(game.host(), 1)
    report = verify_entries(broken)
    assert replay_before(broken, report) is None


def test_nothing_the_record_names_reaches_the_screen_raw(game: Game) -> None:
    report: Report = verify_entries(game.seat(2), meta={"seat": 2})
    assert report.match is not None and report.seat == 2
    report.names = ["\x1b[2J\x1b[32mverified", "Anna\u202e", "\x07Bert", "Zoë"]
    report.fingerprint = "\x1b]0;pwned\x07"
    replay = Replay(report, steps_of(report.match), Words("en"))
    for index in range(len(replay.steps)):
        replay.go(index)
        view = replay.state.view
        story = replay.state.story
        assert story is not None
        shown = [*replay.header(), *replay.hands(), *replay.step_line(), *vm.seats_pane(view, replay.words,
                 replay.state), *replay.alert(view), *vm.scores_pane(view, replay.words)]
        text = "".join(t for _, t in shown) + "\n".join(line.text for line in story.lines)
        assert not RAW_CONTROL.search(text.replace("\n", "")), repr(text)
    assert "\\x07Bert (you)" in "".join(t for _, t in replay.hands())  # (the owner, its name escaped)


def test_the_hands_pane_lines_up_chinese_names_and_marks_a_cut_name(game: Game) -> None:
    """Its rows cut and padded the names by characters (`name[:14]:<14`): a Chinese name, two columns a character,
    pushed that row's cards out of line, and a long name was cut without a mark."""
    from prompt_toolkit.utils import get_cwidth

    report: Report = verify_entries(game.seat(2), meta={"seat": 2})
    assert report.match is not None
    report.names = ["王小明", "Anna", "Maximiliane Theresia", "李四"]
    replay = Replay(report, steps_of(report.match), Words("en"))
    replay.go(len(replay.steps) // 2)
    names = [t for _, t in replay.hands() if re.match(r"  [0-3] ", t)]
    assert len(names) == 4 and len({get_cwidth(t) for t in names}) == 1, names
    assert "Maximiliane T…" in names[2], names


def test_a_match_stopped_early_replays_as_far_as_it_went() -> None:
    rng = random.Random(3)
    table = LocalTable(RULES, seed=3)
    table.play_until(lambda: len(table.host.chain) >= 60, rng=rng)
    table.deliver(table.host.abandon("host-shutdown"))
    while table.flush():
        pass
    report = verify_entries(table.seat_entries(1), meta={"seat": 1})
    assert report.verdict == ABANDONED and report.match is not None
    replay = Replay(report, steps_of(report.match), Words("en"))
    replay.go(10**6)  # (End: the last step there is)
    assert replay.steps[-1].match == report.match and not report.match.is_over
    said = "".join(t for _, t in replay.step_line())
    assert said.endswith("the record ends here: the match went no further"), said
    header = "".join(t for _, t in replay.header())
    assert "abandoned (every deal verified)" in header and "the host ended the match at hand" in header


def test_the_stand_ins_moves_are_marked_as_watten_verify_marks_them() -> None:
    game = play_game("away", Rules.preset("bavarian"), seed=14, absences={30: (2, 60)})
    report = verify_entries(game.host())
    assert report.match is not None
    bot_moves = [m for m in report.moves if m[2] == "bot"]
    assert bot_moves
    replay = Replay(report, steps_of(report.match), Words("en"))
    assert len(replay.stand_in) == len(bot_moves)
    assert [(replay.steps[i].seat, replay.steps[i].action) for i in sorted(replay.stand_in)] == [
        (seat, action) for seat, action, _ in bot_moves]
    replay.go(min(replay.stand_in))
    assert "".join(t for _, t in replay.step_line()).endswith("(the stand-in, for a seat away)")


def test_a_host_that_rewrites_a_move_and_signs_again_is_replayed_up_to_it(game: Game) -> None:
    """The dishonest host's record: a played card changed and the whole chain signed again, so that only the replay
    can tell. The replay stops before that ActionAccepted, with every move the honest game had there."""
    entries = game.host()
    hosts = [i for i, e in enumerate(entries) if e.kind == KIND_HOST]
    plays = [i for i in hosts if signed(entries[i]).type == "ActionAccepted"
             and str(signed(entries[i]).payload.action).startswith("play ")]
    index = plays[len(plays) // 2]
    seq = hosts.index(index) + 1

    def other_card(payload: Any) -> None:
        payload.action = "play HK" if payload.action != "play HK" else "play S7"

    forged = edit_host(entries, index, other_card, game.host_key)
    report = verify_entries(forged)
    assert report.verdict == FAILED and report.errors[0].envelope == seq, report.errors[0].sentence()
    match = replay_before(forged, report)
    honest = verify_entries(entries).match
    assert match is not None and honest is not None
    accepted = [signed(entries[i]).type for i in hosts[:seq - 1]].count("ActionAccepted")
    moves = [item for item in match.history() if item[0] != "deck"]
    assert moves == [item for item in honest.history() if item[0] != "deck"][:accepted] and accepted > 0


@pytest.mark.parametrize(("lang", "verdict"), [("en", "Record: verified ✓"), ("de", "Aufzeichnung: geprüft ✓"),
                                               ("zh", "记录: 已验证 ✓")])
def test_the_verdict_is_said_in_the_screens_language(game: Game, lang: str, verdict: str) -> None:
    report = verify_entries(game.host())
    assert report.match is not None
    header = "".join(t for _, t in Replay(report, steps_of(report.match), Words(lang)).header())
    assert verdict in header, header
