"""What the problem's structure rules make of the facts the source shows (``source_reading``), in
the learner's words: each problem's sentence, and a "Try:" in the form the learner wrote.

The reading says what the source writes (sites, policies, derivative rules) and nothing of how it is
told; this module words it, beside the trace's causes (``judge.words``), whose precedence it keeps.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .. import words
from ..data import policy_names
from ..source import Source
from . import written_form
from .source_reading import Site, SourceFacts


@dataclass(frozen=True)
class SourceProblem:
    """A structure problem the source shows: its cause (``kind``) and its sentence."""

    kind: str  # backward_rule, no_checkpoint, policy, prevent_cse
    sentence: str
    line: int | None = None
    advice: str = ""  # a "Try:" line for this very problem, when there is one better than the kind's


def problems(facts: SourceFacts, rules, form: "words.Form | None" = None) -> list[SourceProblem]:
    """The problem's structure rules (``package.StructureRules``) on what the source says, in the
    precedence of the causes (``judge.words``). Only what the source says for certain counts."""
    source = facts.source if facts.source is not None else Source("")  # facts made by hand: no text to quote
    found = []
    if not rules.allow_custom_vjp:
        for rule in facts.backward_rules:
            if rule.kind == "redefined":
                found.append(
                    SourceProblem(
                        "backward_rule",
                        f"line {rule.line} redefines the derivative of one of "
                        f"JAX's own functions, so your gradient is not JAX's",
                        rule.line,
                    )
                )
            else:
                found.append(
                    SourceProblem(
                        "backward_rule",
                        f"your hand-written {rule.kind} (line {rule.line}) "
                        f"defines its own backward pass, so what it keeps is your choice, not "
                        f"the policy's",
                        rule.line,
                    )
                )
    required = rules.policy
    if (required is not None or rules.min_checkpoints) and not facts.sites and not facts.dynamic:
        # the trace's cause gives the same advice (``judge.words``): the policy only where one is required
        found.append(
            SourceProblem(
                "no_checkpoint",
                "your program has no jax.checkpoint",
                advice=words.no_checkpoint_advice(rules, form or words.Form()),
            )
        )
    if required is not None:
        for site in facts.sites:
            if site.policy is not None and site.policy != required:
                found.append(
                    SourceProblem(
                        "policy",
                        f"your {site.api} (line {site.line}) uses {_as_written(site)}, where this problem "
                        f"requires policy={policy_names.render(required)}",
                        site.line,
                        _policy_advice(source, site, required),
                    )
                )
    for site in facts.sites:
        wanted, where = rules.prevent_cse, ""
        located = rules.prevent_cse_in_loops is not None or rules.prevent_cse_outside_loops is not None
        if site.in_loop is None and located:
            continue  # the source cannot say where it runs: the trace decides (``judge.words``)
        if site.in_loop and rules.prevent_cse_in_loops is not None:
            wanted, where = rules.prevent_cse_in_loops, " inside the scan"
        elif not site.in_loop and rules.prevent_cse_outside_loops is not None:
            wanted, where = rules.prevent_cse_outside_loops, " outside any scan"
        if wanted is not None and site.prevent_cse is not None and site.prevent_cse != wanted:
            why = (
                " (a scan already keeps XLA from merging the recomputation with the forward pass)"
                if wanted is False
                else " (without it, XLA may merge the recomputation away under jit)"
            )
            written = written_form.at_line(source, site.line)
            default = written is not None and not any(
                k.arg == "prevent_cse" for k in getattr(written.node, "keywords", ())
            )
            found.append(
                SourceProblem(
                    "prevent_cse",
                    f"your {site.api} (line {site.line}){where} has prevent_cse="
                    f"{site.prevent_cse}{' (its default)' if default else ''}; this problem needs "
                    f"prevent_cse={wanted}{why}",
                    site.line,
                    "Try: "
                    + (
                        written_form.decorator_advice(source, site.line, "prevent_cse", str(wanted))
                        or f"{site.api}(..., prevent_cse={wanted}) at line {site.line}"
                    )
                    + ".",
                )
            )
    cse = [p for p in found if p.kind == "prevent_cse"]
    if len(cse) > 1:  # the first is the cause told: its "Try:" mends every site, or the next would fail next
        changes = " and ".join(p.advice.removeprefix("Try: ").removesuffix(".") for p in cse)
        found[found.index(cse[0])] = replace(cse[0], advice=f"Try: {changes}.")
    return found


def _policy_advice(source: Source, site: Site, required: tuple) -> str:
    """The required policy on this checkpoint, as the learner wrote it (a decorator takes it through
    functools.partial); "" where the line shows no checkpoint to rewrite (the kind's advice is said)."""
    spelled = f"jax.checkpoint_policies.{policy_names.render(required)}"
    if site.api == "eqx.filter_checkpoint":
        return ""
    clause = written_form.decorator_advice(source, site.line, "policy", spelled)
    written = written_form.at_line(source, site.line)
    if clause is None and written is not None:
        clause = written_form.argument_advice(source, written, "policy", spelled)
    return f"Try: {clause}." if clause else ""


def _as_written(site: Site) -> str:
    if not site.written:
        return "no policy, which means nothing_saveable"
    if site.own:
        return f"{site.written}, a policy your code builds rather than one of jax.checkpoint_policies"
    if site.written.isidentifier():  # a name bound to the policy: say which policy it is
        return f"{policy_names.render(site.policy)} (your `{site.written}`)"
    return site.written
