"""`watten-stats [DIR|RECORD...]`: what the evenings' records add up to, per player and per preset.

Every record is verified first (`watten_net.verify`); one that fails is listed as skipped with the reason, and
counts for nothing. A match is counted once however many parties' records hold it (by its game id): the host's
record and every seat's replay to the same public match. A player is a key (the roster's public key: a name is
the player's own word and may change), shown with every name it used. The numbers come from the verifier's
replay of the rules, never from what a record claims.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from watten_net.engine.events import EventKind
from watten_net.engine.seating import seating_for
from watten_net.paths import data_subdir
from watten_net.printable import visible
from watten_net.record_words import NAME_LIMIT
from watten_net.stats_chart import score_chart
from watten_net.verify import Report, record_paths, verify_file


@dataclass
class PlayerTotals:
    """One player's totals over every match counted (by key; `names` every name the key played under)."""

    key: str
    names: list[str] = field(default_factory=list)
    matches: int = 0
    wins: int = 0
    bummerl: int = 0  # the Bummerl the player's side (or the player, with three) took
    hands: int = 0  # hands played to a result (a redeal is none)
    hands_won: int = 0
    points_for: int = 0  # the final scores of the player's side (or the player's, with three), penalties included
    points_against: int = 0  # the final scores of the others
    raises: int = 0
    raises_won: int = 0  # raises made in hands the player's side then won
    folds: int = 0
    stake_total: int = 0  # sum of the hands' values (for the average stake)
    won_as_announcer: int = 0  # hands won where the player named the Schlag or the trump

    @property
    def average_stake(self) -> float:
        return round(self.stake_total / self.hands, 2) if self.hands else 0.0

    def row(self) -> dict[str, Any]:
        out = asdict(self)
        del out["stake_total"]
        return out | {"average_stake": self.average_stake}


@dataclass
class PresetTotals:
    preset: str
    matches: int = 0
    hands: int = 0
    stake_total: int = 0

    def row(self) -> dict[str, Any]:
        average = round(self.stake_total / self.hands, 2) if self.hands else 0.0
        return {"preset": self.preset, "matches": self.matches, "hands": self.hands, "average_stake": average}


@dataclass
class Evening:
    """Everything counted: the matches (one report each), the records that held them, the records skipped."""

    players: dict[str, PlayerTotals] = field(default_factory=dict)
    presets: dict[str, PresetTotals] = field(default_factory=dict)
    matches: list[Report] = field(default_factory=list)
    records: dict[str, list[str]] = field(default_factory=dict)  # game id -> the records that hold it
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (record, why)

    def add(self, report: Report) -> None:
        if not report.ok or report.match is None:
            self.skipped.append((report.path, _why(report)))
            return
        self.records.setdefault(report.game_id, []).append(report.path)
        if len(self.records[report.game_id]) > 1:
            return  # (the same match in another party's record)
        self.matches.append(report)
        _count_match(self, report)


def _why(report: Report) -> str:
    if report.errors:
        problem = report.errors[0]
        return problem.sentence() if problem.envelope else problem.message
    return "; ".join(report.notes) or report.verdict


def _count_match(evening: Evening, report: Report) -> None:
    """Add one verified match's facts to its players' and its preset's totals."""
    match = report.match
    assert match is not None
    seating = seating_for(match.rules)
    people = [evening.players.setdefault(key, PlayerTotals(key)) for key in report.keys]
    for seat, (person, name) in enumerate(zip(people, report.names, strict=False)):
        if name not in person.names:
            person.names.append(name)
        person.matches += 1
        mine = seating.scorer_of[seat]
        person.points_for += report.final_scores[mine]
        person.points_against += sum(report.final_scores) - report.final_scores[mine]
    preset = evening.presets.setdefault(report.preset or "custom", PresetTotals(report.preset or "custom"))
    preset.matches += 1
    dealer, raisers = 0, [0] * len(people)
    for e in match.events():
        d = e.data
        if e.kind == EventKind.HAND_START:
            dealer, raisers = d["dealer"], [0] * len(people)
        elif e.kind == EventKind.RAISE:
            raisers[e.seat] += 1
            people[e.seat].raises += 1
        elif e.kind == EventKind.FOLD:
            people[e.seat].folds += 1
        elif e.kind == EventKind.HAND_END:
            preset.hands += 1
            preset.stake_total += d["points"]
            _count_hand(people, d["seats"], d["points"], raisers, seating.announcers_of[dealer])
        elif e.kind == EventKind.MATCH_END:
            for seat, person in enumerate(people):
                scorer = seating.scorer_of[seat]
                person.wins += scorer in d["winners"]
                person.bummerl += d["bummerl"][scorer] if scorer < len(d["bummerl"]) else 0


def _count_hand(people: list[PlayerTotals], winners: list[int], points: int, raisers: list[int],
                announcers: tuple[int, ...]) -> None:
    for seat, person in enumerate(people):
        person.hands += 1
        person.stake_total += points
        if seat in winners:
            person.hands_won += 1
            person.raises_won += raisers[seat]
            person.won_as_announcer += seat in announcers


def count(paths: Sequence[str]) -> Evening:
    """Verify every record named (a folder: every record in it) and count the matches they hold."""
    evening = Evening()
    # (oldest first: the chart shows the newest; a record's time is its file's)
    for path in sorted(record_paths(paths), key=_written):
        evening.add(verify_file(path))
    return evening


def _written(path: str) -> tuple[float, str]:
    try:
        return os.path.getmtime(path), path
    except OSError:
        return 0.0, path


# ---------------------------------------------------------------------------------------------------------------
# Output: a table, JSON, CSV
# ---------------------------------------------------------------------------------------------------------------

COLUMNS = (("matches", "M"), ("wins", "W"), ("bummerl", "B"), ("hands", "H"), ("hands_won", "HW"),
           ("points_for", "P+"), ("points_against", "P-"), ("raises", "R"), ("raises_won", "RW"), ("folds", "F"),
           ("average_stake", "Stake"), ("won_as_announcer", "Ann"))
LEGEND = ("M matches, W won, B Bummerl, H hands, HW hands won, P+/P- points for/against,\n"
          "R raises made, RW raises in hands won, F folds, Stake average hand value,\n"
          "Ann hands won as announcer (naming the Schlag or the trump)")


def table(evening: Evening) -> str:
    """The players' totals as a table of plain text (names through `visible`: they are the players' own words)."""
    widths = [max(len(short), 3) for _, short in COLUMNS]
    head = f"{'player':<20} {'key':<8} " + " ".join(f"{s:>{w}}" for (_, s), w in zip(COLUMNS, widths, strict=True))
    lines = [head, "-" * len(head)]
    ranked = sorted(evening.players.values(), key=lambda p: (-p.wins, -p.points_for, p.key))
    for person in ranked:
        row = person.row()
        name = visible(" / ".join(n[:NAME_LIMIT] for n in person.names))
        name = name if len(name) <= 20 else name[:19] + "…"
        lines.append(f"{name:<20} {person.key[:8]} " + " ".join(
            f"{row[key]:>{w}}" for (key, _), w in zip(COLUMNS, widths, strict=True)))
    lines.append(LEGEND)
    presets = ", ".join(f"{visible(p.preset)}: {p.matches} match(es), {p.hands} hands, stake {p.row()['average_stake']}"
                        for p in evening.presets.values())
    lines.append(f"Presets: {presets or 'none'}")
    return "\n".join(lines)


def to_json(evening: Evening) -> dict[str, Any]:
    return {
        "players": [p.row() for p in evening.players.values()],
        "presets": [p.row() for p in evening.presets.values()],
        "matches": [{"game_id": r.game_id, "fingerprint": r.fingerprint, "preset": r.preset, "hands": r.hands,
                     "final_scores": r.final_scores, "verdict": r.verdict, "records": evening.records[r.game_id]}
                    for r in evening.matches],
        "skipped": [{"record": path, "reason": why} for path, why in evening.skipped],
    }


def to_csv(evening: Evening) -> str:
    """One row per player, for spreadsheets (names joined by " / ", through `visible`: CSV has no escapes, and the
    standard output may be a terminal; the key names the player exactly)."""
    out = io.StringIO()
    fields = ["key", "names", *(key for key, _ in COLUMNS)]
    writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for person in evening.players.values():
        row = person.row()
        writer.writerow({k: (visible(" / ".join(row["names"])) if k == "names" else row[k]) for k in fields})
    return out.getvalue()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="watten-stats",
        description="Totals over every verified game record: per player (by key, with the names used) and per "
        "preset, and a chart of the newest match's score hand by hand. A match is counted once however many "
        "parties' records hold it; a record that fails verification is listed as skipped, with the reason.",
    )
    parser.add_argument("records", nargs="*", metavar="DIR|RECORD",
                        help="records or folders of them (default: this installation's records folder)")
    shape = parser.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true", help="everything as one JSON object")
    shape.add_argument("--csv", action="store_true", help="the players' totals as CSV")
    parser.add_argument("--charts", type=int, default=1, metavar="N",
                        help="chart the newest N matches (default 1; 0: none)")
    args = parser.parse_args(argv)
    evening = count(args.records or [str(data_subdir("records"))])
    if args.json:
        print(json.dumps(to_json(evening), sort_keys=True))
    elif args.csv:
        sys.stdout.write(to_csv(evening))
    else:
        _print_text(evening, args.charts)
    return 0 if evening.matches or not evening.skipped else 1


def _print_text(evening: Evening, charts: int) -> None:
    records = sum(len(paths) for paths in evening.records.values())
    print(f"{len(evening.matches)} match(es) from {records} verified record(s)")
    if evening.players:
        print(table(evening))
    for report in evening.matches[::-1][:max(charts, 0)]:
        print()
        print(score_chart(report))
    if evening.skipped:
        print("\nSkipped (not verified):")
        for path, why in evening.skipped:
            print(f"  {visible(path)}: {visible(why)}")


def run() -> int:
    """Console entry point: a closed pipe (`watten-stats | head`) is no error."""
    try:
        return main()
    except BrokenPipeError:
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    raise SystemExit(run())
