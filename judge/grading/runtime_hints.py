"""What a runtime error of a sample case means for a learner, and what to try.

JAX's own exception text names its internals (``bool[]``, ``PjitFunction``, ``ad_checkpoint``);
a learner needs the cause in their terms first. Each hint matches the error's text (the class
name and JAX's wording, which the parent receives from the child as data) and says the cause
and one change. The raw text stays in the case's row, after the cause. Only sample cases get a
hint: a hidden case's error text is never shown (``grader.HIDDEN_ERROR``).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from ..data import syntax
from ..source import Source
from . import written_form


@dataclass(frozen=True)
class Hint:
    pattern: re.Pattern
    cause: str  # may use {line}: " (line N)" or ""
    advice: str
    written: str = ""  # what the line the error names must hold for this hint to apply
    # what the program must hold for this hint to apply (an error JAX raises with no words of its own)
    program: re.Pattern | None = None


_FUNCTIONS = re.compile(
    r"PjitFunction.*is not a valid JAX type|is not a valid JAX type.*PjitFunction"
    r"|Cannot interpret value of type <class 'function'> as an abstract array"
    r"|of type '<class 'function'>' is not a valid JAX type"
)
HINTS = (
    Hint(
        re.compile(r"^TracerBoolConversionError"),
        "Your code asks Python to branch on a traced value{line}: while JAX traces your function (as "
        "jax.checkpoint and jax.grad do), its arguments are abstract, a True or False passed in too unless it "
        "is marked static, so `if`, `and`, `or` and `bool()` cannot see their values.",
        "Try: branch on something known while tracing: a flag passed as a static argument "
        "(static_argnums=... on jax.checkpoint), a shape, or a constant computed under "
        "jax.ensure_compile_time_eval(); for a choice between two arrays, use jnp.where or jax.lax.cond.",
    ),
    Hint(
        re.compile(r"^(ConcretizationTypeError|TracerIntegerConversionError|TracerArrayConversionError)"),
        "Your code needs a concrete Python number from a traced value{line} (a size, an index, a range "
        "bound or a NumPy array): while JAX traces your function, array arguments are abstract.",
        "Try: take sizes from shapes (x.shape[0]), pass what must be known while tracing as a static "
        "argument (static_argnums=...), and use jax.numpy, not NumPy, on traced values.",
    ),
    Hint(  # a scan slices what it is given: eqx.filter_checkpoint around its step does not help there
        _FUNCTIONS,
        "Your code passes a model that holds functions (an Equinox module's activation, say) where JAX "
        "expects only arrays{line}: jax.lax.scan slices arrays, not functions.",
        "Try: scan over the model's arrays only: arrays, rest = eqx.partition(model, eqx.is_array) before the "
        "scan, jax.lax.scan(step, x, arrays), and inside the step rebuild the layer with "
        "eqx.combine(layer_arrays, rest).",
        "scan",
    ),
    Hint(
        _FUNCTIONS,
        "Your code passes a model that holds functions (an Equinox module's activation, say) where JAX "
        "expects only arrays{line}: jax.checkpoint traces arrays, not functions.",
        "Try: eqx.filter_checkpoint in place of jax.checkpoint (import equinox as eqx): it traces the model's "
        "arrays and passes its functions through as they are.",
    ),
    Hint(
        re.compile(r"^TypeError: 'str' object is not callable"),
        "Your code calls a string as a function{line}: a policy is given as a function object, not as its "
        "name in quotes.",
        "Try: policy=jax.checkpoint_policies.<name> (no quotes), or a function of your own.",
        "policy",
    ),
    Hint(
        re.compile(r"Value returned by a remat policy should be a bool"),
        "Your policy returns something other than True or False{line}: JAX asks it, for each value, whether "
        "to save it (True) or recompute it (False).",
        "Try: return a bool from your policy (True to save the value, False to recompute it).",
    ),
    Hint(
        re.compile(r"^TypeError: dot_general requires contracting dimensions to have the same shape"),
        "Your matrix product's two sides do not fit{line}: in a @ b, the last axis of a must be as long as "
        "the first axis of b, and here they differ.",
        "Try: check the order of each product against the shapes the statement gives (x @ w, not w @ x), or "
        "transpose the side that is the wrong way round.",
    ),
    Hint(  # policy=jax.checkpoint_policies.dots_saveable(): the policy called with no value to decide on
        re.compile(r"missing 1 required positional argument: 'prim'"),
        "Your code calls a policy with no arguments{line}: jax.checkpoint_policies.{policy} is already a policy, "
        "a function JAX calls itself, once for each value, to ask whether to save it.",
        "Try: pass it without the parentheses: policy=jax.checkpoint_policies.{policy}.",
    ),
    Hint(
        re.compile(r"is a factory of policies, not a policy"),
        "Your policy= is given the policy's factory, not a policy{line}: offload_dot_with_no_batch_dims and "
        "save_and_offload_only_these_names make a policy from their arguments (where the saved values go), so "
        "JAX, asking it about each value, gets a function back instead of an answer.",
        "Try: call it with its arguments and pass what it returns, as in "
        "policy=jax.checkpoint_policies.offload_dot_with_no_batch_dims('device', 'pinned_host').",
    ),
    Hint(
        re.compile(r"^ValueError: The names should be exclusive"),
        "Your policy lists a name both among the values to keep on the device and among those to move to the "
        "host{line}: a saved value lives in one memory, so each name belongs to one list.",
        "Try: put each name in one list only: names_which_can_be_saved for those kept on the device, "
        "names_which_can_be_offloaded for those moved to the host.",
    ),
    Hint(
        re.compile(r"^AssertionError:?\s*$"),
        "Your offloading policy moves saved values the wrong way{line}: offload_src is where a value is made "
        "(the device) and offload_dst where it waits for the backward pass (the host), and JAX stops on its own "
        "check when they are swapped.",
        "Try: offload_src='device', offload_dst='pinned_host'.",
        # an offloading policy in the program, and the host's memory named in it (however it gets there)
        program=re.compile(
            r"(?s)(?=.*\b(?:offload_dot_with_no_batch_dims|save_and_offload_only_these_names)\b).*['\"]pinned_host['\"]"
        ),
    ),
    Hint(
        re.compile(r"can only take integer values greater than or equal to `-len\(args\)` and less than `len\(args\)`"),
        "Your checkpoint's static_argnums names an argument that your call passes by name{line}: static_argnums "
        "counts only the arguments passed by position, so JAX finds no argument at the position it names, and "
        "one passed by name (`flag=...`) would not be static anyway.",
        "Try: pass that argument by position, in the order of the function's parameters: f(W, x, flag), not "
        "f(W, x, flag=flag).",
    ),
    Hint(
        re.compile(r"^RecursionError"),
        "Your code calls itself without end{line}: a recursion that never reaches its base case (or one "
        "deeper than Python allows).",
        "Try: check the recursion's base case and that each call works on a smaller part (half the list, say).",
    ),
)
_SWAPPED = next(h for h in HINTS if h.pattern.pattern.startswith("^AssertionError"))
_STATIC_BY_NAME = next(h for h in HINTS if "len\\(args\\)" in h.pattern.pattern)


def hint(text: str, line: int | None, written: str = "", program: Source | str = "") -> tuple[str, str] | None:
    """(cause, advice) for a runtime error's text, or None when no hint applies; ``written``: the
    learner's line the error names; ``program``: the learner's whole source."""
    program = Source.of(program)
    compiled = compile_hint(text, program) or _options_only_hint(text, line, program)
    if compiled is not None:
        return compiled
    for h in HINTS:
        if h.pattern.search(text) and h.written in written and (h.program is None or h.program.search(program.text)):
            called = _CALLED_POLICY.search(written) or _CALLED_POLICY.search(program.text)
            policy = called.group(1) if called else "<name>"
            # the branch advice quotes the learner's code (braces and all): never formatted
            if h is _SWAPPED:
                swapped = _swapped_memories(program)
                if swapped is not None:
                    return swapped
            if h is _STATIC_BY_NAME:
                moved = _static_by_name(program)
                if moved is not None:
                    return h.cause.format(line=f" (line {line})" if line else ""), moved
            advice = (_branch_advice(line, written, program) if h is HINTS[0] else None) or h.advice.format(
                policy=policy
            )
            return h.cause.format(line=f" (line {line})" if line else "", policy=policy), advice
    return None


def first_error(errors: list[tuple[bool, str, int | None, str]], program: Source | str) -> tuple[str, str] | None:
    """(cause, advice) for a grading's errors, (sample, text, line, the line's source) in case order:
    the first sample case's, where a sample fails; else the first hidden case's, told as one and without
    its text, whose sizes it could tell (a hint's words are our own, with the learner's lines only)."""
    program = Source.of(program)
    samples = [e for e in errors if e[0]]
    if samples:
        _, text, line, written = samples[0]
        return hint(text, line, written, program)
    if not errors:
        return None
    _, text, line, written = errors[0]
    where = f" (line {line})" if line else ""
    if _RECURSION.search(text):
        recursive = _recursive_function(program)
        yours = f"your `{recursive[0]}` (line {recursive[1]}) calls itself, and " if recursive else ""
        each = f" (have `{recursive[0]}` call itself on halves)" if recursive else ""
        return (
            f"On a hidden case, your code calls itself more deeply than Python allows{where}: {yours}the sample "
            f"cases run, so the depth of your recursion grows with the inputs (one call per step of a chain, say), "
            f"and on a longer one it passes Python's limit; each jax.checkpoint nested in another adds to that depth.",
            f"Try: let each call take half of what is left{each}, so that the depth grows with the logarithm of the "
            f"size (a chain of a thousand steps is then ten levels deep), or replace the recursion with a loop or "
            f"jax.lax.scan.",
        )
    found = hint(text, line, written, program)
    if found is None:
        return None
    cause, advice = found
    return f"On a hidden case, {cause[0].lower()}{cause[1:]}", advice


_RECURSION = re.compile(r"^RecursionError")
_BUILTINS = {"bool", "int", "float", "len", "isinstance", "any", "all", "str"}


def _recursive_function(program: Source) -> tuple[str, int] | None:
    """The learner's function that calls itself (directly, or in a lambda or a checkpoint it builds):
    (its name, its line); None where the source shows none, or more than one."""
    tree = program.tree
    if tree is None:
        return None
    found = [
        (f.name, f.lineno)
        for f in ast.walk(tree)
        if isinstance(f, ast.FunctionDef)
        and any(
            isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == f.name
            for c in ast.walk(f)
            if c is not f
        )
    ]
    return found[0] if len(found) == 1 else None


# The offloading factories, and the position of offload_src among their arguments (offload_dst follows).
_OFFLOADING = {"offload_dot_with_no_batch_dims": 0, "save_and_offload_only_these_names": 2}


def _swapped_memories(program: Source) -> tuple[str, str] | None:
    """An offloading policy whose offload_src is the host's memory (JAX checks that saved values come
    from the device with a bare assert): the cause with the learner's line and values, and the change in
    the form they wrote (the arguments by position, or by name). None where the source shows none."""
    tree = program.tree
    if tree is None:
        return None
    constants: dict[str, str] = {}  # HOST = "pinned_host", and HOST, DEVICE = "pinned_host", "device"
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            pairs = (
                zip(target.elts, value.elts)
                if isinstance(target, ast.Tuple)
                and isinstance(value, ast.Tuple)
                and len(target.elts) == len(value.elts)
                else [(target, value)]
            )
            for t, v in pairs:
                if isinstance(t, ast.Name) and isinstance(v, ast.Constant) and isinstance(v.value, str):
                    constants[t.id] = v.value

    def read(node: ast.expr | None) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        return constants.get(node.id) if isinstance(node, ast.Name) else None

    for call in ast.walk(tree):
        if not isinstance(call, ast.Call):
            continue
        factory = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
        if factory not in _OFFLOADING:
            continue
        at, named = _OFFLOADING[factory], {k.arg: k.value for k in call.keywords}
        src = call.args[at] if len(call.args) > at else named.get("offload_src")
        dst = call.args[at + 1] if len(call.args) > at + 1 else named.get("offload_dst")
        if read(src) != "pinned_host" or src is None or dst is None:
            continue
        line = src.lineno
        cause = (
            f"Your offloading policy moves saved values the wrong way (line {line}): your {factory} gives "
            f"offload_src={read(src)!r} and offload_dst={read(dst)!r}, but offload_src is where a saved value is "
            f"made, the device ('device'), and offload_dst where it waits for the backward pass, the host "
            f"('pinned_host'); JAX stops on its own check when the source is the host."
        )
        if isinstance(src, ast.Constant) and isinstance(dst, ast.Constant):
            quote = (ast.get_source_segment(program.text, src) or "'")[0]
            if src in call.args:  # by position: the call as written, its two memories in order
                args = [ast.unparse(a) for a in call.args]
                args[at], args[at + 1] = f"{quote}device{quote}", f"{quote}pinned_host{quote}"
                args += [f"{k.arg}={ast.unparse(k.value)}" for k in call.keywords]
                return cause, (
                    f"Try: `{ast.unparse(call.func)}({', '.join(args)})` at line {line}: the memory the values "
                    f"come from first, then the one they go to."
                )
            return cause, f"Try: offload_src='device', offload_dst='pinned_host' in your {factory} at line {line}."
        return cause, _SWAPPED.advice
    return None


def _branch_advice(line: int | None, written: str, program: Source) -> str | None:
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
_NO_FUNCTION = re.compile(r"^TypeError: (?:checkpoint|remat)\(\) missing 1 required positional argument: 'fun'")
_AT_LINE = re.compile(r"\(line (\d+)\)\s*$")


def _options_only_hint(text: str, line: int | None, program: Source) -> tuple[str, str] | None:
    """``@jax.checkpoint(policy=...)``: jax.checkpoint called with options and no function, which a
    learner writes after "add policy= to your @jax.checkpoint". The form that runs, with their options."""
    if not _NO_FUNCTION.search(text):
        return None
    at = _AT_LINE.search(text)
    line = line or (int(at.group(1)) if at else None)
    found = written_form.options_only(program, line)
    where = f" (line {line})" if line else ""
    if found is None or not found[2]:
        return (
            f"Your code calls jax.checkpoint with options but no function{where}: jax.checkpoint takes the "
            f"function to checkpoint as its first argument, and here it has none.",
            "Try: give the function first, as in jax.checkpoint(f, policy=...); on a decorator, write "
            "@functools.partial(jax.checkpoint, policy=...) (with `import functools` at the top).",
        )
    short, api, mended, needs = found
    if mended.startswith("@"):
        imported = f" (with `{needs}` at the top)" if needs else ""
        return (
            f"Your decorator `{short}`{where} calls {api} with options but no function: {api} takes the "
            f"function to checkpoint as its first argument, so it is called here before your function is given to it.",
            f"Try: `{mended}`{imported} in place of `{short}`: functools.partial holds the options, and the "
            f"decorator then gives {api} your function.",
        )
    return (
        f"Your `{short}`{where} calls {api} with options but no function: {api} takes the function to "
        f"checkpoint as its first argument.",
        f"Try: `{mended}`: the function first, then the options.",
    )


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


def _static_by_name(program: Source) -> str | None:
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
_CALLED_POLICY = re.compile(r"checkpoint_policies\.(\w+)\(\s*\)")
_SYNTAX = re.compile(r"^line (\d+): SyntaxError: (.+)$")
_NO_ENTRY = re.compile(r"^the entry point (\w+)\(\) is not defined")


def compile_hint(text: str, program: Source | str) -> tuple[str, str] | None:
    """What the gate and the child say of code that cannot run at all (our own words, so read as
    data): Python's syntax error at its line, or the function the problem calls, missing."""
    program = Source.of(program)
    syntax_error = _SYNTAX.match(text)
    if syntax_error:
        number, said = int(syntax_error.group(1)), syntax_error.group(2)
        lines = program.lines
        written = lines[number - 1].strip() if 1 <= number <= len(lines) else ""
        quoted = f" (`{written}`)" if written else ""
        advice = (
            f"Try: end line {number} with a colon, as every def, if, for and with line needs."
            if said.startswith("expected ':'")
            else f"Try: fix line {number} as Python says, {said}; Run samples checks your code before you submit."
        )
        return f"Your code is not valid Python at line {number}{quoted}: {said}.", advice
    missing = _NO_ENTRY.match(text)
    if missing:
        entry = missing.group(1)
        defined = program.top_level_functions
        yours = f" Yours defines `{defined[-1]}`." if defined else ""
        return (
            f"Your code defines no function named `{entry}`, the one this problem calls.{yours}",
            f"Try: name your function `{entry}`, as the starter code does: def {entry}(...).",
        )
    return None
