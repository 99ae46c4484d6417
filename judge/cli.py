"""The ``python -m judge`` command line: grade, validate, inspect, doctor, bench."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .data import messages
from .data.specs import ArraySpec, SpecError, generate
from .grading import inspecting, text
from .grading.grader import grade
from .packages.package_loader import load_problem
from .packages.package_reader import PackageError


def _runner():
    from .grading.grader import default_runner

    return default_runner()


def cmd_grade(args) -> int:
    problem = load_problem(args.problem)
    runner = _runner()
    for path in args.submissions:
        report = grade(
            problem,
            Path(path).read_text(encoding="utf-8"),
            runner=runner,
            samples_only=args.samples,
            fwd_bwd=args.fwd_bwd,
        )
        report.submission = str(path)
        if args.json:
            print(json.dumps(report.to_dict()), flush=True)
        else:
            print(text.render_report(report) + "\n", flush=True)
    return 0


def cmd_validate(args) -> int:
    from .validate import validate

    runner = _runner()
    failed = False
    for folder in args.problems:
        try:
            problem = load_problem(folder)
        except PackageError as exc:
            print(f"{folder}: REFUSED: {exc}")
            failed = True
            continue
        result = validate(problem, runner=runner)
        rows = [["ok" if r.ok else "FAIL", r.submission, r.expected, r.actual, r.summary[:90]] for r in result.rows]
        print(f"{problem.slug}: {'ok' if result.ok else 'FAILED'}")
        print(text.table(["", "submission", "expected", "actual", "message"], rows))
        for error in result.errors:
            print(f"error: {error}")
        print()
        failed |= not result.ok
    return 1 if failed else 0


def cmd_inspect(args) -> int:
    import numpy as np

    from .explorer.explore import parameter_names
    from .packages.limits import Limits

    file, _, function = args.target.rpartition(":")
    if not file or not function:
        raise SystemExit("inspect: expected FILE.py:FUNCTION")
    try:
        specs = [ArraySpec.parse(s) for s in args.specs]
    except SpecError as exc:
        raise SystemExit(f"inspect: {exc}") from None
    if any(spec.symbols() for spec in specs):
        raise SystemExit("inspect: give concrete sizes, such as f32[8,16]")
    rng = np.random.default_rng(args.seed)
    arrays = [generate(s, s.shape({}), "normal", 1.0, rng) for s in specs]
    source = Path(file).read_text(encoding="utf-8")
    names = parameter_names(source, function, len(specs))
    case = messages.CaseInput("inspect", args.seed, [False] * len(specs), arrays, sample=True)  # its output shown
    request = messages.ChildRequest(
        source=source, entry=function, arg_names=names, wrt=list(range(len(specs))), cases=[case], fwd_bwd=args.fwd_bwd
    )
    found = inspecting.look(request, _runner(), Limits())  # the site's "Inspect" takes the same path
    if found.failure is not None:
        print(f"inspect: {found.failure[0]}: {found.failure[1]}", file=sys.stderr)
        return 1
    case = found.case
    residuals = case.residuals
    total = sum(r.bytes for r in residuals)
    if args.json:
        print(
            json.dumps(
                {
                    "residuals": [r.to_dict() for r in residuals],
                    "residual_bytes": total,
                    "structure": case.structure.to_dict(),
                    "programs": case.programs or {},
                }
            )
        )
        return 0
    print(f"{function}({', '.join(args.specs)}) saves {len(residuals)} residuals, {total} bytes:")
    print(text.residual_table(residuals, mark=False, memory=any(r.offloaded for r in residuals)))
    for line in text.checkpoint_lines(case.structure, depth=False):
        print(line)
    if args.fwd_bwd:
        print()
        print(text.side_by_side(case.programs["forward"], case.programs["backward"]))
    return 0


def cmd_explore(args) -> int:
    from .explorer import explore

    file, _, function = args.target.partition(":")
    try:
        source = Path(file).read_text(encoding="utf-8")
    except OSError as exc:
        raise SystemExit(f"explore: cannot read {file}: {exc.strerror}") from None
    function = function or explore.default_function(source)
    if not function:
        raise SystemExit(
            f"explore: {file} defines no function and builds no module at its top level; name one as FILE.py:NAME"
        )
    try:
        found = explore.explore(
            source, function, args.args, _runner(), budget=args.budget, budget_on=args.budget_on, wrt=args.wrt
        )
    except explore.ExploreError as exc:
        print(f"explore: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(found.to_dict()) if args.json else explore.render(found))
    return 0


def cmd_doctor(args) -> int:
    """Which sandbox layers hold on this machine, and why any does not."""
    from .grading.pipeline import REQUIRE_ALL_LAYERS, require_all_layers
    from .sandbox import layers

    try:
        runner = _runner()
        found = runner.layers()
    except Exception as exc:  # noqa: BLE001 - the doctor reports what it could not do, never a traceback
        return _doctor_could_not_start(args, exc, require_all_layers())
    if args.json:
        print(json.dumps({"runner": runner.name, "layers": found, "require_all_layers": require_all_layers()}))
    else:
        print(f"sandbox layers on this machine ({runner.name}, pid {getattr(runner, 'pid', '?')}):")
        missing = [name for name, state in found.items() if not state["ok"]]
        rows = [
            ["ok" if state["ok"] else "MISSING", name, layers.DESCRIPTIONS[name]]
            + ([state["detail"] if not state["ok"] else ""] if missing else [])
            for name, state in found.items()
        ]
        print(text.table(["", "layer", "what"] + (["why missing"] if missing else []), rows))
        if missing:
            mode = (
                "refuses to grade"
                if require_all_layers()
                else f"grades, and every report says so ({REQUIRE_ALL_LAYERS}=1 would refuse)"
            )
            print(f"\n{len(missing)} layer(s) missing: the judge {mode}.")
        else:
            print("\nevery layer is active.")
    return 0 if all(state["ok"] for state in found.values()) else 1


def _doctor_could_not_start(args, exc: Exception, strict: bool) -> int:
    """The sandbox did not start (the zygote, or its probe child, failed): no layer could be
    checked. Says why and what usually causes it, and exits 2."""
    reason = f"{type(exc).__name__}: {exc}"
    if args.json:
        print(json.dumps({"runner": None, "layers": {}, "error": reason, "require_all_layers": strict}))
        return 2
    print(
        f"the sandbox could not be started, so no layer could be checked:\n  {reason}\n\n"
        f"The usual cause: a sandboxed child cannot read or run the interpreter, the virtual environment or "
        f"the judge (they must be readable and executable by other users, or the minimal root must be "
        f"available: namespaces, which need root or user namespaces). Until it starts, the judge grades "
        f"nothing."
    )
    return 2


def _bench_explorer() -> int:
    """Medians of 3 rounds against the targets; exits 1 when one is missed (as ``make bench`` reads it)."""
    from . import bench_explorer

    timings = bench_explorer.measure(_runner())
    print(
        text.table(
            ["explorer", "plans", "median s", "rounds s", "target s", "met", "load average"],
            [
                [
                    t.workload,
                    str(t.plans),
                    f"{t.median_s:.2f}",
                    " ".join(f"{r:.2f}" for r in t.rounds),
                    f"{t.target_s:.0f}",
                    "yes" if t.met else "NO",
                    "{:.1f} -> {:.1f}".format(*t.load_average),
                ]
                for t in timings
            ],
        )
    )
    return 0 if all(t.met for t in timings) else 1


def cmd_bench(args) -> int:
    from . import bench

    if args.explorer:
        return _bench_explorer()
    folders = [Path(p) for p in args.problems] or bench.problem_folders(
        Path(__file__).resolve().parent.parent / "problems"
    )
    runner = _runner()
    rows, ok = [], True
    for folder in folders:
        problem = load_problem(folder)
        if not problem.submissions.get("accepted"):
            continue
        figures = bench.measure(
            problem, runner, runs=args.runs, cold_runs=args.cold_runs, throughput_runs=args.throughput_runs
        )
        ok &= figures.all_accepted
        if args.json:
            print(json.dumps(figures.to_dict()), flush=True)
        else:
            rows.append(
                [
                    figures.problem,
                    f"{figures.warm_p50_s:.3f}",
                    f"{figures.warm_p95_s:.3f}",
                    f"{figures.warm_new_p50_s:.3f}",
                    f"{figures.cold_p50_s:.3f}",
                    f"{figures.speedup:.1f}x",
                    f"{figures.throughput_per_min:.0f}",
                    "{:.1f} -> {:.1f}".format(*figures.load_average),
                ]
                + ([] if figures.all_accepted else ["NOT ALL ACCEPTED"])
            )
            print(f"{figures.problem}: warm p50 {figures.warm_p50_s:.3f} s", file=sys.stderr, flush=True)
    if not args.json:
        headers = [
            "problem",
            "warm p50 s",
            "warm p95 s",
            "warm p50 s, program not kept",
            "cold p50 s",
            "speedup",
            "verdicts/min (2 graders)",
            "load average",
        ]
        width = max(len(r) for r in rows) if rows else len(headers)
        print(text.table(headers + [""] * (width - len(headers)), [r + [""] * (width - len(r)) for r in rows]))
    return 0 if ok else 1


def cmd_catalog(args) -> int:
    from .data import verdicts

    root = Path(args.root)
    rows, refused = [], []
    for folder in sorted(p for p in root.iterdir() if (p / "problem.toml").exists()):
        try:
            problem = load_problem(folder)
        except PackageError as exc:
            refused.append(str(exc))
            continue
        counts = {v: len(problem.submissions.get(v, [])) for v in verdicts.VERDICTS}
        row = {
            "slug": problem.slug,
            "title": problem.title,
            "difficulty": problem.difficulty,
            "tags": list(problem.tags),
            "submissions": {v: n for v, n in counts.items() if n},
        }
        rows.append(row)
    if args.json:
        print(json.dumps({"problems": rows, "refused": refused}))
    else:
        shown = [v for v in verdicts.VERDICTS if any(r["submissions"].get(v) for r in rows)]
        table_rows = [
            [r["slug"], r["difficulty"], ", ".join(r["tags"])] + [r["submissions"].get(v, "") for v in shown]
            for r in rows
        ]
        print(text.table(["problem", "difficulty", "tags"] + shown, table_rows))
        print(f"\n{len(rows)} problems, {sum(sum(r['submissions'].values()) for r in rows)} packaged submissions")
        for message in refused:
            print(f"refused: {message}")
    return 1 if refused else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m judge", description="Remat Arena's grading engine")
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("grade", help="grade submission files against a problem")
    g.add_argument("problem")
    g.add_argument("submissions", nargs="+")
    g.add_argument("--json", action="store_true", help="one JSON object per line per submission")
    g.add_argument("--samples", action="store_true", help="sample cases only")
    g.add_argument("--fwd-bwd", action="store_true", help="include the forward and backward programs")
    g.set_defaults(func=cmd_grade)
    v = sub.add_parser("validate", help="check that every packaged submission gets its folder's verdict")
    v.add_argument("problems", nargs="+")
    v.set_defaults(func=cmd_validate)
    i = sub.add_parser("inspect", help="list what a function saves for the backward pass")
    i.add_argument("target", help="FILE.py:FUNCTION")
    i.add_argument("specs", nargs="+", help="argument specs such as f32[8,16]")
    i.add_argument("--json", action="store_true")
    i.add_argument("--fwd-bwd", action="store_true", help="also print the forward and backward programs")
    i.add_argument("--seed", type=int, default=0)
    i.set_defaults(func=cmd_inspect)
    e = sub.add_parser(
        "explore", help="every checkpoint policy of a function: memory, FLOPs, and the plan that fits a budget"
    )
    e.add_argument("target", help="FILE.py or FILE.py:FUNCTION (default: the file's last top-level function)")
    e.add_argument("--args", nargs="+", required=True, help="each argument's dtype and shape, such as f32[64,128]")
    e.add_argument("--budget", type=int, help="bytes the plan may use (see --budget-on)")
    e.add_argument(
        "--budget-on",
        choices=("held", "peak"),
        default="held",
        help="what the budget bounds: the bytes kept on the device between the passes (default), or the step's peak",
    )
    e.add_argument("--wrt", nargs="+", help="the arguments differentiated, by name (default: every argument)")
    e.add_argument("--json", action="store_true")
    e.set_defaults(func=cmd_explore)
    d = sub.add_parser("doctor", help="which sandbox layers are active on this machine, and why any is not")
    d.add_argument("--json", action="store_true")
    d.set_defaults(func=cmd_doctor)
    b = sub.add_parser("bench", help="grading latency through the warm zygote vs a fresh interpreter, and throughput")
    b.add_argument("problems", nargs="*", help="problem folders (default: every problem of the bank)")
    b.add_argument("--json", action="store_true", help="one JSON object per line per problem")
    b.add_argument("--runs", type=int, default=20, help="warm gradings per problem")
    b.add_argument("--cold-runs", type=int, default=3, help="gradings with a fresh interpreter per child")
    b.add_argument("--throughput-runs", type=int, default=24, help="gradings shared by two concurrent graders")
    b.add_argument("--explorer", action="store_true", help="the policy explorer's time on its target functions instead")
    b.set_defaults(func=cmd_bench)
    c = sub.add_parser("catalog", help="list the problem bank with packaged submissions per verdict")
    c.add_argument("root", nargs="?", default=str(Path(__file__).resolve().parent.parent / "problems"))
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_catalog)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except PackageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
