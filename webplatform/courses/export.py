"""The gradebook as CSV: one row per learner, the columns a spreadsheet needs. A problem's points
are its credit times its weight; "points" and "out of" are the weighted total and the weights'.

The learner's columns come first, under the names Canvas's gradebook import reads (``Student``,
``ID``, ``SIS User ID``, ``SIS Login ID``, ``Section``: it matches a row to a student by any of
the ids, here the student id, and offers every later column as an assignment to fill or to
ignore), then ``username`` and ``email``: Moodle's CSV import maps a learner by ID number (the
student id), e-mail address or username, and each other column to a grade item or none. ``ID``
(the platform's own user id), ``SIS Login ID`` and ``Section`` are the platform's and left empty.

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
# Canvas's five identity columns, then ours. "Student" is the learner's name, or their username
# when they gave none; "SIS User ID" their student id.
LEARNER_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section", "username", "email")


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
    header = list(LEARNER_COLUMNS)
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
        line = [
            text(learner.get_full_name() or learner.username),
            "",
            text(getattr(learner, "student_id", "")),
            "",
            "",
            text(learner.username),
            text(learner.email),
        ]
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
