"""Loading a problem package: ``problem.toml`` parsed section by section into the problem model,
the files read, everything validated up front. A broken package is refused with a
``PackageError`` listing every mistake found, so that nothing half-valid reaches a grader and an
author fixes them all in one go."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from ..data import policy_names
from ..data.specs import DISTRIBUTIONS, ArraySpec, SpecError
from ..data.verdicts import VERDICTS
from .checks import COST, RESIDUALS, Section
from .limits import Limits
from .package import (
    DEFAULT_RANKING,
    DEVICES,
    DIFFICULTIES,
    IDENT,
    RANKING_METRICS,
    SLUG,
    Arg,
    Case,
    CostRules,
    Problem,
    ResidualRules,
    StructureRules,
)
from .package_hash import content_hash
from .package_reader import Found, PackageError, Table, read_text, strings


def _parse_args(root: Table, path: Path) -> tuple[tuple[Arg, ...], bool]:
    """The arguments, and whether every one of them was read (the cases' dimensions are checked
    against their specs only then)."""
    raw = root.get("args", list, expected="a list of [[args]] tables")
    found = root.found
    args, names, complete = [], set(), raw is not None
    for i, item in enumerate(raw or []):
        if not isinstance(item, dict):
            found.add(path, f"args[{i}]", "expected a table")
            complete = False
            continue
        t = Table(item, path, found, f"args[{i}].")
        name = t.get("name", str, check=IDENT.match, expected="a Python identifier")
        if name is not None and name in names:
            found.add(path, t.key("name"), f"duplicate argument name {name!r}")
        names.add(name)
        if t.get("static", bool, False):
            args.append(Arg(name, None, default=t.get("value", (bool, int, float, str), None)))
        else:
            text, spec = t.get("spec", str), None
            if text is not None:
                try:
                    spec = ArraySpec.parse(text)
                except SpecError as exc:
                    found.add(path, t.key("spec"), str(exc))
            init = t.get(
                "init", str, "normal", check=lambda v: v in DISTRIBUTIONS, expected=f"one of {', '.join(DISTRIBUTIONS)}"
            )
            scale = float(t.get("scale", (int, float), 1.0))
            if spec is None:
                complete = False
            else:
                args.append(Arg(name, spec, init, scale))
        t.done()
    if raw is not None and not raw:
        found.add(path, "args", "at least one argument is needed")
    return tuple(args), complete


def _parse_cases(root: Table, path: Path, args: tuple[Arg, ...], args_complete: bool) -> tuple[Case, ...]:
    raw = root.get("cases", list, expected="a list of [[cases]] tables")
    found = root.found
    symbols = set().union(*(a.spec.symbols() for a in args if a.spec))
    static_names = {a.name for a in args if a.static}
    cases, names = [], set()
    for i, item in enumerate(raw or []):
        if not isinstance(item, dict):
            found.add(path, f"cases[{i}]", "expected a table")
            continue
        t = Table(item, path, found, f"cases[{i}].")
        name = t.get(
            "name",
            str,
            check=lambda v: re.match(r"^[A-Za-z0-9_.-]+$", v),
            expected="a short name: letters, digits, '_', '.' and '-'",
        )
        if name is not None and name in names:
            found.add(path, t.key("name"), f"duplicate case name {name!r}")
        names.add(name)
        dims = t.get("dims", dict, {})
        if args_complete:  # a spec that did not load says nothing about which dimensions exist
            missing = symbols - set(dims)
            if missing:
                found.add(path, t.key("dims"), f"no value for dimension(s) {', '.join(sorted(missing))}")
        for sym, value in dims.items():
            if args_complete and sym not in symbols:
                found.add(path, t.key(f"dims.{sym}"), "unknown dimension (no argument spec uses it)")
            elif isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 1 << 16:
                found.add(path, t.key(f"dims.{sym}"), f"expected a size between 0 and 65536, got {value!r}")
        static = t.get("static", dict, {})
        for key in static:
            if args_complete and key not in static_names:
                found.add(path, t.key(f"static.{key}"), "not a static argument of the entry point")
        sample, seed = t.get("sample", bool, False), t.get("seed", int)
        cases.append(Case(name, sample, seed, dict(dims), dict(static), t.get("figures_only", bool, False)))
        t.done()
    if raw is not None and not raw:
        found.add(path, "cases", "at least one case is needed")
    elif cases and all(c.figures_only for c in cases):
        found.add(path, "cases", "at least one case must compare values (figures_only = false)")
    elif cases and not any(c.sample for c in cases):
        found.add(path, "cases", "at least one case must have sample = true")
    return tuple(cases)


def _read(checks: Table, section: Section) -> dict:
    """A section's keys as ``checks.SECTIONS`` declares them: {key: value}."""
    t = checks.sub(section.name)
    values = {check.key: check.read(t) for check in section.checks}
    t.done()
    return values


def _parse_checks(root: Table, path: Path) -> tuple[ResidualRules, StructureRules, CostRules]:
    checks = root.sub("checks")
    residuals = ResidualRules(**_read(checks, RESIDUALS))
    s = checks.sub("structure")
    policy_text = s.get("policy", str, None)
    policy = None
    if policy_text is not None:
        try:
            policy = policy_names.parse(policy_text)
        except policy_names.PolicyNameError as exc:
            s.found.add(path, s.key("policy"), str(exc))
    structure = StructureRules(
        policy=policy,
        policy_text=policy_text,
        encloses=tuple(s.get("encloses", list, [], check=strings, expected="a list of primitive names")),
        min_checkpoints=s.get("min_checkpoints", int, None),
        max_checkpoints=s.get("max_checkpoints", int, None),
        allow_custom_vjp=s.get("allow_custom_vjp", bool, False),
        prevent_cse=s.get("prevent_cse", bool, None),
        min_depth=s.get("min_depth", int, None),
        prevent_cse_in_loops=s.get("prevent_cse_in_loops", bool, None),
        prevent_cse_outside_loops=s.get("prevent_cse_outside_loops", bool, None),
    )
    # The name published versions have for what is now [checks.cost] saves_memory.
    saves_memory_before = s.get("forbid_checkpoint_at_output", bool, False)
    s.done()
    cost = _read(checks, COST)
    cost["saves_memory"] = cost["saves_memory"] or saves_memory_before
    checks.done()
    return residuals, structure, CostRules(**cost)


def _parse_limits(root: Table) -> Limits:
    t = root.sub("limits")
    positive = lambda v: v > 0  # noqa: E731
    limits = Limits(
        wall_s=float(t.get("wall_s", (int, float), Limits.wall_s, check=positive, expected="a positive number")),
        cpu_s=t.get("cpu_s", int, Limits.cpu_s, check=positive, expected="a positive integer"),
        memory_mb=t.get("memory_mb", int, Limits.memory_mb, check=lambda v: v >= 512, expected="at least 512"),
        output_kb=t.get("output_kb", int, Limits.output_kb, check=positive, expected="a positive integer"),
    )
    t.done()
    return limits


def _parse_ranking(root: Table) -> tuple[str, ...]:
    t = root.sub("ranking")
    metrics = t.get(
        "metrics",
        list,
        list(DEFAULT_RANKING),
        check=lambda v: strings(v) and v and set(v) <= set(RANKING_METRICS) and len(set(v)) == len(v),
        expected=f"a list of distinct metrics drawn from {', '.join(RANKING_METRICS)}",
    )
    t.done()
    return tuple(metrics)


def _parse_remat3(root: Table, path: Path) -> tuple[dict, str]:
    """JAX 0.10.2's newer remat (``JAX_REMAT3=true``) keeps nothing under some policies and drops
    ``prevent_cse``: a packaged submission may then get another verdict, which the package says,
    with the reason, rather than the check being loosened for both."""
    t = root.sub("remat3", {})
    expected = t.get(
        "expected",
        dict,
        {},
        check=lambda v: all(isinstance(x, str) and x in VERDICTS for x in v.values()),
        expected="a table of file = verdict",
    )
    reason = t.get("reason", str, "")
    if expected and not reason:
        t.found.add(path, t.key("reason"), "is missing: say why these verdicts differ under JAX_REMAT3")
    t.done()
    return dict(expected or {}), reason


def packaged_submissions(folder: Path) -> dict[str, list[Path]]:
    """``submissions/<verdict>/*.py`` -> {verdict: [paths]}; a folder that is not a verdict is an error."""
    root = folder / "submissions"
    found: dict[str, list[Path]] = {}
    if not root.is_dir():
        return found
    for sub in sorted(p for p in root.iterdir() if p.is_dir() and p.name != "__pycache__"):
        if sub.name not in VERDICTS:
            raise PackageError(sub, None, f"folder name must be a verdict ({', '.join(VERDICTS)})")
        found[sub.name] = sorted(sub.glob("*.py"))
    return found


def load_problem(folder: Path | str) -> Problem:
    folder = Path(folder)
    if not folder.is_dir():
        raise PackageError(folder, None, "is not a problem folder")
    toml_path = folder / "problem.toml"
    text = read_text(folder, "problem.toml")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PackageError(toml_path, None, f"malformed TOML: {exc}") from None
    found = Found()
    root = Table(data, toml_path, found)
    slug = root.get(
        "slug",
        str,
        check=SLUG.match,
        expected="a slug: lowercase letters, digits and _ only, such as 'scan_over_layers'",
    )
    if slug is not None and slug != folder.name:
        found.add(toml_path, "slug", f"must equal the folder name {folder.name!r}, got {slug!r}")
    uuid = root.get("uuid", str, check=lambda v: re.match(r"^[0-9a-f-]{36}$", v), expected="a UUID")
    title = root.get("title", str)
    difficulty = root.get("difficulty", str, check=lambda v: v in DIFFICULTIES, expected=" or ".join(DIFFICULTIES))
    tags = tuple(root.get("tags", list, [], check=strings, expected="a list of strings"))
    device = root.get("device", str, "cpu", check=lambda v: v in DEVICES, expected=" or ".join(DEVICES))
    hints = tuple(root.get("hints", list, [], check=strings, expected="a list of strings"))
    entry_table = root.sub("entry")
    entry = entry_table.get("function", str, check=IDENT.match, expected="a Python identifier")
    harness_file = entry_table.get(
        "harness",
        str,
        None,
        check=lambda v: re.match(r"^[a-z0-9_]+\.py$", v),
        expected="a file name such as 'harness.py'",
    )
    entry_table.done()
    args, args_complete = _parse_args(root, toml_path)
    grads = root.sub("gradients")
    wrt = tuple(grads.get("wrt", list, check=strings, expected="a list of argument names") or ())
    grads.done()
    array_args = {a.name for a in args if not a.static}
    for name in wrt if args_complete else ():
        if name not in array_args:
            found.add(toml_path, "gradients.wrt", f"{name!r} is not an array argument")
    tol = root.sub("tolerance", {})
    rtol = float(tol.get("rtol", (int, float), 1e-5))
    atol = float(tol.get("atol", (int, float), 1e-6))
    tol.done()
    cases = _parse_cases(root, toml_path, args, args_complete)
    residual_rules, structure_rules, cost_rules = _parse_checks(root, toml_path)
    limits = _parse_limits(root)
    ranking = _parse_ranking(root)
    remat3_expected, remat3_reason = _parse_remat3(root, toml_path)
    root.done()
    files = {}
    for name in ("statement.md", "starter.py", "reference.py"):
        with found.reading():
            files[name] = read_text(folder, name)
    with found.reading():
        files["harness"] = read_text(folder, harness_file) if harness_file else ""
    with found.reading():
        files["explanation.md"] = read_text(folder, "explanation.md") if (folder / "explanation.md").exists() else ""
    submissions: dict = {}
    with found.reading():
        submissions = packaged_submissions(folder)
    packaged = {"reference.py"} | {p.relative_to(folder).as_posix() for paths in submissions.values() for p in paths}
    for name in sorted(set(remat3_expected) - packaged):
        found.add(toml_path, "remat3.expected", f"{name!r} is not the reference or a packaged submission")
    found.raise_any()
    return Problem(
        path=folder,
        slug=slug,
        uuid=uuid,
        title=title,
        difficulty=difficulty,
        tags=tags,
        device=device,
        entry=entry,
        args=args,
        wrt=wrt,
        cases=cases,
        rtol=rtol,
        atol=atol,
        residual_rules=residual_rules,
        structure_rules=structure_rules,
        cost_rules=cost_rules,
        limits=limits,
        ranking=ranking,
        statement=files["statement.md"],
        starter=files["starter.py"],
        reference=files["reference.py"],
        hints=hints,
        harness=files["harness"],
        explanation=files["explanation.md"],
        content_hash=content_hash(folder),
        submissions=submissions,
        remat3_expected=remat3_expected,
        remat3_reason=remat3_reason,
    )
