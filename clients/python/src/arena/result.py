"""A graded submission, for people: ``str(result)`` for a terminal, ``_repr_html_`` for a
notebook (the verdict, the message, the cases and the residual table; for an inspection, what
the code saves, its checkpoints and its memory, with the site's picture in a notebook)."""

from __future__ import annotations

import html
import re
import shutil
import textwrap
import warnings

from .schema import DEVICE, Memory, PolicyExploration, ReferenceResidual, ResidualRow, Submission, read

ACCEPTED = "accepted"
NOTE_INDENT = "      "


def table(headers: list[str], rows: list[list], *, width: int | None = None, notes: list[str] | None = None) -> str:
    """A plain-text table. ``notes``: a text per row, printed in full beneath it, indented and
    wrapped (a reason or a message longer than a column can be); a row wider than ``width`` is
    cut."""
    cells = [headers] + [["" if cell is None else str(cell) for cell in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = []
    for index, row in enumerate(cells):
        line = "  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip()
        lines.append(line[: width - 1] + "…" if width and len(line) > width else line)
        if index == 0:
            lines.append("  ".join("-" * w for w in widths)[: width or None])
        elif notes and notes[index - 1]:
            lines.append(
                textwrap.fill(
                    notes[index - 1],
                    width or 100,
                    initial_indent=NOTE_INDENT,
                    subsequent_indent=NOTE_INDENT,
                    break_long_words=False,
                )
            )
    return "\n".join(lines)


def _kept_in(row: ResidualRow | ReferenceResidual) -> str:
    """Where a saved value waits for the backward pass: the host for what a policy offloads."""
    return "device" if row.memory == DEVICE else "host (offloaded)"


class Result:
    """What ``arena.submit`` and ``arena.run`` return: the site's submission, graded."""

    def __init__(self, data: dict, *, site: str = ""):
        self.data = data  # the site's JSON, as it came
        self.site = site
        self.submission: Submission = read(Submission, data)
        report = self.submission.result
        self.id: int = self.submission.id
        self.problem: str = self.submission.problem
        self.kind: str = self.submission.kind
        self.verdict: str | None = self.submission.verdict
        self.message: str = report.message if report else self.submission.message
        self.description: str = report.description if report else ""
        self.cases = report.cases if report else []
        self.residuals = report.residuals if report else []
        self.reference_residuals = report.reference_residuals if report else []
        self.memory: Memory = report.memory if report else Memory()
        self.checkpoints = report.checkpoints if report else []
        self.time_s: float | None = report.time_s if report else None
        # The module arena wrote around a function (``arena.source.module_source``): the site's line
        # numbers are its lines, not the notebook's; None when the code was sent as text.
        self.module_source: str | None = None

    @property
    def required_residuals(self) -> list[ReferenceResidual]:
        warnings.warn("required_residuals is now reference_residuals", DeprecationWarning, stacklevel=2)
        return self.reference_residuals

    @property
    def accepted(self) -> bool:
        return self.verdict == ACCEPTED

    @property
    def inspected(self) -> bool:
        """An inspection that ran: it has no verdict (one that could not run has the failure's)."""
        return self.kind == "inspect" and self.submission.done and self.verdict is None

    @property
    def url(self) -> str:
        return self.site + self.submission.url

    def __bool__(self) -> bool:
        return self.accepted

    def __repr__(self) -> str:
        return f"<Result #{self.id} {self.problem} ({self.kind}): {self.verdict}>"

    # --- terminal -------------------------------------------------------------------------------

    @property
    def offloads(self) -> bool:
        """Some value is kept on the host (an offloading policy): the tables then say where each is."""
        return any(r.memory != DEVICE for r in [*self.residuals, *self.reference_residuals])

    def _residual_rows(self) -> list[list]:
        return [
            [
                "missing" if r.missing else "!!" if r.offending else "",
                r.type,
                r.bytes,
                r.saved_value,
                r.line,
            ]
            + ([_kept_in(r)] if self.offloads else [])
            for r in self.residuals
        ]

    def bytes_line(self) -> str:
        if self.kind == "inspect":
            return f"Saved for the backward pass: {self.memory.residual_bytes} bytes."
        yours, required = self.memory.residual_bytes, self.memory.reference_residual_bytes
        over = yours - required
        comparison = (
            f"{over} bytes more than needed"
            if over > 0
            else f"{-over} bytes fewer (and more recomputation)"
            if over < 0
            else "the same"
        )
        line = (
            f"Saved for the backward pass: yours {yours} bytes, the required policy's {required} bytes: {comparison}."
        )
        if self.offloads:
            host, required_host = self.memory.host_residual_bytes, self.memory.reference_host_residual_bytes
            line += f" On the host (offloaded, not counted above): yours {host} bytes, the required policy's {required_host}."
        return line

    def cost_line(self) -> str:
        """The measured gradient step (recorded submissions and inspections: a sample run is not
        measured)."""
        memory = self.memory
        if memory.flops is None:
            return ""
        line = f"One gradient step: {memory.flops} FLOPs, peak {memory.peak_bytes} bytes live"
        if memory.recomputed_operations is not None:
            line += f"; the backward pass recomputes {memory.recomputed_operations} operations"
        line += "."
        if memory.xla_flops is not None:
            line += (
                f" These are the judge's own figures, the ones budgets and the leaderboard read; XLA's estimates "
                f"({memory.xla_flops} FLOPs, peak {memory.xla_peak_bytes} bytes) are shown for "
                f"reference only."
            )
        return line

    def lines_note(self) -> str:
        """What the lines a message cites hold, where the code sent was written from a function:
        the learner knows their function, not the module around it."""
        if not self.module_source:
            return ""
        lines = self.module_source.splitlines()
        cited = sorted({int(n) for n in re.findall(r"\bline (\d+)\b", self.message)})
        shown = [f"line {n}: {lines[n - 1].strip()}" for n in cited if 1 <= n <= len(lines)]
        if not shown:
            return ""
        return (
            "The lines above are those of the module arena wrote from your function (result.module_source): "
            + "; ".join(shown)
        )

    def render(self, *, width: int | None = None, color: bool = False) -> str:
        width = width or shutil.get_terminal_size((120, 24)).columns
        verdict = "inspected (no verdict)" if self.inspected else self.verdict or self.submission.status
        if color:
            verdict = f"\033[1;{32 if self.accepted or self.inspected else 31}m{verdict}\033[0m"
        scope = {"run": "sample cases", "inspect": "inspection, first sample case"}.get(self.kind, "all cases")
        out = [f"{self.problem} #{self.id} ({scope}): {verdict}"]
        if self.description:
            out.append(f"  {self.description}")
        if self.message:
            out += ["", self.message]
        if self.lines_note():
            out += ["", self.lines_note()]
        if self.cases:
            # One line a case (the first failing case's message is whole above).
            rows = [
                [
                    c.name,
                    "yes" if c.sample else "",
                    c.verdict,
                    "" if c.max_error is None else f"{c.max_error:.2e}",
                    c.message,
                ]
                for c in self.cases
            ]
            out += ["", table(["case", "sample", "verdict", "max error", "message"], rows, width=width)]
        if self.residuals or self.reference_residuals:
            out += [
                "",
                self.bytes_line(),
                "",
                table(
                    ["", "type", "bytes", "saved value", "line"] + (["kept in"] if self.offloads else []),
                    self._residual_rows(),
                    width=width,
                    notes=[r.reason for r in self.residuals],
                ),
            ]
            if self.reference_residuals:
                rows = [
                    [r.type, r.bytes, r.saved_value] + ([_kept_in(r)] if self.offloads else [])
                    for r in self.reference_residuals
                ]
                headers = ["type", "bytes", "saved value"] + (["kept in"] if self.offloads else [])
                out += ["", "What the required policy keeps:", table(headers, rows)]
        for checkpoint in self.checkpoints:
            where = f" at line {checkpoint.line}" if checkpoint.line else ""
            out.append(f"checkpoint{where}: policy {checkpoint.policy_text}, depth {checkpoint.depth}")
        if self.cost_line():
            out += ["", self.cost_line()]
        if self.site:
            out += ["", f"The {'result' if self.kind == 'inspect' else 'verdict'} page: {self.url}"]
        return "\n".join(out)

    def __str__(self) -> str:
        return self.render(width=120)

    # --- notebook -------------------------------------------------------------------------------

    def _repr_html_(self) -> str:
        e = html.escape
        good = self.accepted
        badge = (
            f'<span style="padding:0 .4em;border-radius:4px;color:#fff;font-weight:700;'
            f'background:{"#1d7a46" if good else "#b3261e"}">{e(self.verdict or "")}</span>'
        )
        if self.inspected:
            badge = '<span style="font-weight:700">inspected</span> (no verdict)'

        parts = [
            '<div class="arena-result"><style>.arena-result th, .arena-result td {text-align: left !important}</style>',
            f'<p>{e(self.problem)} #{self.id}: {badge} <span style="color:#5e6b78">{e(self.description)}</span></p>',
        ]
        if self.message:
            parts.append(
                f'<p style="border-left:3px solid {"#1d7a46" if good else "#b3261e"};padding-left:.5em">'
                f"{e(self.message)}</p>"
            )
        if self.lines_note():
            parts.append(f'<p style="color:#5e6b78">{e(self.lines_note())}</p>')
        if self.residuals or self.reference_residuals:
            parts.append(f"<p>{e(self.bytes_line())} {e(self.cost_line())}</p>")
            rows = []
            for r in self.residuals:
                shade = "#fff4e0" if r.missing else "#fdecea" if r.offending else "transparent"
                mark = "missing" if r.missing else "!!" if r.offending else ""
                rows.append(
                    f'<tr style="background:{shade}"><td>{mark}</td><td><code>{e(r.type)}</code></td>'
                    f"<td>{r.bytes}</td><td>{e(r.saved_value)}</td><td>{r.line or ''}</td>"
                    + (f"<td>{e(_kept_in(r))}</td>" if self.offloads else "")
                    + f"<td>{e(r.reason)}</td></tr>"
                )
            parts.append(
                '<table><caption style="text-align:left">Saved residuals</caption><thead><tr><th></th>'
                "<th>type</th><th>bytes</th><th>saved value</th><th>line</th>"
                + ("<th>kept in</th>" if self.offloads else "")
                + "<th>why it is marked</th>"
                f"</tr></thead><tbody>{''.join(rows)}</tbody></table>"
            )
            required = "".join(
                f"<tr><td><code>{e(r.type)}</code></td><td>{r.bytes}</td><td>{e(r.saved_value)}</td>"
                + (f"<td>{e(_kept_in(r))}</td>" if self.offloads else "")
                + "</tr>"
                for r in self.reference_residuals
            )
            if required:
                parts.append(
                    '<table><caption style="text-align:left">What the required policy keeps</caption>'
                    "<thead><tr><th>type</th><th>bytes</th><th>saved value</th>"
                    + ("<th>kept in</th>" if self.offloads else "")
                    + "</tr></thead>"
                    f"<tbody>{required}</tbody></table>"
                )
        for checkpoint in self.checkpoints:
            where = f" at line {checkpoint.line}" if checkpoint.line else ""
            parts.append(f"<p>checkpoint{where}: policy <code>{e(checkpoint.policy_text)}</code></p>")
        if self.memory.picture_svg:  # drawn by the site, its text escaped there
            parts.append(f'<div style="max-width:720px">{self.memory.picture_svg}</div>')
        if self.site:
            parts.append(f'<p><a href="{e(self.url)}" target="_blank">the verdict page</a></p>')
        parts.append("</div>")
        return "".join(parts)


_LIBRARIES = {"equinox": "Equinox", "nnx": "Flax NNX"}


def render_exploration(data: dict) -> str:
    """An exploration (the site's answer) as the terminal shows it: every plan, the beaten ones
    marked, and the plan within the budget with the code that applies it."""
    found: PolicyExploration = read(PolicyExploration, data)
    if found.error:
        return f"The exploration did not run: {found.error}"
    best = found.best.plan if found.best else None
    rows = [
        [
            "*" if r.plan == best else ("-" if r.dominated else ""),
            r.plan,
            r.held_bytes,
            r.host_bytes or "",
            r.peak_bytes,
            f"{r.flops:.4g}",
            f"{r.recomputed_flops:.4g}",
        ]
        for r in found.rows
    ]
    lines = [
        f"{found.function}({', '.join(found.args)}): {len(rows)} plans",
        *(
            [
                f"{_LIBRARIES.get(found.library, found.library)} module: its parameters, differentiated: "
                f"{', '.join(found.parameters)}"
            ]
            if found.parameters
            else []
        ),
        table(["", "plan", "held (device)", "held (host)", "peak", "FLOPs", "recomputed FLOPs"], rows),
        "-: beaten by another plan on device memory, host memory, peak and FLOPs",
    ]
    for failure in found.failed:
        lines.append(f"{failure.get('plan')}: did not run: {failure.get('message')}")
    lines += found.notes
    if found.budget is not None:
        peak = found.budget_on == "peak"
        if found.best is None:
            lines.append(
                f"No plan's step peaks at {found.budget} bytes or fewer."
                if peak
                else f"No plan holds at most {found.budget} bytes on the device between the passes."
            )
        else:
            within = f"{found.budget} bytes" + (" at the step's peak" if peak else "")
            lines.append(f"*: the cheapest plan within {within}: {best}")
            lines += [f"    {line}" if line else "" for line in found.best.code.splitlines()]
    return "\n".join(lines)
