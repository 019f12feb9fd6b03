"""This seat's own check of its record in the screen's language (client/check_words.py): the match's end said the
verifier's English sentence ("envelope 12 (ActionAccepted): the accepted action …") on a German or Chinese screen."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from client.check_words import RECORD_REASONS, own_check, problem_said, reason_said
from client.i18n import Words
from watten_net.verify import Problem

VERIFY = Path(__file__).resolve().parent.parent / "watten_net" / "verify.py"


def _verifier_reasons() -> set[str]:
    """Every reason verify.py names as a literal in a problem it raises (`_problem(seq, type, "reason", …)`) or in its
    table of what a differing envelope means."""
    source = VERIFY.read_text(encoding="utf-8")
    named = re.findall(r'_problem\(\s*[^,]+,\s*[^,]+,\s*"([a-z-]+)"', source)
    named += re.findall(r'Problem\(\s*[^,]+,\s*[^,]+,\s*"([a-z-]+)"', source)
    named += re.findall(r'^    "\w+": \("([a-z-]+)", "', source, flags=re.MULTILINE)  # (its table of mismatches)
    return set(named)


def test_every_reason_the_verifier_names_has_words_in_every_language() -> None:
    reasons = _verifier_reasons()
    assert {"replay-mismatch", "own-envelope-missing", "header-mismatch", "wrong-series"} <= reasons
    for lang in ("en", "de", "zh"):
        words = Words(lang)
        for reason in reasons:
            said = reason_said(reason, words, fallback="<english>")
            assert said != "<english>" and said.strip(), (lang, reason)
    assert all(len({*said}) == 3 for said in RECORD_REASONS.values())  # (three different languages)


@pytest.mark.parametrize(("lang", "expected"), [
    ("de", "Umschlag 12 (ActionAccepted): der Spielverlauf des Hosts folgt nicht den Regeln [Platz 2 hat betrogen]"),
    ("zh", "信封 12（ActionAccepted）：主机的对局过程不符合规则［座位 2 作弊］"),
    ("en", "envelope 12 (ActionAccepted): the host's game does not follow the rules [seat 2 cheated]"),
])
def test_a_failed_check_reads_in_the_screens_language(lang: str, expected: str) -> None:
    problem = Problem(12, "ActionAccepted", "replay-mismatch", "the accepted action or its result differs", seat=2)
    assert problem_said(problem, Words(lang)) == expected


def test_the_record_as_a_whole_a_hostile_type_and_an_unknown_reason() -> None:
    missing = Problem(0, "", "own-envelope-missing", "an envelope this seat sent is not in the record")
    assert problem_said(missing, Words("de")) == "die Aufzeichnung: eine Nachricht dieses Platzes fehlt im " \
                                                 "Spielverlauf des Hosts"
    hostile = Problem(3, "\x1b[2JX", "something-new", "the host's step is refused: \x1b]0;x")
    said = problem_said(hostile, Words("zh"))
    assert "\x1b" not in said and said.startswith("信封 3（\\x1b[2JX）：the host's step is refused")


def test_an_abandoned_match_reads_verified_with_its_note_in_the_screens_language() -> None:
    # found playing at 80x24 under --lang zh and leaving mid-match: "你自己对记录的检查：发牌验证失败：the host ended
    # the match at hand 3, 5:0 (host-shutdown); it knew every deal" (FAILED, and English, though every deal verified)
    from client import log_view
    from client import viewmodel as vm
    from watten_net.verify import Report

    ended = Report(path="r.wrec", ok=True, verdict="abandoned", notes=["the host ended the match at hand 3, 5:0"])
    for lang, said in (("zh", "你自己对记录的检查：发牌已验证 ✓ · 主机提前结束了比赛"),
                       ("de", "Austeilen geprüft ✓ · der Host hat die Partie vorzeitig beendet")):
        words = Words(lang)
        status, note = own_check(ended, words)
        assert (status, note) == ("verified", "abandoned")
        state = vm.ScreenState(view=None, deal_status=status, check_note=note)
        assert said in "".join(t for _, t in log_view.summary(state, words, None))
    assert own_check(Report(path="r", ok=True, verdict="verified"), Words("en")) == ("verified", "")
    failed = Report(path="r", errors=[Problem(4, "HandEnd", "score-mismatch", "…")])
    assert own_check(failed, Words("de")) == ("Umschlag 4 (HandEnd): der Spielstand des Hosts ist falsch", "")


def test_a_proven_dispute_reads_in_the_screens_language() -> None:
    """A record the host's own signatures contradict: the screen said the verifier's English notes ("proven (false
    refusal), hand 2: the host refused seat 1's …") on a German or Chinese screen. Every kind of proven dispute the
    verifier names has words in every language; one it may name later falls back to its English words."""
    from client.check_words import DISPUTE_KINDS, dispute_said
    from watten_net import verify

    kinds = {verify.FALSE_REFUSAL, verify.TWO_CHAINS, verify.KEY_NAMED_MISSING}
    assert set(DISPUTE_KINDS) == kinds and all(len({*said}) == 3 for said in DISPUTE_KINDS.values())
    refused = verify.Dispute(verify.FALSE_REFUSAL, 2, "the host refused seat 1's DeckSealedSignature (wrong-hash) …")
    report = verify.Report(path="r", verdict=verify.PROVEN, notes=[refused.note()], disputes=[refused])
    assert own_check(report, Words("de")) == ("Hand 2: der Host hat eine gültige Nachricht dieses Platzes abgelehnt "
                                              "(seine eigene unterschriebene Quittung beweist es)", "")
    assert own_check(report, Words("zh"))[0].startswith("第 2 手：主机拒绝了本座位的一条有效消息")
    early = verify.Dispute(verify.TWO_CHAINS, 0, "…")
    assert dispute_said(early, Words("en")) == ("before the first hand: the host signed two different games (its own "
                                                "signatures prove it)")
    unknown = verify.Dispute("something new", 3, "the host did \x1b[2J something")
    assert dispute_said(unknown, Words("de")) == "Hand 3: the host did \\x1b[2J something"
