"""Plain-text rendering of reports and residual tables, for the command line."""

from __future__ import annotations

from ..data.evidence import Residual, Structure
from ..data.report import Report


def table(headers: list[str], rows: list[list]) -> str:
    cells = [[str(c) for c in headers]] + [[("" if c is None else str(c)) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def residual_rows(residuals: list[Residual], mark: bool = True, memory: bool = False) -> list[list]:
    """``mark``: the rows are a report's (``ResidualRow``), marked where the rules object;
    ``memory``: with the memory each is kept in (when something is offloaded)."""
    rows = []
    for r in residuals:
        row = [r.type, r.bytes, r.origin(), r.line or ""] + ([r.memory] if memory else [])
        if mark:
            row.insert(0, "!!" if r.offending else "")
            row.append(r.reason)
        rows.append(row)
    return rows


def residual_table(residuals: list[Residual], mark: bool = True, memory: bool = False) -> str:
    headers = ["type", "bytes", "saved value", "line"] + (["memory"] if memory else [])
    if mark:
        headers = [""] + headers + ["why it is marked"]
    return table(headers, residual_rows(residuals, mark, memory))


def checkpoint_lines(structure: Structure | None, depth: bool = True) -> list[str]:
    lines = []
    for checkpoint in structure.checkpoints if structure is not None else []:
        line = f" at line {checkpoint.line}" if checkpoint.line else ""
        lines.append(
            f"checkpoint{line}: policy {checkpoint.policy_text}"
            + (f", depth {checkpoint.depth}" if depth else "")
            + (" (off the differentiated path: it changes no gradient)" if checkpoint.on_path is False else "")
        )
    return lines


def render_report(report: Report) -> str:
    out = [f"{report.submission}: {report.verdict}", f"  {report.message}"]
    for note in report.notes:
        out.append(f"  note: {note}")
    if report.cases:
        rows = [
            [
                c.name,
                "yes" if c.sample else "",
                c.verdict,
                "" if c.max_error is None else f"{c.max_error:.2e}",
                c.message[:100],
            ]
            for c in report.cases
        ]
        out += ["", table(["case", "sample", "verdict", "max error", "message"], rows)]
    if report.residuals or report.missing_residuals:
        shown = report.residuals + report.missing_residuals
        memory = any(r.offloaded for r in shown + report.reference_residuals)
        host = (
            f"; offloaded to the host: yours {report.host_residual_bytes} bytes, reference "
            f"{report.reference_host_residual_bytes} bytes"
            if memory
            else ""
        )
        out += [
            "",
            f"Saved residuals (yours: {report.residual_bytes} bytes{' on the device' if memory else ''}; "
            f"reference: {report.reference_residual_bytes} bytes{host}):",
            residual_table(shown, memory=memory),
        ]
        if report.missing_residuals:
            out.append("(rows without a line are saved by the required policy but missing from yours)")
    out += checkpoint_lines(report.structure)
    if report.programs:
        out += ["", side_by_side(report.programs["forward"], report.programs["backward"])]
    if report.stdout:
        out += ["", "printed output (of the sample cases only):", report.stdout[:2000]]
    return "\n".join(out)


def side_by_side(left: str, right: str, titles=("forward (saves residuals)", "backward (uses them)")) -> str:
    a, b = left.splitlines(), right.splitlines()
    width = max([len(titles[0])] + [len(line) for line in a])
    rows = [f"{titles[0].ljust(width)} | {titles[1]}", f"{'-' * width}-+-{'-' * len(titles[1])}"]
    for i in range(max(len(a), len(b))):
        rows.append(f"{(a[i] if i < len(a) else '').ljust(width)} | {b[i] if i < len(b) else ''}".rstrip())
    return "\n".join(rows)
