"""The facts a verdict rests on, from where no submitted code ran, and what the rules make of them.

Two sources, in the parent: the verifier's run of the exported programs (values, gradients, and
what is saved for the backward pass, by value: ``judge.data.saved_values``), and the source text,
parsed and never run (``judge.grading.source_reading``). The child's report of its own trace (lines,
expressions, provenance, the memory picture) words a verdict and may add a refusal of its own,
but acceptance rests only on what is here: a child whose code escaped the gate and rewrote its
report can make its own verdict worse, never better.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .. import words
from ..data import policy_names, saved_values
from ..data.evidence import DEVICE, Residual, Structure
from ..data.messages import TracedCase
from ..data.verdicts import FindingKind
from ..packages import checks
from ..packages.package import Problem
from . import labelled_value, source_problems, source_reading


@dataclass(frozen=True)
class Finding:
    """One problem the trusted side found on a case."""

    kind: FindingKind  # a source problem's kind (backward_rule, no_checkpoint, policy, prevent_cse), or values, limit, ...
    sentence: str  # for a sample case; sizes may be in it
    hidden: str  # the same without sizes, for a hidden case
    advice: str = ""  # its own "Try:" line, where it has one (else the kind's: grader.TRUSTED_ADVICE)
    hidden_advice: str = ""  # the same for a hidden case, where it has one (else grader.HIDDEN_ADVICE)
    relabelled: str = ""  # the label the learner put on another value than the statement's (``labelled_value``)


def source_findings(facts: source_reading.SourceFacts, problem: Problem) -> list[Finding]:
    """The structure rules on what the source says: the same on every case (no sizes in them)."""
    return [
        Finding(p.kind, p.sentence, p.sentence, p.advice)
        for p in source_problems.problems(facts, problem.structure_rules, words.form_of(problem))
    ]


# The structure rules that only the trace of the program can decide (the source cannot count what
# a checkpoint encloses at run time, nor how many checkpoints a loop makes), as a learner reads them.
_TRACE_ONLY = (
    ("encloses", "that the checkpoint encloses the whole computation"),
    ("min_checkpoints", "on how many checkpoints your program makes"),
    ("max_checkpoints", "on how many checkpoints your program makes"),
    ("min_depth", "on how deeply your checkpoints nest"),
)


def unverified(problem: Problem) -> list[Finding]:
    """Where the report of a trace contradicts the verified program, what the trace alone decides
    cannot be trusted: such a rule fails closed instead of passing unchecked."""
    rules = problem.structure_rules
    said = list(dict.fromkeys(words for field, words in _TRACE_ONLY if getattr(rules, field)))
    if not said:
        return []
    sentence = (
        f"the judge could not verify your checkpoint structure: the report of your program's trace does not "
        f"match the program that ran, and this problem's rule {' and '.join(said)} can be read only from that trace"
    )
    advice = (
        "Try: submit your code unchanged once more; if the verdict stays, ask your instructor to look at it, "
        "since a trace that disagrees with its own program is what code that tampers with the judge produces."
    )
    return [Finding(FindingKind.UNVERIFIED, sentence, sentence, advice, advice)]


def counted_values(case: TracedCase, problem: Problem) -> list[saved_values.SavedValue]:
    return [case.saved[i] for i in saved_values.counted(case.saved, problem.residual_rules.constants)]


def _on_the_device(case: TracedCase, problem: Problem) -> tuple[int, int]:
    """How many residuals the verifier counted on the device, and their bytes. A case that compares
    values counts them by value (a constant apart where the problem says so); a figures-only case's
    arrays are never made, so no value tells a constant apart: every residual its program returns
    counts, by the types the verifier read (the limit binds at the sizes it is written for)."""
    if not case.saved and case.residual_types:  # figures only: typed, never run
        kept = [r for r in case.residual_types if r.memory == DEVICE]
    else:
        kept = [v for v in counted_values(case, problem) if v.memory == DEVICE]
    return len(kept), sum(v.bytes for v in kept)


def value_findings(
    problem: Problem, got: TracedCase, want: TracedCase, named: list[Residual] | None = None, source: str = ""
) -> tuple[list[Finding], saved_values.Pairing | None]:
    """What the program saves, by value, against the reference's on the same hidden inputs, and
    the residual limits on what the verifier counted. ``named``: the submission's residuals in its
    own terms, in the program's order (the child's report, confirmed by the verifier's types), to
    name a value in a sample case's sentence; without it a value is told by its type. ``source``: the
    learner's code, to say which of its values a label belongs on."""
    rules = problem.residual_rules
    found: list[Finding] = []
    pairing = None
    if rules.match_reference:
        pairing = saved_values.pair(got.saved, want.saved, constants=rules.constants)
        if not pairing.matches:
            found.append(_difference(pairing, got, want, named, problem.entry, (problem.reference, source)))
    # The residual limits are enforced here, on the verifier's count, and nowhere else: the
    # child's report of what it saves words a verdict, it never decides one.
    saving = checks.Saving(*_on_the_device(got, problem), *_on_the_device(want, problem))
    found += [
        Finding(FindingKind.LIMIT, told, check.hidden)
        for check, told in checks.enforced(checks.RESIDUALS, rules, saving)
    ]
    return found, pairing


def cost_findings(problem: Problem, got: TracedCase, want: TracedCase) -> list[Finding]:
    """The cost rules on the verifier's figures of the step (``Cost``: measured on the program it
    compiled); the structure only words them, and only when the report is believed."""
    if got.cost is None:
        return []
    structure = Structure() if got.contradicted else got.structure
    spending = checks.Spending(got.cost, want.cost, structure)
    return [
        Finding(FindingKind.COST, told, check.hidden)
        for check, told in checks.enforced(checks.COST, problem.cost_rules, spending)
    ]


def _difference(
    pairing: saved_values.Pairing,
    got: TracedCase,
    want: TracedCase,
    named: list[Residual] | None,
    entry: str,
    sources: tuple[str, str] = ("", ""),
) -> Finding:
    def mine(i: int) -> str:
        if named is not None and i < len(named):
            return named[i].phrase()
        return _typed(got.residual_types[i]) if i < len(got.residual_types) else "a value"

    def theirs(j: int) -> str:  # the reference's lines are not the learner's: its values by what they are
        r = want.residuals[j] if j < len(want.residuals) else None
        return replace(r, line=None, span=None, expr="", op="", in_terms=False).phrase() if r else "a value"

    parts, hidden = [], []
    relabelled = _same_name(pairing, named, want)
    if relabelled is not None:
        i, j = relabelled
        label = named[i].what
        placed = labelled_value.misplaced(*sources, label) if sources[1] else None
        if placed is not None:
            return Finding(
                "values",
                labelled_value.sentence(placed),
                f"the value you named '{label}' is not the one the required checkpointing keeps under that name",
                labelled_value.advice(placed),
                relabelled=label,
            )
        return Finding(
            "values",
            f"the value you named '{named[i].what}'{_at(named[i].line)} is not the one the "
            f"required checkpointing keeps under that name: the label sits on another value, so the "
            f"policy keeps that one and the backward pass recomputes the one it needs",
            f"the value you named '{named[i].what}' is not the one the required checkpointing keeps under that name",
            f'Try: put checkpoint_name(..., "{named[i].what}") on the value the statement names '
            f"'{named[i].what}', and use what it returns in place of that value.",
        )
    if pairing.extra:
        parts.append(f"{_listed([mine(i) for i in pairing.extra])}, which the required checkpointing does not keep")
        hidden.append("values that the required checkpointing does not keep")
    if pairing.missing:
        parts.append(f"not {_listed([theirs(j) for j in pairing.missing])}, which it keeps")
        hidden.append("not values that it keeps")
    if pairing.elsewhere:
        i, j = pairing.elsewhere[0]
        where = want.saved[j].memory
        parts.append(
            f"{_listed([mine(i) for i, _ in pairing.elsewhere])} in another memory than it does (it keeps "
            f"them on {_memory(where)})"
        )
        hidden.append("values in another memory than it does")
    lead = "your program keeps for its backward pass "
    sentence = lead + "; ".join(parts)
    if named is not None and not pairing.elsewhere:  # a report believed: whose policy decided, in words
        policy = _policy_words(
            got, want, entry, [_of(named, i) for i in pairing.extra], [_of(want.residuals, j) for j in pairing.missing]
        )
        if policy is not None:
            hidden, hidden_advice = policy
            return Finding(FindingKind.VALUES, sentence, hidden, hidden_advice=hidden_advice)
    return Finding(FindingKind.VALUES, sentence, lead + "; ".join(hidden))


def _of(values: list[Residual], i: int) -> Residual | None:
    return values[i] if i < len(values) else None


def _policy_words(
    got: TracedCase, want: TracedCase, entry: str, extra: list[Residual | None], missing: list[Residual | None]
) -> tuple[str, str] | None:
    """A hidden case's difference where a policy the learner wrote or chose decides it (the
    samples passed, so what the policy reads depends on sizes): the hidden sentence and its
    advice, naming the values by what made them and never by their sizes."""
    used = [c for c in got.structure.checkpoints if c.on_path is not False]
    required = [c for c in want.structure.checkpoints if c.on_path is not False]
    if not used or not required or policy_names.from_wire(required[0].policy)[0] != "custom":
        return None  # a named policy is required: the general words say it
    who = "the reference solution"
    mine = policy_names.from_wire(used[0].policy)
    if mine[0] != "custom" and policy_names.from_wire(required[0].policy) == ("custom", entry):
        kept = f"; on a hidden case it keeps {_unsized(extra)}, which {who} recomputes" if extra else ""
        return (
            f"your {entry} is jax.checkpoint_policies.{policy_names.render(mine)}, a policy of JAX's that decides "
            f"by the operation alone, never by the size of its result{kept}",
            f"Try: write {entry} as your own function, def {entry}(prim, *types, **params), that returns True "
            f"only for the values the statement says to keep, reading their size from the types it is given.",
        )
    if mine[0] != "custom":
        return None
    name = "lambda policy" if mine[1] == "<lambda>" else f"policy {mine[1]}"
    name += _at(used[0].policy_line)
    if extra and not missing:
        batched = any(_product(r) and len(r.shape) > 2 for r in extra)
        return (
            f"on a hidden case, your {name} keeps {_unsized(extra)}, which {who} recomputes",
            f"Try: have your policy return False for {'that value' if len(extra) == 1 else 'those values'} "
            f"on larger inputs, as {who}'s does: a matrix product's result has every axis its two sides do "
            f"not contract{', its batch axes too' if batched else ''}; call your function on larger inputs "
            f"than the samples' and Inspect what it keeps.",
        )
    if missing and not extra:
        return (
            f"on a hidden case, your {name} recomputes {_unsized(missing)}, which {who} keeps for the backward pass",
            f"Try: have your policy return True for {'that value' if len(missing) == 1 else 'those values'} "
            f"on larger inputs, as {who}'s does: read the size of the result (not of the inputs), and call "
            f"your function on larger inputs than the samples' and Inspect what it keeps.",
        )
    return None


def _product(r: Residual | None) -> bool:
    return r is not None and r.kind == "primitive" and not r.expr and "dot_general" in (r.op, r.what)


def _unsized(values: list[Residual | None]) -> str:
    """Values as a hidden case's sentence names them: by what made them, never by their sizes."""
    products = [r for r in values if _product(r)]
    words = []
    if len(products) == 1:
        words.append(f"the result of a matrix product with {len(products[0].shape)} axes")
    elif products:
        words.append(f"the results of {len(products)} matrix products")
    for r in values:
        if _product(r):
            continue
        if r is None or r.kind not in ("primitive", "argument", "named"):
            words.append("a value JAX computes for your code")
        elif r.kind == "argument":
            words.append(f"the argument {r.what}")
        elif r.kind == "named":
            words.append(f"the value named '{r.what}'")
        else:
            words.append(f"`{r.expr}`{_at(r.line)}" if r.expr else "a value JAX computes for your code")
    return _listed(words)


def _same_name(pairing: saved_values.Pairing, named: list[Residual] | None, want: TracedCase) -> tuple | None:
    """A name put on another value than the reference's value of that name."""
    if named is None:
        return None
    for i in pairing.extra:
        for j in pairing.missing:
            if (
                i < len(named)
                and j < len(want.residuals)
                and named[i].kind == want.residuals[j].kind == "named"
                and named[i].what == want.residuals[j].what
            ):
                return i, j
    return None


def _at(line) -> str:
    return f" (line {line})" if line else ""


def _typed(aval) -> str:
    return f"{aval.dtype}{list(aval.shape)}"


def _listed(items: list[str]) -> str:
    shown = items[:3] + ([f"{len(items) - 3} more"] if len(items) > 3 else [])
    return ", ".join(shown[:-1]) + (" and " if len(shown) > 1 else "") + shown[-1]


def _memory(kind: str) -> str:
    return "the device" if kind == DEVICE else f"the host ({kind})"
