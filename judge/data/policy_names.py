"""Names of checkpoint policies, written the way a problem's ``problem.toml`` names them.

A required policy is a small expression: a name from ``jax.checkpoint_policies``, optionally
called with names (``save_only_these_names("a", "b")``) or with other policies
(``save_from_both_policies(dots_saveable, save_only_these_names("h"))``). It is parsed with
``ast`` and never evaluated, and it is reduced to a canonical form so that aliases compare equal.
``judge.inspection.policies`` reduces live policy objects to the same form; ``to_wire`` and
``from_wire`` carry it between the child and the parent.
"""

from __future__ import annotations

import ast

from . import syntax

# alias -> canonical name
ALIASES = {
    "checkpoint_dots": "dots_saveable",
    "checkpoint_dots_with_no_batch_dims": "dots_with_no_batch_dims_saveable",
}
PLAIN = (
    "everything_saveable",
    "nothing_saveable",
    "dots_saveable",
    "dots_with_no_batch_dims_saveable",
)
WITH_NAMES = (
    "save_only_these_names",
    "save_any_names_but_these",
    "save_anything_except_these_names",
)
WITH_POLICIES = ("save_from_both_policies",)
# The offloading policies: the values they keep are moved from one memory to another
# (``offload_src``, ``offload_dst``: "device", "pinned_host"...), written in problem.toml as
# offload_dot_with_no_batch_dims("device", "pinned_host") and
# save_and_offload_only_these_names(names_which_can_be_saved=["a"], names_which_can_be_offloaded=["b"],
#                                   offload_src="device", offload_dst="pinned_host").
OFFLOAD_DOTS = "offload_dot_with_no_batch_dims"
OFFLOAD_NAMES = "save_and_offload_only_these_names"
OFFLOADING = (OFFLOAD_DOTS, OFFLOAD_NAMES)
_OFFLOAD_NAMES_KEYWORDS = ("names_which_can_be_saved", "names_which_can_be_offloaded", "offload_src", "offload_dst")

# A canonical policy is a tuple: ("dots_saveable",), ("save_only_these_names", ("a", "b")),
# ("save_from_both_policies", frozenset of two canonical policies), ("offload_dot_with_no_batch_dims",
# src, dst), ("save_and_offload_only_these_names", saved names, offloaded names, src, dst), or
# ("custom", "<qualname>").
Canonical = tuple


class PolicyNameError(ValueError):
    pass


def canonical_name(name: str) -> str:
    return ALIASES.get(name, name)


def plain(name: str) -> Canonical:
    return (canonical_name(name),)


def with_names(name: str, names) -> Canonical:
    return (name, tuple(sorted(set(names))))


def both(first: Canonical, second: Canonical) -> Canonical:
    return ("save_from_both_policies", frozenset((first, second)))


def offload_dots(src: str, dst: str) -> Canonical:
    return (OFFLOAD_DOTS, src, dst)


def offload_names(saved, offloaded, src: str, dst: str) -> Canonical:
    return (OFFLOAD_NAMES, tuple(sorted(set(saved))), tuple(sorted(set(offloaded))), src, dst)


def destination(policy: Canonical) -> str | None:
    """Where an offloading policy moves what it offloads (None: the policy offloads nothing)."""
    return policy[-1] if policy[0] in OFFLOADING else None


def parse(text: str) -> Canonical:
    try:
        tree = syntax.parse(text.strip(), mode="eval").body
    except SyntaxError as exc:
        raise PolicyNameError(f"{text!r} is not a policy expression: {exc.msg}") from None
    return _from_node(tree, text)


def _from_node(node: ast.AST, text: str) -> Canonical:
    if isinstance(node, ast.Attribute):  # allow the jax.checkpoint_policies.X spelling
        return _from_node(ast.Name(id=node.attr), text)
    if isinstance(node, ast.Name):
        name = canonical_name(node.id)
        if name in PLAIN:
            return (name,)
        raise PolicyNameError(
            f"unknown policy {node.id!r} in {text!r}; expected one of "
            f"{', '.join(PLAIN + WITH_NAMES + WITH_POLICIES + OFFLOADING)}"
        )
    func = (
        node.func.attr
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        else getattr(getattr(node, "func", None), "id", None)
    )
    if func in OFFLOADING:
        return _offloading(func, node, text)
    if isinstance(node, ast.Call) and not node.keywords:
        if func in WITH_NAMES:
            if not all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in node.args):
                raise PolicyNameError(f"{func} takes names as strings, in {text!r}")
            return with_names(func, (a.value for a in node.args))
        if func in WITH_POLICIES:
            if len(node.args) != 2:
                raise PolicyNameError(f"{func} takes two policies, in {text!r}")
            return both(_from_node(node.args[0], text), _from_node(node.args[1], text))
    raise PolicyNameError(f"{text!r} is not a policy name or a call of one")


def _strings(node: ast.AST, func: str, text: str) -> list[str]:
    items = node.elts if isinstance(node, (ast.List, ast.Tuple)) else [node]
    if not all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in items):
        raise PolicyNameError(f"{func} takes names and memories as strings, in {text!r}")
    return [a.value for a in items]


def _offloading(func: str, node: ast.Call, text: str) -> Canonical:
    """As JAX takes them: offload_dot_with_no_batch_dims(src, dst), by position or by keyword;
    save_and_offload_only_these_names by keyword only."""
    if func == OFFLOAD_DOTS:
        given = dict(zip(("offload_src", "offload_dst"), node.args)) | {k.arg: k.value for k in node.keywords}
        if sorted(given) != ["offload_dst", "offload_src"] or len(node.args) > 2:
            raise PolicyNameError(f"{func} takes offload_src and offload_dst, in {text!r}")
        return offload_dots(*(_strings(given[k], func, text)[0] for k in ("offload_src", "offload_dst")))
    given = {k.arg: k.value for k in node.keywords}
    if node.args or sorted(given) != sorted(_OFFLOAD_NAMES_KEYWORDS):
        raise PolicyNameError(f"{func} takes the keywords {', '.join(_OFFLOAD_NAMES_KEYWORDS)}, in {text!r}")
    saved, offloaded = (_strings(given[k], func, text) for k in _OFFLOAD_NAMES_KEYWORDS[:2])
    if set(saved) & set(offloaded):  # JAX refuses it too, when the policy is made
        raise PolicyNameError(f"{func} takes each name in one list only, in {text!r}")
    src, dst = (_strings(given[k], func, text)[0] for k in _OFFLOAD_NAMES_KEYWORDS[2:])
    return offload_names(saved, offloaded, src, dst)


def render(policy: Canonical) -> str:
    kind = policy[0]
    if kind == OFFLOAD_DOTS:
        return f"{kind}({policy[1]!r}, {policy[2]!r})"
    if kind == OFFLOAD_NAMES:
        return (
            f"{kind}(names_which_can_be_saved={list(policy[1])!r}, names_which_can_be_offloaded="
            f"{list(policy[2])!r}, offload_src={policy[3]!r}, offload_dst={policy[4]!r})"
        )
    if kind in WITH_NAMES:
        return f"{kind}({', '.join(repr(n) for n in policy[1])})"
    if kind == "save_from_both_policies":
        return f"{kind}({', '.join(sorted(render(p) for p in policy[1]))})"
    if kind == "custom":
        return f"a custom policy ({policy[1]})"
    return kind


def to_wire(policy: Canonical) -> list:
    """Canonical policies hold frozensets; the wire needs lists (``from_wire`` undoes it)."""
    if policy[0] == "save_from_both_policies":
        return [policy[0], sorted((to_wire(p) for p in policy[1]), key=repr)]
    if policy[0] in WITH_NAMES:
        return [policy[0], list(policy[1])]
    if policy[0] == OFFLOAD_NAMES:
        return [policy[0], list(policy[1]), list(policy[2]), policy[3], policy[4]]
    return list(policy)


def from_wire(policy) -> Canonical:
    """Undo ``to_wire``: lists back to the canonical tuples."""
    kind = policy[0]
    if kind == "save_from_both_policies":
        return both(from_wire(policy[1][0]), from_wire(policy[1][1]))
    if kind in WITH_NAMES:
        return with_names(kind, policy[1])
    if kind == OFFLOAD_NAMES:
        return offload_names(*policy[1:])
    return tuple(policy)
