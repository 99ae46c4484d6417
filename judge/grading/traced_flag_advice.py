"""Advice for code that branches on a traced value, in the form the learner wrote it: an ``if`` on a
flag that JAX traces (a checkpointed function's argument) gets that flag made static where the
function is checkpointed (``static_argnums``, by position or moved there from a keyword), or passed
on from the function that has it; a condition computed from arrays is told to be ``jnp.where`` or
``lax.cond`` instead. ``runtime_hints`` says when each applies."""

from __future__ import annotations

import ast
import re

from ..data import syntax
from ..source import Source
from . import written_form

_BUILTINS = {"bool", "int", "float", "len", "isinstance", "any", "all", "str"}


def branch_advice(line: int | None, written: str, program: Source) -> str | None:
    """The one change that mends a branch on a traced value, where the learner's code shows it: a
    flag the checkpointed function takes as an argument, made static; conditions computed after a
    ``jax.ensure_compile_time_eval()`` block, moved into it; a condition on values computed from a
    static argument, computed under that block. None where the code shows none of these."""
    branch = re.match(r"\s*(?:if|elif|while)\s+(.+?)\s*:\s*(?:#.*)?$", written)
    tree = program.tree
    if tree is None:
        return None
    around = [
        n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and line and n.lineno < line <= (n.end_lineno or 0)
    ]
    if not around:
        return None
    function = max(around, key=lambda n: n.lineno)
    if branch is not None:
        condition = branch.group(1)
        shown = f"`if {condition}:`"
    else:  # a conditional expression on the line: `a * mask if is_training else a`
        chosen = [n.test for n in ast.walk(function) if isinstance(n, ast.IfExp) and n.test.lineno == line]
        if len(chosen) != 1:
            return None
        condition = ast.unparse(chosen[0])
        shown = f"`... if {condition} else ...`"
    params = [a.arg for a in function.args.args]
    # the condition alone, a text of its own (not the submission's): the line's text up to its first
    # colon, so `if lambda v: v:` leaves `lambda v`, no expression
    try:
        parsed = syntax.parse(condition, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    read = {n.id for n in ast.walk(parsed) if isinstance(n, ast.Name)}
    # what has a value while tracing: a shape (`a.shape[-1] > 1`), and the builtins (`bool(flag)`)
    known = {
        id(n.value)
        for n in ast.walk(parsed)
        if isinstance(n, ast.Attribute) and n.attr in ("shape", "ndim", "dtype") and isinstance(n.value, ast.Name)
    }
    flags = {n.id for n in ast.walk(parsed) if isinstance(n, ast.Name) and id(n) not in known and n.id not in _BUILTINS}
    # an array's values computed on (`x.sum() > 0`, `x[0] > 0`, `jnp.any(x)`): no flag to make static,
    # the choice is between arrays (the general advice: jnp.where or jax.lax.cond)
    flags -= _computed_on(parsed)
    # `if flag:`, `if not flag:`, `if flag == "train":`, `if flag and a.shape[-1] > 1:`, `if bool(flag):`
    if len(flags) == 1 and flags <= set(params):
        static = _static_advice(program, function, next(iter(flags)), shown)
        if static is not None:
            return static
    if condition in params and "static_argnums" not in program.text:
        return (
            f"Try: make `{condition}` a static argument of the checkpoint: jax.checkpoint({function.name}, "
            f"static_argnums=({params.index(condition)},), ...), so that {shown} sees a Python value while "
            f"tracing, not an array."
        )
    if branch is None:
        return None
    tests = [
        ast.unparse(n.test)
        for n in ast.walk(function)
        if isinstance(n, ast.If) and read & {m.id for m in ast.walk(n.test) if isinstance(m, ast.Name)}
    ]
    flags = " and ".join(f"`use_{i} = {test}`" for i, test in enumerate(tests, 1))
    branches = ", ".join(f"`if use_{i}:`" for i in range(1, len(tests) + 1))
    block = next(
        (
            n
            for n in ast.walk(function)
            if isinstance(n, ast.With)
            and any("ensure_compile_time_eval" in ast.unparse(i.context_expr) for i in n.items)
        ),
        None,
    )
    if block is not None:
        return (
            f"Try: compute the condition{'s' if len(tests) > 1 else ''} inside your `with "
            f"jax.ensure_compile_time_eval():` block (line {block.lineno}), as {flags}, and branch on {branches} "
            f"(an operation after the block is traced as usual, so its result has no value yet)."
        )
    made = [
        n
        for n in function.body
        if isinstance(n, ast.Assign) and read & {t.id for t in n.targets if isinstance(t, ast.Name)}
    ]
    if made and "static_argnums" in program.text:
        names = ", ".join(f"`{t.id}`" for t in made[0].targets if isinstance(t, ast.Name))
        return (
            f"Try: compute {names} (line {made[0].lineno}) and the condition{'s' if len(tests) > 1 else ''} under "
            f"`with jax.ensure_compile_time_eval():`, as {flags} inside that block, and branch on {branches}: "
            f"computed from a static argument there, they have values while tracing."
        )
    return None


# jax.checkpoint(policy=...) with no function: as a decorator, or called and then given the function
def _computed_on(condition: ast.AST) -> set[str]:
    """The names a condition computes on as arrays: a method or an element of theirs (not their
    shape, ndim or dtype, which have values while tracing), or an argument of a call that is not
    one of Python's builtins."""
    found = set()
    for node in ast.walk(condition):
        if isinstance(node, ast.Attribute) and node.attr not in ("shape", "ndim", "dtype"):
            found.add(node.value)
        elif isinstance(node, ast.Subscript):
            found.add(node.value)
        elif isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in _BUILTINS):
            found.update(n for arg in node.args for n in ast.walk(arg))
    return {n.id for n in found if isinstance(n, ast.Name)}


def _static_advice(program: Source, function: ast.FunctionDef, flag: str, shown: str) -> str | None:
    """Where the flag an `if` reads comes into a checkpointed function as an argument (that function's
    own, or passed on to the function that branches): that argument made static, on the learner's
    checkpoint as they wrote it (a decorator through functools.partial). None where no checkpoint of
    the source takes it, where it is static already, or where the checkpoint is Equinox's (which keeps
    every non-array argument static itself)."""
    functions = program.functions
    name, param = function.name, flag
    for _ in range(4):  # up through the functions that pass the flag on
        fn = functions.get(name)
        if fn is None or param not in [a.arg for a in fn.args.args]:
            return None
        index = [a.arg for a in fn.args.args].index(param)
        written = written_form.of_function(program, name)
        if written is not None:
            if written.equinox:
                return None
            if index in _static_positions(written):  # static already: passed by name, where it is not counted
                moved = _by_position(program, written, param, index, written.text)
                if not moved:
                    return None
                return (
                    f"Try: {moved.lstrip(' ,').removeprefix('and ')}; then {shown} sees a Python value while tracing."
                )
            change = written_form.argument_advice(program, written, "static_argnums", f"({index},)")
            mended = written_form.with_argument(program, written, "static_argnums", f"({index},)")[0]
            moved = _by_position(program, written, param, index, mended)
            if moved.startswith(" and"):  # the call that moves it quotes the checkpoint rewritten too
                change = change.rsplit(", as `", 1)[0]
            passed = "" if name == function.name else f" (it reaches {shown} as `{flag}`)"
            return (
                f"Try: make `{param}` a static argument of your checkpoint of {name}{passed}: {change}"
                f"{moved}; then {shown} sees a Python value while tracing, "
                f"not an array."
            )
        caller = _passing_on(functions, name, index, param)
        if caller is None:
            return None
        name, param = caller
    return None


def _by_position(program: Source, written: written_form.Written, param: str, index: int, mended: str) -> str:
    """Where the learner's code passes ``param`` to that checkpoint by name (``f(W, x, is_training=...)``),
    which static_argnums does not count: the clause that moves it to its position (``mended``: the checkpoint
    as the advice rewrites it, for a call that calls it at once); "" where none does."""
    if program.tree is None:
        return ""

    def same(node: ast.AST) -> bool:  # the checkpoint's node, by its place (a Written may come from another reading)
        at = ("lineno", "col_offset", "end_lineno", "end_col_offset")
        return type(node) is type(written.node) and all(getattr(node, a, None) == getattr(written.node, a) for a in at)

    names = {written.function} if written.kind != written_form.CALL else set()
    names |= {  # checkpointed = jax.checkpoint(body, ...)
        t.id
        for n in ast.walk(program.tree)
        if isinstance(n, ast.Assign) and same(n.value)
        for t in n.targets
        if isinstance(t, ast.Name)
    }
    for call in ast.walk(program.tree):
        if not isinstance(call, ast.Call) or not (
            same(call.func) or (isinstance(call.func, ast.Name) and call.func.id in names)
        ):
            continue
        given = next((k for k in call.keywords if k.arg == param), None)
        if given is None:
            continue
        where = f" at line {call.lineno}"
        if len(call.args) != index or any(k.arg is None for k in call.keywords):
            return (
                f", and pass `{param}` by position in your call{where}: static_argnums counts only the arguments "
                f"given by position, and one given by name stays traced"
            )
        func = mended if same(call.func) else ast.unparse(call.func)
        moved = ast.Call(
            func=ast.Name(id=func),
            args=[*call.args, given.value],
            keywords=[k for k in call.keywords if k is not given],
        )
        return (
            f"{' and' if same(call.func) else ','} pass `{param}` by position in your call{where}, as "
            f"`{ast.unparse(moved)}`: static_argnums counts only the arguments given by position, and one given by "
            f"name stays traced"
        )
    return ""


def static_by_name(program: Source) -> str | None:
    """A checkpoint with static_argnums whose call passes that argument by name (which JAX refuses: the
    position is empty): the "Try:" that moves it to its position, as a call of the learner's."""
    functions = program.functions
    for written in program.checkpoints:
        fn = functions.get(written.function)
        params = [a.arg for a in fn.args.args] if fn is not None else []
        for index in sorted(_static_positions(written)):
            if index < len(params):
                moved = _by_position(program, written, params[index], index, written.text)
                if moved:
                    return f"Try: {moved.lstrip(' ,').removeprefix('and ')}."
    return None


def _static_positions(written: written_form.Written) -> set[int]:
    """The positions a checkpoint's static_argnums names, where it is a literal."""
    node = written.node
    for k in getattr(node, "keywords", []):
        if k.arg == "static_argnums":
            try:
                value = ast.literal_eval(k.value)
            except (ValueError, SyntaxError, TypeError):
                return set()
            return {value} if isinstance(value, int) else {v for v in value if isinstance(v, int)}
    return set()


def _passing_on(functions: dict, name: str, index: int, param: str) -> tuple[str, str] | None:
    """A function that calls ``name`` with one of its own parameters at ``index`` (or as ``param=``):
    (that function, that parameter)."""
    for caller in functions.values():
        own = [a.arg for a in caller.args.args]
        for call in ast.walk(caller):
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == name):
                continue
            given = call.args[index] if index < len(call.args) else None
            given = given or next((k.value for k in call.keywords if k.arg == param), None)
            if isinstance(given, ast.Name) and given.id in own and caller.name != name:
                return caller.name, given.id
    return None


# A policy of JAX's written as a call with nothing in it: jax.checkpoint_policies.dots_saveable().
