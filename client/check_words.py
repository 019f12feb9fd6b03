"""This seat's own check of its record, in the screen's language: the line "deal check FAILED: …" at the match's end.

The verifier (watten_net/verify.py) says what is wrong in English (`Problem.sentence()`), and a German or Chinese
screen showed that sentence. Its problems are machine-readable (where: the envelope and its type; why: a reason
code; who: the seat that cheated), so the words are put together here: the reason in words from the list below, or
the client's words for the same reason (client/i18n.py REASONS), or, for a reason neither knows, the verifier's own
English message. tests/test_check_words.py holds every reason the verifier names to words in every language.
"""

from __future__ import annotations

from watten_net.printable import visible
from watten_net.verify import FALSE_REFUSAL, KEY_NAMED_MISSING, PROVEN, TWO_CHAINS, Dispute, Problem, Report

from .i18n import Words

# The verifier's own reasons, as a clause after "deal check FAILED: …" (en, de, zh). The refusal reasons of the same
# name (client/i18n.py REASONS) are sentences for a refused request ("A signature does not verify."): here a clause.
RECORD_REASONS: dict[str, tuple[str, str, str]] = {
    "bad-metadata": ("the record is another seat's", "die Aufzeichnung gehört einem anderen Platz",
                     "这份记录属于另一个座位"),
    "bad-rules": ("the rules in the game's header are not valid", "die Regeln im Kopf des Spiels sind ungültig",
                  "开局信息中的规则无效"),
    "bad-seat": ("a message names a seat that is not at the table", "eine Nachricht nennt einen Platz, den es am "
                 "Tisch nicht gibt", "消息中有不在牌桌上的座位"),
    "bad-signature": ("a signature does not verify", "eine Unterschrift stimmt nicht", "一个签名验证失败"),
    "empty": ("the record holds no game", "die Aufzeichnung enthält kein Spiel", "记录中没有对局"),
    "header-mismatch": ("the game's header does not hold together", "der Kopf des Spiels ist nicht stimmig",
                        "开局信息前后不一致"),
    "host-equivocated": ("the host showed two different games", "der Host hat zwei verschiedene Spielverläufe "
                         "gezeigt", "主机展示了两个不同的对局"),
    "host-key-withheld": ("the host never revealed its game key", "der Host hat seinen Spielschlüssel nie "
                          "aufgedeckt", "主机始终没有公开它的对局密钥"),
    "incomplete": ("the record ends before the match does", "die Aufzeichnung endet vor der Partie",
                   "记录在比赛结束前就中断了"),
    "no-header": ("the record does not start with the game's header", "die Aufzeichnung beginnt nicht mit dem Kopf "
                  "des Spiels", "记录不是以开局信息开头的"),
    "older-version": ("an older version wrote the record", "eine ältere Version hat die Aufzeichnung geschrieben",
                      "记录由旧版本写成"),
    "own-envelope-missing": ("a message this seat sent is missing from the host's game", "eine Nachricht dieses "
                             "Platzes fehlt im Spielverlauf des Hosts", "本座位发出的一条消息不在主机的对局中"),
    "parse-error": ("a message in the record cannot be read", "eine Nachricht in der Aufzeichnung ist nicht lesbar",
                    "记录中的一条消息无法读取"),
    "unexpected-envelope": ("the host sent a message the game has no place for", "der Host hat eine Nachricht "
                            "geschickt, für die das Spiel keinen Platz hat", "主机发送了对局中不该出现的消息"),
    "withheld": ("the host held back a message and never showed it", "der Host hat eine Nachricht zurückgehalten "
                 "und nie gezeigt", "主机扣留了一条消息且从未公开"),
    "wrong-game": ("a message belongs to another game", "eine Nachricht gehört zu einem anderen Spiel",
                   "一条消息属于另一局"),
}

# A record verified with a note (`Report.verdict`): every deal verified, and the match was ended early or this seat
# disputed it; the notes' words are `check_<verdict>` (client/i18n.py).
CHECK_NOTES = ("abandoned", "disputed-claimed")

# A proven dispute (`Report.disputes`) by its kind (en, de, zh): what the host's own signatures contradict.
DISPUTE_KINDS: dict[str, tuple[str, str, str]] = {
    FALSE_REFUSAL: ("the host refused a valid message of this seat (its own signed receipt proves it)",
                    "der Host hat eine gültige Nachricht dieses Platzes abgelehnt (seine eigene unterschriebene "
                    "Quittung beweist es)", "主机拒绝了本座位的一条有效消息（它自己签名的回执证明了这一点）"),
    TWO_CHAINS: ("the host signed two different games (its own signatures prove it)",
                 "der Host hat zwei verschiedene Spielverläufe unterschrieben (seine eigenen Unterschriften beweisen "
                 "es)", "主机签署了两个不同的对局（它自己的签名证明了这一点）"),
    KEY_NAMED_MISSING: ("the host says a game key is missing that its own game shows revealed",
                        "der Host sagt, ein Spielschlüssel fehle, den sein eigener Spielverlauf aufgedeckt zeigt",
                        "主机声称缺少一个对局密钥，而它自己的对局显示该密钥已公开"),
}
_HAND = {"en": "hand {n}", "de": "Hand {n}", "zh": "第 {n} 手"}
_BEFORE_FIRST_HAND = {"en": "before the first hand", "de": "vor der ersten Hand", "zh": "第一手之前"}

# where in the record, and who cheated (en, de, zh)
_WHERE = {"en": "envelope {n} ({type})", "de": "Umschlag {n} ({type})", "zh": "信封 {n}（{type}）"}
_RECORD = {"en": "the record", "de": "die Aufzeichnung", "zh": "记录"}
_BLAME = {"en": " [seat {n} cheated]", "de": " [Platz {n} hat betrogen]", "zh": "［座位 {n} 作弊］"}
_LANG_INDEX = {"en": 0, "de": 1, "zh": 2}


def reason_said(reason: str, words: Words, fallback: str) -> str:
    """The verifier's reason as a clause in the screen's language (`fallback`: the verifier's English message)."""
    if reason in RECORD_REASONS:
        return RECORD_REASONS[reason][_LANG_INDEX.get(words.lang, 0)]
    return words.reason(reason, fallback).rstrip(".。")


def problem_said(problem: Problem, words: Words) -> str:
    """`Problem.sentence()` in the screen's language: 'Umschlag 12 (ActionAccepted): der Spielverlauf des Hosts
    folgt nicht den Regeln [Platz 2 hat betrogen]'. The envelope's type is the record's (hostile) string."""
    lang = words.lang if words.lang in _WHERE else "en"
    kind = visible(problem.type[:40])
    where = _WHERE[lang].format(n=problem.envelope, type=kind) if problem.envelope else _RECORD[lang]
    blame = _BLAME[lang].format(n=problem.seat) if problem.seat is not None else ""
    return f"{where}{words['colon']}{reason_said(problem.reason, words, visible(problem.message))}{blame}"


def own_check(report: Report, words: Words) -> tuple[str, str]:
    """This seat's verdict on its own record for the screen (`ScreenState.deal_status`, `check_note`): "verified"
    with a note when the match was ended early or disputed by this seat (every deal verified: it read "deal check
    FAILED: the host ended the match …"), else the first problem in the screen's language (or the first proven
    dispute, the host's own signatures contradicting it, in the screen's language too)."""
    if report.errors:
        return problem_said(report.errors[0], words), ""
    if report.verdict == "verified":
        return "verified", ""
    if report.verdict in CHECK_NOTES:
        return "verified", report.verdict
    if report.verdict == PROVEN and report.disputes:
        return dispute_said(report.disputes[0], words), ""
    return "; ".join(report.notes), ""


def dispute_said(dispute: Dispute, words: Words) -> str:
    """A proven dispute in the screen's language: where (the hand), then what the host's signatures contradict
    ('Hand 2: der Host hat eine gültige Nachricht dieses Platzes abgelehnt (…)'); an unknown kind: the verifier's
    English words."""
    lang = words.lang if words.lang in _HAND else "en"
    where = _HAND[lang].format(n=dispute.hand) if dispute.hand else _BEFORE_FIRST_HAND[lang]
    kind = DISPUTE_KINDS.get(dispute.kind)
    said = kind[_LANG_INDEX[lang]] if kind else visible(dispute.said)
    return f"{where}{words['colon']}{said}"
