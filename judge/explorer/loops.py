"""A chain of blocks written as a Python loop, for the explorer's placements.

Most models are written ``for layer in layers: x = block(layer, x)``, not as a ``jax.lax.scan``.
The harness cannot place checkpoints in such a loop from outside: a checkpoint over ``k`` blocks
must enclose ``k`` turns of the loop, which run in the learner's own frame. So the parent, which
reads the source and never runs it, rewrites that one loop into a function of one turn and a call
of ``arena_chain``, a name the harness binds in the learner's module before each plan:

    for layer in layers:                  def _arena_turn(layer, x):
        x = block(layer, x)        ->         x = block(layer, x)
    return x                                  return (x,)
                                          (x,) = arena_chain(_arena_turn, layers, 1, (x,))
                                          return x

Under a placement plan ``arena_chain`` runs the turns inside checkpoints (every turn, segments of
``k`` turns, sqrt(N) segments); under every other plan it runs them one after another, as the loop
did: the same operations in the same order. The loop's own lines keep their numbers (the ``for``
line becomes the ``def`` line); what follows it moves down two lines.

Only a loop the rewrite cannot change the meaning of is taken: its target plain names, no
``else``, ``break``, ``continue``, ``return``, ``yield`` or ``global`` in it, a value carried from
turn to turn (a name the turn both reads and assigns, bound before the loop), and no other name it
assigns read after it. Any other loop is left as written, and gets no placement.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ..source import Source

TURN = "_arena_turn"
CHAIN = "arena_chain"
_LEAVES = (ast.Break, ast.Continue, ast.Return, ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal)


@dataclass(frozen=True)
class Loop:
    """The loop found, in the learner's own words, and the source rewritten around it."""

    line: int  # the ``for`` line
    targets: tuple[str, ...]  # the loop's names: ("layer",), or ("w", "b") for ``for w, b in ...``
    carried: tuple[str, ...]  # what one turn hands to the next, such as ("x",)
    items: str  # what it loops over, as written
    body: str  # one turn, as written, dedented
    rewritten: str  # the whole source with the loop as a function of one turn and a chain of it
    node: ast.For = field(compare=False, repr=False)  # the loop as parsed


def _names(node: ast.AST, context: type) -> set[str]:
    # names read (ast.Load) or bound (ast.Store) in node, not inside functions it defines
    found: set[str] = set()

    def visit(n: ast.AST) -> None:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return
        if isinstance(n, ast.Name) and isinstance(n.ctx, context):
            found.add(n.id)
        for child in ast.iter_child_nodes(n):
            visit(child)

    visit(node)
    return found


def _leaves_the_turn(loop: ast.For) -> bool:
    def visit(n: ast.AST) -> bool:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return False
        if isinstance(n, (ast.For, ast.While)) and n is not loop:
            # a break or continue there is that inner loop's own; a return is not
            return any(isinstance(m, _LEAVES[2:]) for m in ast.walk(n)) or any(visit(c) for c in n.orelse)
        return isinstance(n, _LEAVES) or any(visit(c) for c in ast.iter_child_nodes(n))

    return any(visit(statement) for statement in loop.body)


def _targets(target: ast.expr) -> tuple[str, ...] | None:
    if isinstance(target, ast.Name):
        return (target.id,)
    if isinstance(target, ast.Tuple) and target.elts and all(isinstance(e, ast.Name) for e in target.elts):
        return tuple(e.id for e in target.elts)
    return None


def _bound_before(function: ast.FunctionDef, loop: ast.For) -> set[str]:
    arguments = function.args
    bound = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.lineno < loop.lineno:
            bound.add(node.id)
    return bound


def _read_after(function: ast.FunctionDef, loop: ast.For) -> set[str]:
    return {
        node.id
        for node in ast.walk(function)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.lineno > loop.end_lineno
    }


def _carried(function: ast.FunctionDef, loop: ast.For, targets: tuple[str, ...]) -> tuple[str, ...] | None:
    assigned = set().union(*(_names(s, ast.Store) for s in loop.body)) - set(targets)
    read = set().union(*(_names(s, ast.Load) for s in loop.body))
    carried = assigned & read & _bound_before(function, loop)
    temporaries = assigned - carried
    if not carried or temporaries & _read_after(function, loop) or set(targets) & _read_after(function, loop):
        return None
    if (assigned | set(targets)) & _read_by_closures(function, loop):
        return None  # a closure reads the loop's names late: the rewrite moves them into the turn
    return tuple(sorted(carried, key=lambda name: _first_use(loop, name)))


def _read_by_closures(function: ast.FunctionDef, loop: ast.For) -> set[str]:
    """Names read by the functions and lambdas ``function`` defines outside ``loop``: they read a
    name when they are called, which may be during the loop or after it, wherever they stand."""
    inside = {id(n) for n in ast.walk(loop)}
    read: set[str] = set()
    for node in ast.walk(function):
        if node is function or id(node) in inside:
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            arguments = node.args
            own = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
            read |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - own
    return read


def _first_use(loop: ast.For, name: str) -> tuple[int, int]:
    return min((n.lineno, n.col_offset) for n in ast.walk(loop) if isinstance(n, ast.Name) and n.id == name)


def _calls_something(loop: ast.For) -> bool:
    return any(isinstance(n, ast.Call) for s in loop.body for n in ast.walk(s))


def _candidates(tree: ast.Module, function: str, calls: bool):
    # the explored function's loops first, then those of the other functions it may call; for a
    # module (``calls``), the calls (``__call__``) of the source's classes first
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    functions.sort(key=lambda f: f.name != function)
    if calls:
        calls = [
            n
            for c in tree.body
            if isinstance(c, ast.ClassDef)
            for n in c.body
            if isinstance(n, ast.FunctionDef) and n.name == "__call__"
        ]
        functions = calls + functions
    for defined in functions:
        for node in ast.walk(defined):
            if isinstance(node, ast.For):
                yield defined, node


def _one_header_line(loop: ast.For) -> bool:
    # the rewrite replaces the `for` line by the `def` line: the header must be that one line,
    # and the turn's statements on lines of their own
    return loop.iter.end_lineno == loop.target.lineno == loop.lineno < loop.body[0].lineno


def find(source: Source | str, function: str, calls: bool = False) -> Loop | None:
    """The first loop of ``function`` (or, failing that, of another function of the source) that
    chains blocks and can be rewritten without changing what it computes; None if there is none.
    ``calls``: ``function`` names a module, whose class's ``__call__`` is looked in first."""
    source = Source.of(source)
    tree, lines = source.tree, source.lines
    if tree is None:
        return None
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    used |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    if used & {TURN, CHAIN}:
        return None  # the learner's own names: the rewrite must not take them over
    for defined, loop in _candidates(tree, function, calls):
        targets = _targets(loop.target)
        if targets is None or loop.orelse or _leaves_the_turn(loop) or not _calls_something(loop):
            continue
        if not _one_header_line(loop):
            continue
        carried = _carried(defined, loop, targets)
        if carried is None:
            continue
        return _rewrite(lines, loop, targets, carried)
    return None


def _tuple(names: tuple[str, ...]) -> str:
    return f"({', '.join(names)},)"


def _rewrite(lines: list[str], loop: ast.For, targets: tuple[str, ...], carried: tuple[str, ...]) -> Loop:
    header = lines[loop.lineno - 1]
    indent = header[: len(header) - len(header.lstrip())]
    body_lines = lines[loop.body[0].lineno - 1 : loop.end_lineno]
    inner = body_lines[0][: len(body_lines[0]) - len(body_lines[0].lstrip())]
    items = ast.get_source_segment("\n".join(lines), loop.iter) or ast.unparse(loop.iter)
    rewritten = [
        *lines[: loop.lineno - 1],
        f"{indent}def {TURN}({', '.join(targets + carried)}):",
        *lines[loop.lineno : loop.end_lineno],
        f"{inner}return {_tuple(carried)}",
        f"{indent}{_tuple(carried)} = {CHAIN}({TURN}, {items}, {len(targets)}, {_tuple(carried)})",
        *lines[loop.end_lineno :],
    ]
    body = "\n".join(line[len(inner) :] if line.startswith(inner) else line.lstrip() for line in body_lines)
    return Loop(loop.lineno, targets, carried, items, body, "\n".join(rewritten) + "\n", loop)


# The harness's side (part of ``explore.HARNESS``, run in the child): ``arena_chain`` for a plan.
HARNESS = """

def _chain(placement):
    # the learner's loop, one turn after another, the turns inside checkpoints as the plan places them
    def chain(turn, items, arity, carried):
        def one(item, values):
            return turn(*(item if arity > 1 else (item,)), *values)

        def run(part, values, each):
            for item in part:
                values = jax.checkpoint(lambda v, item=item: one(item, v))(values) if each else one(item, values)
            return values

        items = list(items)
        if placement is None:
            return run(items, carried, False)
        if placement == "every":
            return run(items, carried, True)
        n = len(items)
        k = max(1, round(math.sqrt(n))) if placement == "nested" else max(1, min(int(placement), n))
        for start in range(0, n, k):
            part = items[start:start + k]
            carried = jax.checkpoint(lambda v, part=part: run(part, v, placement == "nested"))(carried)
        return carried

    return chain
"""


def placement_code(placement: str, loop: Loop) -> str:
    """The loop rewritten for a placement, in the learner's own names."""
    # functools.partial binds what the loop hands each turn, so that a Python value stays one
    # (an index from range() traced by the checkpoint could no longer pick a layer)
    carried = ", ".join(loop.carried)
    target = ", ".join(loop.targets)
    turn = [
        f"def turn({', '.join(loop.targets + loop.carried)}):",
        *("    " + line for line in loop.body.splitlines()),
        f"    return {carried}",
    ]
    if placement == "every":
        return "\n".join(
            [
                *turn,
                "",
                f"for {target} in {loop.items}:",
                f"    {carried} = jax.checkpoint(partial(turn, {target}))({carried})",
            ]
        )
    nested = placement == "nested"
    step = f"jax.checkpoint(partial(turn, {target}))({carried})" if nested else f"turn({target}, {carried})"
    return "\n".join(
        [
            *turn,
            "",
            f"def segment(part, {carried}):  # k turns, rebuilt together on the way back",
            f"    for {target} in part:",
            f"        {carried} = {step}",
            f"    return {carried}",
            "",
            f"items = list({loop.items})",
            "k = round(math.sqrt(len(items)))  # turns per segment" if nested else f"k = {placement}",
            "for start in range(0, len(items), k):",
            f"    {carried} = jax.checkpoint(partial(segment, items[start:start + k]))({carried})",
        ]
    )
