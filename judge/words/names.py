"""Causes about labels (``checkpoint_name``): a label thrown away, never written, nearly spelled, on another
value, or a policy that keeps the wrong names; and what a policy that keeps values by name also
needs of the learner's labels.
"""

from __future__ import annotations

import difflib

from ..data import policy_names
from ..data.evidence import Structure
from ..grading.rules import policy_as_written
from ..packages.package import StructureRules
from ..source import Source
from .shared import NAMES, Cause, at, named


def names_cause(found: Structure, rules: StructureRules, rows, missing, source: Source) -> Cause | None:
    """A value chosen by its label (``checkpoint_name``): the label thrown away, never written, on
    another value, or a policy that picks the wrong labels; None where no label is the matter."""
    written = source.labels()
    extra = sorted((r for r in rows if r.offending and r.kind == "named"), key=lambda r: -r.bytes)
    wanted = sorted((r for r in missing if r.kind == "named"), key=lambda r: -r.bytes)
    for row in wanted:
        mine = [w for w in written if w[0] == row.what]
        if mine and all(dropped for _, _, dropped, _ in mine):
            _, line, _, value = mine[0]
            target = value if value.isidentifier() else "labelled"
            return Cause(
                NAMES,
                f"Your checkpoint_name at line {line} (`{source.line(line).split('  #')[0]}`) labels a value your code never "
                f"uses: checkpoint_name returns a new value that carries the name '{row.what}', and your code "
                f"throws it away and goes on with the unlabelled `{value}`, so nothing is named '{row.what}' "
                f"and the policy has nothing to keep by that name.",
                f'Try: use what checkpoint_name returns: {target} = checkpoint_name({value}, "{row.what}") at '
                f"line {line}.",
            )
        if not mine:
            near = _near_miss_cause(written, wanted, source)
            if near is not None:
                return near
            return Cause(
                NAMES,
                f"Your code names no value '{row.what}': the required checkpointing keeps the value labelled "
                f"'{row.what}', and no checkpoint_name in your program gives that label.",
                f'Try: label the value where your code makes it, as h = checkpoint_name(..., "{row.what}"), and '
                f"use h afterwards.",
            )
    both = [r for r in extra if r.what in {w.what for w in wanted}]
    if both:
        row = both[0]
        value = next((v for label, _, _, v in written if label == row.what), "")
        on = f" is on `{value}`" if value else ""
        return Cause(
            NAMES,
            f"Your label '{row.what}'{at(row.line)}{on}, another value than the one this problem keeps under "
            f"that name: the policy saves the value you labelled and recomputes the one it should keep.",
            f"Try: put checkpoint_name(..., \"{row.what}\") on the value the statement names '{row.what}', and use "
            f"what it returns.",
        )
    used = [c for c in found.checkpoints if c.on_path is not False]
    if not used or not (extra or wanted or missing):
        return None
    first = used[0]
    policy = policy_as_written(first, source.names)
    rendered = policy_names.render(policy_names.from_wire(first.policy))
    dropped_names = [r.what for r in extra]
    kept = {r.what for r in rows if r.kind == "named" and not r.offending} | {r.what for r in wanted}
    left_out = dropped_names or sorted({label for label, _, _, _ in written} - kept)
    own = (
        "Try: write the policy yourself: a function (prim, *args, **params) that returns False when "
        "prim.name == 'name' and params['name'] is "
        + " or ".join(f"'{n}'" for n in left_out)
        + ", and True for every other value."
        if left_out and rules.policy is None
        else ""
    )
    if extra and wanted:
        where = next((line for label, line, _, _ in written if label == wanted[0].what), None)
        mend = (
            f"Try: in your policy{at(first.policy_line)}, leave out the name '{extra[0].what}' instead of "
            f"'{wanted[0].what}': return False when params['name'] == '{extra[0].what}', True otherwise."
            if policy_names.from_wire(first.policy)[0] == "custom"
            else own or f"Try: change your policy so that it leaves out '{extra[0].what}' and keeps '{wanted[0].what}'."
        )
        return Cause(
            NAMES,
            f"Your jax.checkpoint{at(first.line)} uses {policy}, which saves the value named "
            f"'{extra[0].what}'{at(extra[0].line)} and recomputes the one named '{wanted[0].what}'{at(where)}: "
            f"this problem wants the reverse, '{extra[0].what}' recomputed and '{wanted[0].what}' kept.",
            mend,
        )
    if extra and rendered.startswith("save_anything_except_these_names("):
        return Cause(
            NAMES,
            f"Your jax.checkpoint{at(first.line)} uses save_anything_except_these_names, and it still saves the value named "
            f"'{extra[0].what}'{at(extra[0].line)}: in JAX 0.10.2 that library policy ignores the names it "
            f"is given and saves every value, as everything_saveable does.",
            own or f"Try: a policy that leaves out the value named '{extra[0].what}'.",
        )
    if extra:
        return Cause(
            NAMES,
            f"Your jax.checkpoint{at(first.line)} uses {policy}, which saves the value named "
            f"'{extra[0].what}'{at(extra[0].line)} too: this problem wants that value recomputed in the "
            f"backward pass.",
            own or f"Try: a policy that leaves out the value named '{extra[0].what}'.",
        )
    names_only = rendered.startswith(("save_any_names_but_these(", "save_only_these_names("))
    unnamed = sorted((r for r in missing if r.kind == "primitive"), key=lambda r: -r.bytes)
    if names_only and unnamed and rules.policy is None:
        but = f" except the one named '{left_out[0]}'" if len(left_out) == 1 else ""
        return Cause(
            NAMES,
            f"Your jax.checkpoint{at(first.line)} uses {policy}, which keeps only values that carry a "
            f"name, so the others, {named(unnamed[0])} among them, are recomputed: this problem keeps every "
            f"value{but}.",
            own or "Try: a policy that keeps unnamed values too.",
        )
    return None


def _kept_by_name(policy: tuple) -> tuple[str, ...]:
    """The labels a policy keeps values by (save_only_these_names' and an offloading policy's)."""
    if policy[0] == "save_only_these_names":
        return tuple(policy[1])
    if policy[0] == policy_names.OFFLOAD_NAMES:
        return tuple(policy[1]) + tuple(policy[2])
    if policy[0] == "save_from_both_policies":
        return tuple(n for p in sorted(policy[1], key=str) for n in _kept_by_name(p))
    return ()


def labels_advice(policy: tuple, source: Source) -> str:
    """What the required policy also needs of the learner's labels, after the policy itself (", and
    ..."): a policy that keeps values by name keeps nothing where no value carries that name, so
    writing it alone would not mend a label misspelled, thrown away, or never written."""
    written = source.labels()
    used = {label for label, _, dropped, _ in written if not dropped}
    fixes, unwritten = [], []
    kept = _kept_by_name(policy)
    misses = near_misses([w for w in written if w[0] not in kept], [n for n in kept if n not in used])
    for name in kept:
        if name in used:
            continue
        dropped = [(line, value) for label, line, gone, value in written if label == name and gone]
        near = [(label, line) for label, line, _, named_as in misses if named_as == name]
        if dropped:
            line, value = dropped[0]
            target = value if value.isidentifier() else "labelled"
            fixes.append(
                f'use what checkpoint_name returns at line {line}: {target} = checkpoint_name({value}, "{name}")'
            )
        elif near:
            label, line = near[0]
            fixes.append(f"rename your label '{label}' (line {line}) to '{name}', the name the statement gives")
        else:
            unwritten.append(name)
    if unwritten:
        names = ", ".join(f"'{n}'" for n in unwritten)
        example = unwritten[0]
        fixes.append(
            f"label the values it keeps, {names}, where your code makes them: {example} = checkpoint_name(..., "
            f'"{example}"), and use what it returns; the policy keeps nothing unlabelled'
        )
    return "".join(f", and {fix}" for fix in fixes)


# Endings a codebase adds to its labels and another leaves off ("gate_proj" for "gate").
_SUFFIXES = ("_projection", "_proj", "proj")


def _stem(label: str) -> str:
    low = label.lower()
    for suffix in _SUFFIXES:
        if low.endswith(suffix) and len(low) > len(suffix):
            return low[: -len(suffix)].rstrip("_")
    return low


def _likeness(label: str, name: str) -> float:
    """How near a learner's label is to a name the policy keeps: 1 where their stems match or one
    begins the other ('gate_proj' and 'gate', 'q_proj' and 'query_proj'), else difflib's ratio."""
    mine, theirs = _stem(label), _stem(name)
    if mine.startswith(theirs) or theirs.startswith(mine):
        return 1.0
    return difflib.SequenceMatcher(None, label.lower(), name.lower()).ratio()


def near_misses(written: list, names: list[str]) -> list[tuple[str, int, str, str]]:
    """(label, line, value, name): each of the learner's labels (``Source.labels``, those the policy
    does not name) matched to the policy's name it nearly spells, of the names no label gives; the
    nearest pairs first, each label and name matched once, in the order the code writes them."""
    pairs = sorted(
        (
            (-_likeness(label, name), line, label, value, name)
            for label, line, dropped, value in written
            if not dropped
            for name in names
        ),
    )
    taken_labels, taken_names, found = set(), set(), []
    for minus, line, label, value, name in pairs:
        if -minus < 0.75 or label in taken_labels or name in taken_names:
            continue
        taken_labels.add(label)
        taken_names.add(name)
        found.append((label, line, value, name))
    return sorted(found, key=lambda pair: pair[1])


def _near_miss_cause(written: list, wanted: list, source: Source) -> Cause | None:
    """A value the learner labelled, under another name than the one the policy keeps it by
    ('gate_proj' where it saves 'gate'): every such label named, with its line, and renamed."""
    unwritten = [r.what for r in wanted if all(label != r.what for label, _, _, _ in written)]
    misses = near_misses([w for w in written if w[0] not in {r.what for r in wanted}], unwritten)
    if not misses:
        return None
    (label, line, _, name), rest = misses[0], misses[1:]
    said = [f"'{label}' at line {line} (`{_quoted(source, line)}`), where the policy saves '{name}'"]
    said += [f"'{lab}' at line {n} (`{_quoted(source, n)}`), where it saves '{nm}'" for lab, n, _, nm in rest]
    keeps = "does not keep it" if not rest else "keeps neither" if len(rest) == 1 else "keeps none of them"
    renamed = listed([f'checkpoint_name({value}, "{nm}") at line {n}' for _, n, value, nm in misses])
    plural = "s" if rest else ""
    return Cause(
        NAMES,
        f"Your code labels {'these values' if rest else 'this value'} {listed(said, '; ')}: a policy keeps a value only under its exact name, "
        f"so it {keeps}, and the backward pass recomputes {'them' if rest else 'it'}.",
        f"Try: rename your label{plural} to the name{plural} the policy saves: {renamed}.",
    )


def listed(items: list[str], between: str = ", ") -> str:
    """``a, b and c`` (``a; b; and c`` where the items hold commas of their own)."""
    if len(items) < 2:
        return "".join(items)
    last = f"{between}and " if between != ", " else " and "
    return between.join(items[:-1]) + last + items[-1]


def _quoted(source: Source, line: int) -> str:
    return source.line(line).split("  #")[0]
