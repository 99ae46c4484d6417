"""The problems a submission has besides the one its verdict is for, told in the same first message.

A runtime error or a wrong answer ends the grading before the checkpointing is judged, so a learner
who mends it met the next problem only on the next submission (static_argnums_training_flag: the
flag made static, then "uses no policy"). What the source shows for certain
(``source_problems.problems``: no checkpoint, a hand-written derivative, another policy than the
required one, prevent_cse) does not depend on the code running, so it is told with the first
problem: after its cause, each with a "Try:" of its own, in that order. Where the first "Try:"
already rewrites the same checkpoint (``@functools.partial(jax.checkpoint, static_argnums=(2,))``),
the next shows that rewrite with its own argument added, so that following both keeps both.
"""

from __future__ import annotations

import ast
import re

from .. import words
from ..data import policy_names, syntax
from ..packages.package import Problem
from ..source import Source
from . import source_problems, source_reading, written_form

# What to try for a problem of the source that has no advice of its own, by its kind.
_KIND_ADVICE = {
    "backward_rule": "Try: remove the hand-written derivative rule and wrap the plain function in {call} with "
    "the required policy; JAX then derives the backward pass and the policy decides what it saves.",
    "policy": "Try: policy={policy} on that {call}.",
}
_CODE = re.compile(r"`([^`]+)`")


def told_with(cause: str, advice: str, source: Source | str, problem: Problem) -> tuple[str, str]:
    """``cause`` and ``advice`` (the verdict's own, "Try: ..."), followed by the other problems the
    source shows, each with what to try; as given where it shows none, or where the verdict's own
    cause has no advice to follow it."""
    if not cause or not advice.startswith("Try: "):
        return cause, advice
    source = Source.of(source)
    facts = source_reading.read(source, problem.entry)
    found = source_problems.problems(facts, problem.structure_rules, words.form_of(problem))
    # a cause that is about the policy already (an offloading policy's memories swapped) says the policy's part
    about_policy = "policy" in cause.lower()
    found = [p for p in found if p.sentence.lower() not in cause.lower() and not (p.kind == "policy" and about_policy)]
    if not found:
        return cause, advice
    form = words.form_of(problem)
    required = problem.structure_rules.policy
    spelled = f"jax.checkpoint_policies.{policy_names.render(required)}" if required is not None else ""
    sentences, tries = [], []
    for p in found:
        sentences.append(p.sentence)
        again = _same_checkpoint_again(source, advice, p.line, "policy", spelled) if p.kind == "policy" else None
        tries.append(again or p.advice or _KIND_ADVICE.get(p.kind, "").format(call=form.call, policy=spelled))
    more = "a second problem" if len(found) == 1 else f"{len(found)} more problems"
    listed = "; and ".join(sentences)
    cause = f"{cause} Your code has {more} that grading would find next: {listed}."
    return cause, " ".join([advice] + [t for t in tries if t])


def _same_checkpoint_again(source: Source, advice: str, line: int | None, keyword: str, value: str) -> str | None:
    """Where ``advice`` shows the checkpoint at ``line`` rewritten with an argument of its own (the
    traced flag's static_argnums), the "Try:" that adds ``keyword=value`` to that rewrite; None where
    it shows none."""
    written = written_form.at_line(source, line)
    if written is None or not value:
        return None
    for shown in _CODE.findall(advice):
        decorator = shown.startswith("@")
        try:  # the code the advice shows, a text of our own: not the learner's source
            node = syntax.parse(shown.removeprefix("@"), mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        if not isinstance(node, ast.Call):
            continue
        before = {k.arg for k in getattr(written.node, "keywords", ())}
        added = [k for k in node.keywords if k.arg not in before and k.arg != keyword]
        if len(added) != 1:
            continue
        code, _ = written_form.with_argument(source, written, added[0].arg, ast.unparse(added[0].value))
        if code != shown:
            continue
        kind = written_form.PARTIAL if decorator and not written.equinox else written.kind
        if not decorator:
            kind = written_form.CALL
        rewritten = written_form.Written(kind, written.api, written.line, node, written.function)
        both, _ = written_form.with_argument(source, rewritten, keyword, value)
        return f"Try: add {keyword}={value} to that same {written.api} as well, as `{both}`."
    return None
