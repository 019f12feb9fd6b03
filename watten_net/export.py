"""A verified match as one JSON object for analysis tools (`watten-verify --export FILE`); the fields are documented
in docs/export.md, and `FORMAT` names their version.

Everything comes from the verifier's replay of the record, never from the record's own claims: the hands and
cards as far as the record reveals them (a Level 1 record after the match-end reveal holds every deal; a trustless
one the cards that were opened), the announcements, every action with who made it (a seat, or the reference
stand-in for a seat away), every trick and every score. Names are the roster's strings as they are (JSON escapes
them; a tool that prints them must treat them as untrusted).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from watten_net.engine.events import Event, EventKind
from watten_net.record_words import stand_in_events

if TYPE_CHECKING:
    from watten_net.verify import Report

FORMAT = "watten-net-match/1"

# Events of a hand that are bookkeeping of the deal, not moves: they go into `dealt` or nowhere.
_DEALING = {EventKind.DEAL, EventKind.PACKET, EventKind.ASIDE, EventKind.SEE, EventKind.TOOK, EventKind.OPEN_ASK,
            EventKind.OBLIGATION, EventKind.VIOLATION}


def export_match(report: Report) -> dict[str, Any]:
    """The whole match of a verified `report` (one whose replay got as far as a match: `report.match`)."""
    match = report.match
    assert match is not None
    out: dict[str, Any] = {
        "format": FORMAT, "game_id": report.game_id, "fingerprint": report.fingerprint, "verdict": report.verdict,
        "record_seat": report.seat, "preset": report.preset, "rules": match.rules.to_dict(),
        "players": report.to_json()["players"], "hands": [], "final_scores": list(report.final_scores),
        "winners": [], "bummerl": [],
    }
    by_bot = stand_in_events(match.events(), report.moves)
    hand: dict[str, Any] | None = None
    for index, e in enumerate(match.events()):
        if e.kind == EventKind.HAND_START:
            hand = _new_hand(e)
            out["hands"].append(hand)
        elif e.kind == EventKind.MATCH_END:
            out["winners"], out["bummerl"] = list(e.data["winners"]), list(e.data["bummerl"])
        elif hand is not None and _shown(e, report.seat):
            _add(hand, e, index in by_bot)
    return out


def _new_hand(e: Event) -> dict[str, Any]:
    d = e.data
    return {"hand": d["hand"] + 1, "attempt": d["attempt"] + 1, "dealer": d["dealer"], "forehand": d["forehand"],
            "cutter": d["cutter"], "value": d["value"], "dealt": {}, "schlag": None, "trump": None, "actions": [],
            "tricks": [], "result": None, "scores": None}


def _shown(e: Event, owner: int | None) -> bool:
    """A seat's record exports the signals its owner was shown, not the other side's (the host's holds all)."""
    return e.kind != EventKind.SIGNAL or owner is None or owner in (e.to or ())


def _add(hand: dict[str, Any], e: Event, by_stand_in: bool) -> None:
    d = e.data
    if e.kind == EventKind.DEAL and "cards" in d:
        hand["dealt"].setdefault(str(e.seat), []).extend(d["cards"])
    if e.kind in _DEALING:
        return
    if e.kind in (EventKind.SCHLAG, EventKind.TRUMP):
        hand[str(e.kind)] = d["rank" if e.kind == EventKind.SCHLAG else "suit"]
    if e.kind == EventKind.TRICK:
        hand["tricks"].append({"leader": d["leader"], "cards": list(d["cards"]), "winner": e.seat})
        return
    if e.kind in (EventKind.HAND_END, EventKind.REDEAL):
        hand["result"] = {k: v for k, v in d.items() if k not in ("scores", "hand")} | {"kind": str(e.kind)}
        hand["scores"] = list(d["scores"])
        return
    hand["actions"].append({"seat": e.seat, "kind": str(e.kind), "data": dict(d), "stand_in": by_stand_in})
