"""The checkpoint API a submission uses, read from its source by the parent, which never runs it.

What the traced program shows comes from the child that ran the learner's code, and a child
whose code escaped the gate can report anything. The source text cannot lie about itself: which
``jax.checkpoint`` (or ``jax.remat``, or Equinox's ``filter_checkpoint``) calls and decorators it
writes, with which policy, and whether it writes its own derivative rule. This module reads those
facts with ``ast`` alone, from the submission's one reading (``judge.source.Source``);
``source_problems`` turns them into the structure problems a verdict may rest on, in words.

Where the source cannot say (a policy passed in as a parameter, a name bound twice, the API
handed around as a value), the reader says "unknown" and the effect decides: the values the
verified program saves (``judge.data.saved_values``). It never guesses in the learner's disfavour.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ..data import policy_names, syntax
from ..source import Source
from ..source.scopes import Scopes
from . import code_never_run

CHECKPOINT_APIS = {
    "jax.checkpoint": "jax.checkpoint",
    "jax.remat": "jax.remat",
    "jax.ad_checkpoint.checkpoint": "jax.checkpoint",
    "jax.ad_checkpoint.remat": "jax.remat",
    "equinox.filter_checkpoint": "eqx.filter_checkpoint",
}
POLICY_MODULES = ("jax.checkpoint_policies.", "jax.ad_checkpoint.checkpoint_policies.")
# Rules of the learner's own that replace reverse mode: what is saved is then their choice.
BACKWARD_RULES = {
    "jax.custom_vjp": "custom_vjp",
    "jax.custom_gradient": "custom_gradient",
    "equinox.filter_custom_vjp": "eqx.filter_custom_vjp",
    # Implicit differentiation: the derivative comes from the solves the learner hands in.
    "jax.lax.custom_linear_solve": "lax.custom_linear_solve",
    "jax.lax.custom_root": "lax.custom_root",
}
# A custom JVP defines the forward derivative; reverse mode and the policy still decide what is saved.
FORWARD_RULES = {"jax.custom_jvp": "custom_jvp", "equinox.filter_custom_jvp": "eqx.filter_custom_jvp"}
DEFINERS = ("defvjp", "defjvp", "defjvps", "defvjp_fwd_bwd")
DEFAULT_POLICY = policy_names.plain("nothing_saveable")


@dataclass(frozen=True)
class Site:
    """A checkpoint the source asks for, at a line, with its policy as far as the source says."""

    line: int
    api: str  # as the learner would call it: "jax.checkpoint", "jax.remat", "eqx.filter_checkpoint"
    policy: tuple | None  # canonical (see policy_names); None: the source cannot say
    written: str  # the policy as written ("" when none is given)
    own: bool = False  # a policy the learner built (a function, a lambda, an object): not one of JAX's
    prevent_cse: bool | None = True  # None: not a literal
    in_loop: bool | None = False  # it runs in a loop's body (lax.scan, fori_loop, while_loop, map); None: unknown


@dataclass(frozen=True)
class Rule:
    """A derivative rule the source writes."""

    kind: str  # custom_vjp, custom_gradient, custom_jvp, ... or "redefined" (a library function's rule)
    line: int
    backward: bool  # it replaces reverse mode (custom_vjp and kin), or redefines JAX's own rule


@dataclass
class SourceFacts:
    sites: list[Site] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    dynamic: bool = False  # the checkpoint API is used in a way the reader does not follow
    source: Source | None = field(default=None, compare=False)  # the source read: advice is written in its own form

    @property
    def backward_rules(self) -> list[Rule]:
        return [r for r in self.rules if r.backward]


# ---------------------------------------------------------------------------- names


class _Reader:
    """One reading of the checkpoint API: the source's scopes (``judge.source.scopes``), and which
    of its nodes run in a loop's body."""

    def __init__(self, source: Source):
        self.source = source
        self.scopes = source.scopes
        self.value, self.path = self.scopes.value, self.scopes.path
        self.looped: set[int] = set()  # ids of the nodes that run in a loop's body
        self.loops_known = True  # False: a loop's body is handed around where the reader cannot follow it

    def in_loop(self, node: ast.AST) -> bool | None:
        """Whether ``node`` runs in a loop's body; None when the source cannot say."""
        while node is not None:
            if id(node) in self.looped:
                return True
            node = self.scopes.parent.get(node)
        return False if self.loops_known else None


# ---------------------------------------------------------------------------- reading


def read(source: Source | str, entry: str | None = None) -> SourceFacts:
    """The checkpoint sites and derivative rules of ``source`` (a source that does not parse has
    none) that the traced program can reach from ``entry``: code that never runs when the judge calls
    the entry point (a ``__main__`` self-test, a helper nothing calls) is not judged."""
    source = Source.of(source)
    tree = source.tree
    if tree is None:
        return SourceFacts()
    reader = _Reader(source)
    reader.looped = _looped(reader, tree)
    live = [stmt for stmt in tree.body if id(stmt) not in code_never_run.never_run(reader, tree, entry)]
    facts = SourceFacts(source=source)
    understood: set[int] = set()  # ids of the nodes naming the API that a site or a rule accounts for
    for node in _walk(live):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                _decorator(reader, decorator, facts, understood)
        elif isinstance(node, ast.Call):
            _call(reader, node, facts, understood)
    for node in _walk(live):
        if isinstance(node, (ast.Name, ast.Attribute)) and id(node) not in understood:
            path = reader.path(node)
            if path in CHECKPOINT_APIS and not _is_binding(reader, node):
                facts.dynamic = True
    facts.sites.sort(key=lambda s: s.line)
    facts.rules.sort(key=lambda r: r.line)
    return facts


def _walk(statements: list[ast.stmt]):
    for stmt in statements:
        yield from ast.walk(stmt)


def _looped(reader: _Reader, tree: ast.Module) -> set[int]:
    """The nodes that run in a loop's body: the functions a loop is given, and those they call by
    name. A body handed in as a parameter (``def run(body, xs): return lax.scan(body, ...)``) is
    followed to the arguments of the calls of that function; where the reader cannot follow one,
    it marks the source's loops unknown (``reader.loops_known``)."""
    bodies = [body for loop in reader.source.lax_loops for body in loop.bodies]
    looped: set[int] = set()
    while bodies:
        body = bodies.pop()
        if isinstance(body, ast.Name):
            value = reader.value(body)
            if value is Scopes.UNCERTAIN:
                handed = _handed_in(reader, tree, body)
                if handed is None:
                    reader.loops_known = False
                bodies += handed or []
                continue
            body = value if isinstance(value, ast.AST) else None
        if body is None or id(body) in looped:
            continue
        looped.add(id(body))
        for inner in ast.walk(body):
            if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name):
                bodies.append(inner.func)
            if isinstance(inner, ast.Call) and reader.path(inner.func) == "functools.partial" and inner.args:
                bodies.append(inner.args[0])
    return looped


def _handed_in(reader: _Reader, tree: ast.Module, name: ast.Name) -> list[ast.AST] | None:
    """What the calls of a function pass for its parameter ``name``; None when ``name`` is not
    a parameter of a function the reader can find called by name."""
    function = reader.scopes.scope_of(name)
    while function is not None and not isinstance(function, ast.Module):
        if name.id in reader.scopes.bindings.get(function, {}):
            break
        function = reader.scopes.scope_of(function)
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    arguments = function.args
    positional = [a.arg for a in arguments.posonlyargs + arguments.args]
    if name.id not in positional + [a.arg for a in arguments.kwonlyargs]:
        return None  # bound in the function some other way: a loop variable, an assignment
    handed = []
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
            continue
        if reader.value(call.func) is not function:
            continue
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return None
        given = {k.arg: k.value for k in call.keywords}
        if name.id in positional and positional.index(name.id) < len(call.args):
            given[name.id] = call.args[positional.index(name.id)]
        if name.id in given:
            handed.append(given[name.id])
    return handed or None


def _is_binding(reader: _Reader, node: ast.AST) -> bool:
    """``ck = jax.checkpoint`` only binds a name: its uses are read where they are called."""
    parent = reader.scopes.parent.get(node)
    return (
        isinstance(parent, ast.Assign) and parent.value is node and all(isinstance(t, ast.Name) for t in parent.targets)
    )


def _decorator(reader: _Reader, node: ast.AST, facts: SourceFacts, understood: set[int]) -> None:
    if isinstance(node, ast.Call):
        return  # a call: read as one (``_call``), decorators and plain calls alike
    path = reader.path(node)
    if path in CHECKPOINT_APIS:
        facts.sites.append(Site(node.lineno, CHECKPOINT_APIS[path], DEFAULT_POLICY, "", in_loop=reader.in_loop(node)))
        understood.add(id(node))
    _rule(path, node, facts)


def _call(reader: _Reader, node: ast.Call, facts: SourceFacts, understood: set[int]) -> None:
    path = reader.path(node.func)
    keywords, positional, api = node.keywords, node.args[1:], path
    if path in ("functools.partial",) and node.args:
        api = reader.path(node.args[0])
        if api in CHECKPOINT_APIS:
            understood.add(id(node.args[0]))
    elif path in CHECKPOINT_APIS:
        understood.add(id(node.func))
    if api in CHECKPOINT_APIS:
        if any(k.arg is None for k in keywords) or any(isinstance(a, ast.Starred) for a in node.args):
            facts.sites.append(
                Site(node.lineno, CHECKPOINT_APIS[api], None, "", prevent_cse=None, in_loop=reader.in_loop(node))
            )
            return
        given = {k.arg: k.value for k in keywords}
        if api != "equinox.filter_checkpoint" and path != "functools.partial":
            given |= dict(zip(("prevent_cse", "policy"), positional))  # jax.checkpoint(fun, prevent_cse, policy)
        facts.sites.append(_site(reader, node.lineno, CHECKPOINT_APIS[api], given, reader.in_loop(node)))
        return
    if isinstance(node.func, ast.Attribute) and node.func.attr in DEFINERS:
        owner = reader.path(node.func.value)
        if owner and (owner.startswith("jax.") or owner.startswith("equinox.")):
            facts.rules.append(Rule("redefined", node.lineno, backward=True))
        return
    _rule(api, node, facts)


def _rule(path: str | None, node: ast.AST, facts: SourceFacts) -> None:
    if path in BACKWARD_RULES:
        facts.rules.append(Rule(BACKWARD_RULES[path], node.lineno, backward=True))
    elif path in FORWARD_RULES:
        facts.rules.append(Rule(FORWARD_RULES[path], node.lineno, backward=False))


def _site(reader: _Reader, line: int, api: str, given: dict, in_loop: bool) -> Site:
    cse = given.get("prevent_cse")
    prevent_cse = (
        True if cse is None else (cse.value if isinstance(cse, ast.Constant) and isinstance(cse.value, bool) else None)
    )
    expr = given.get("policy")
    if expr is None or (isinstance(expr, ast.Constant) and expr.value is None):
        return Site(line, api, DEFAULT_POLICY, "", prevent_cse=prevent_cse, in_loop=in_loop)
    written = ast.unparse(expr)
    policy, own = _policy(reader, expr)
    return Site(line, api, policy, written, own=own, prevent_cse=prevent_cse, in_loop=in_loop)


def _policy(reader: _Reader, expr: ast.AST, depth: int = 0) -> tuple[tuple | None, bool]:
    """(canonical policy, the learner's own). (None, False): the source cannot say."""
    if depth > 8:
        return None, False
    path = reader.path(expr)
    if path is not None:
        name = _policy_name(path)
        if name is None:
            return None, False  # something imported, not a policy of JAX's module: unknown
        try:
            return policy_names.parse(name), False
        except policy_names.PolicyNameError:
            return None, False  # a factory left uncalled, or a name JAX does not have: the effect decides
    value = reader.value(expr)
    if value is Scopes.UNCERTAIN or value is None:
        return None, False
    if value is not expr and not isinstance(value, tuple):
        return _policy(reader, value, depth + 1)
    if isinstance(expr, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef)):
        return ("custom", getattr(expr, "name", "<lambda>")), True
    if isinstance(expr, ast.Call):
        factory = reader.path(expr.func)
        name = _policy_name(factory) if factory else None
        helper = reader.value(expr.func) if isinstance(expr.func, ast.Name) else None
        if name is None and isinstance(helper, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return _returned_policy(reader, helper, depth)
        if name is None:  # an object the learner's code builds: their own policy, not JAX's
            return ("custom", ast.unparse(expr.func)), True
        try:
            call = ast.Call(
                func=ast.Name(id=name),
                args=[_constant(reader, a, depth) for a in expr.args],
                keywords=[ast.keyword(k.arg, _constant(reader, k.value, depth)) for k in expr.keywords],
            )
            if any(isinstance(a, ast.Starred) for a in call.args):
                call.args = _spread(reader, call.args, depth)
            for i, a in enumerate(call.args):
                if not isinstance(a, ast.Constant):
                    inner, own = _policy(reader, a, depth + 1)
                    if inner is None or own:
                        return (None, False) if inner is None else (("custom", ast.unparse(expr)), True)
                    # the inner policy rendered by us, a text of its own: not the learner's source
                    call.args[i] = syntax.parse(policy_names.render(inner), mode="eval").body
            return policy_names.parse(ast.unparse(call)), False
        except (policy_names.PolicyNameError, _Unknown):
            return None, False
    return None, False


class _Unknown(Exception):
    pass


def _returned_policy(reader: _Reader, helper: ast.FunctionDef, depth: int) -> tuple[tuple | None, bool]:
    """The policy a helper of the learner's returns (``policy=choose_policy()``): the one every
    ``return`` of its own gives, when the reader can follow each to the same; else unknown, and the
    values decide. A helper is not a policy the learner builds unless what it returns is one."""
    returns = [node.value for node in _own_nodes(helper) if isinstance(node, ast.Return)]
    if not returns or any(value is None for value in returns):
        return None, False
    found = [_policy(reader, value, depth + 1) for value in returns]
    return found[0] if all(f == found[0] for f in found) else (None, False)


def _own_nodes(function: ast.AST):
    """The nodes of a function's body, not those of the functions and lambdas defined in it."""
    todo = list(ast.iter_child_nodes(function))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))


def _policy_name(path: str) -> str | None:
    for prefix in POLICY_MODULES:
        if path.startswith(prefix):
            return path[len(prefix) :]
    return None


def _constant(reader: _Reader, node: ast.AST, depth: int) -> ast.AST:
    """An argument of a policy factory: names followed to their one value (strings, lists of them)."""
    if isinstance(node, ast.Starred):
        return ast.Starred(value=_constant(reader, node.value, depth), ctx=ast.Load())
    value = reader.value(node) if isinstance(node, ast.Name) else node
    if value is Scopes.UNCERTAIN or value is None or isinstance(value, tuple) and not isinstance(value, ast.AST):
        raise _Unknown
    if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        return (
            type(value)(elts=[_constant(reader, e, depth) for e in value.elts], ctx=ast.Load())
            if not isinstance(value, ast.Set)
            else ast.List(elts=[_constant(reader, e, depth) for e in value.elts], ctx=ast.Load())
        )
    return value


def _spread(reader: _Reader, args: list, depth: int) -> list:
    spread = []
    for a in args:
        if isinstance(a, ast.Starred):
            if not isinstance(a.value, (ast.List, ast.Tuple)):
                raise _Unknown
            spread += a.value.elts
        else:
            spread.append(a)
    return spread
