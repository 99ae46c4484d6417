"""Plain-text rendering of reports and residual tables, for the command line."""
from __future__ import annotations

from .evidence import Residual, Structure
from .report import Report


def table(headers: list[str], rows: list[list]) -> str:
    cells = [[str(c) for c in headers]] + [[("" if c is None else str(c)) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def residual_rows(residuals: list[Residual], mark: bool = True) -> list[list]:
    """``mark``: the rows are a report's (``ResidualRow``), marked where the rules object."""
    rows = []
    for r in residuals:
        row = [r.type, r.bytes, r.origin(), r.line or ""]
        if mark:
            row.insert(0, "!!" if r.offending else "")
            row.append(r.reason)
        rows.append(row)
    return rows


def residual_table(residuals: list[Residual], mark: bool = True) -> str:
    headers = ["type", "bytes", "saved value", "line"]
    if mark:
        headers = [""] + headers + ["why it is marked"]
    return table(headers, residual_rows(residuals, mark))


def checkpoint_lines(structure: Structure | None, depth: bool = True) -> list[str]:
    lines = []
    for checkpoint in structure.checkpoints if structure is not None else []:
        line = f" at line {checkpoint.line}" if checkpoint.line else ""
        lines.append(f"checkpoint{line}: policy {checkpoint.policy_text}"
                     + (f", depth {checkpoint.depth}" if depth else ""))
    return lines


def render_report(report: Report) -> str:
    out = [f"{report.submission}: {report.verdict}", f"  {report.message}"]
    for note in report.notes:
        out.append(f"  note: {note}")
    if report.cases:
        rows = [[c.name, "yes" if c.sample else "", c.verdict,
                 "" if c.max_error is None else f"{c.max_error:.2e}", c.message[:100]]
                for c in report.cases]
        out += ["", table(["case", "sample", "verdict", "max error", "message"], rows)]
    if report.residuals or report.missing_residuals:
        out += ["", f"Saved residuals (yours: {report.residual_bytes} bytes; "
                    f"reference: {report.reference_residual_bytes} bytes):",
                residual_table(report.residuals + report.missing_residuals)]
        if report.missing_residuals:
            out.append("(rows without a line are saved by the required policy but missing from yours)")
    out += checkpoint_lines(report.structure)
    if report.programs:
        out += ["", side_by_side(report.programs["forward"], report.programs["backward"])]
    if report.stdout:
        out += ["", "printed output:", report.stdout[:2000]]
    return "\n".join(out)


def side_by_side(left: str, right: str, titles=("forward (saves residuals)", "backward (uses them)")) -> str:
    a, b = left.splitlines(), right.splitlines()
    width = max([len(titles[0])] + [len(line) for line in a])
    rows = [f"{titles[0].ljust(width)} | {titles[1]}", f"{'-' * width}-+-{'-' * len(titles[1])}"]
    for i in range(max(len(a), len(b))):
        rows.append(f"{(a[i] if i < len(a) else '').ljust(width)} | {b[i] if i < len(b) else ''}".rstrip())
    return "\n".join(rows)
