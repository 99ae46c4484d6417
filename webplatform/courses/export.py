"""The gradebook as CSV: one row per learner, the columns a spreadsheet needs. A problem's points
are its credit times its weight; "points" and "out of" are the weighted total and the weights'.

Every text cell comes from users (names, titles) and so is escaped against formula injection: a
cell a spreadsheet would read as a formula (starting with ``= + - @``, a tab or a carriage return)
gets a leading apostrophe, which spreadsheets show as text (OWASP's advice). Numbers are written
by us, as numbers."""

from __future__ import annotations

import csv
import io
from datetime import timezone as dt_timezone

from .selectors import Gradebook

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def text(value: str) -> str:
    value = str(value)
    return "'" + value if value.startswith(FORMULA_STARTS) else value


def utc(moment) -> str:
    return moment.astimezone(dt_timezone.utc).strftime("%Y-%m-%d %H:%M:%S") if moment else ""


def status(cell, penalty_percent: int) -> str:
    if cell.solved:
        return f"late (-{penalty_percent}%)" if cell.late else "on time"
    return cell.verdict.replace("_", " ") if cell.verdict else "not attempted"


def gradebook_csv(book: Gradebook) -> str:
    penalty = book.assignment.late_penalty_percent
    header = ["username", "name", "email"]
    for problem in book.problems:
        title = problem.title
        header += [
            f"{title}: weight",
            f"{title}: points",
            f"{title}: status",
            f"{title}: attempts",
            f"{title}: accepted at (UTC)",
        ]
    header += ["points", "out of", "percent", "solved", "late", "extended due (UTC)", "left the course (UTC)"]
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([text(h) for h in header])
    for row in book.rows:
        learner = row.learner
        line = [text(learner.username), text(learner.get_full_name()), text(learner.email)]
        for problem, cell in zip(book.problems, row.cells):
            points = round(cell.credit * problem.weight, 4)
            line += [problem.weight, points, status(cell, penalty), cell.attempts, utc(cell.accepted_at)]
        line += [
            row.score.points,
            row.score.out_of,
            round(row.score.percent, 1),
            row.score.solved,
            row.score.late,
            utc(row.extended_to),
            utc(getattr(learner, "inactive_since", None)),
        ]
        writer.writerow(line)
    return out.getvalue()
