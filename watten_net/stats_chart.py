"""A match's score over its hands, drawn in plain text for the terminal (`watten-stats`).

Plain text rather than a plotting library: the chart is a handful of small integers (a few sides, a few dozen
hands, a target of 11 to 21), which characters draw exactly at any terminal size, over ssh and in a pipe, and a
test can read; a library (plotext, say) would add a dependency for one picture and draw with colours and
sub-cell marks that a piped or pasted copy loses.
"""

from __future__ import annotations

from typing import Any

from watten_net.engine.events import EventKind
from watten_net.engine.seating import seating_for
from watten_net.printable import visible
from watten_net.record_words import NAME_LIMIT

MAX_ROWS = 12
COLUMN = 3  # characters per hand


def score_steps(match: Any) -> list[list[int]]:
    """The scores before the first hand and after every hand end (and redeal penalty), in order."""
    steps = [[0] * seating_for(match.rules).scorers]
    for e in match.events():
        if e.kind in (EventKind.HAND_END, EventKind.REDEAL):
            steps.append(list(e.data["scores"]))
    return steps


def score_chart(report: Any) -> str:
    """The chart of one verified report's match: one mark per scorer (its number) per hand, a legend below."""
    match = report.match
    steps = score_steps(match)
    target = max(int(match.rules.target), *(max(s) for s in steps))
    step = -(-target // MAX_ROWS)  # points a row stands for: a row per point up to 12, else a row per 2 or more
    rows = -(-target // step)
    grid = [[" "] * (len(steps) * COLUMN) for _ in range(rows + 1)]
    for x, scores in enumerate(steps):
        for scorer, score in enumerate(scores):
            y = score // step
            cell = grid[y][x * COLUMN + 1]
            grid[y][x * COLUMN + 1] = str(scorer) if cell == " " else "*"
    lines = [f"Game {report.fingerprint} ({visible(report.preset) or 'custom'}): score after each hand, "
             f"target {match.rules.target}"]
    for y in range(rows, -1, -1):
        label = y * step
        lines.append(f"{label:>3} ┤{''.join(grid[y]).rstrip()}")
    lines.append("    └" + "─" * (len(steps) * COLUMN))
    lines.append("     " + "".join(f"{x:^{COLUMN}}" for x in range(len(steps))) + " hand")
    lines += ["     " + part for part in _legend(report, match)]
    rows_say = f"; a row is {step} points, a mark at the row at or below the score" if step > 1 else ""
    lines.append(f"     (* two at once{rows_say})")
    return "\n".join(lines)


def _legend(report: Any, match: Any) -> list[str]:
    seating = seating_for(match.rules)
    parts = []
    for scorer in range(seating.scorers):
        seats = [s for s in range(match.rules.players) if seating.scorer_of[s] == scorer]
        names = ", ".join(visible(report.names[s][:NAME_LIMIT]) for s in seats if s < len(report.names))
        final = report.final_scores[scorer] if scorer < len(report.final_scores) else 0
        parts.append(f"{scorer} = {names}: {final}")
    return parts
