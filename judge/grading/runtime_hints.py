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
        "jax.checkpoint and jax.grad do), array arguments are abstract, so `if`, `and`, `or` and `bool()` "
        "cannot see their values.",
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
        program=re.compile(r"offload_src\s*=\s*['\"]pinned_host|offload_dot_with_no_batch_dims\(\s*['\"]pinned_host"),
    ),
    Hint(
        re.compile(r"^RecursionError"),
        "Your code calls itself without end{line}: a recursion that never reaches its base case (or one "
        "deeper than Python allows).",
        "Try: check the recursion's base case and that each call works on a smaller part (half the list, say).",
    ),
)


def hint(text: str, line: int | None, written: str = "", program: str = "") -> tuple[str, str] | None:
    """(cause, advice) for a runtime error's text, or None when no hint applies; ``written``: the
    learner's line the error names; ``program``: the learner's whole source."""
    compiled = compile_hint(text, program)
    if compiled is not None:
        return compiled
    for h in HINTS:
        if h.pattern.search(text) and h.written in written and (h.program is None or h.program.search(program)):
            called = _CALLED_POLICY.search(written) or _CALLED_POLICY.search(program)
            policy = called.group(1) if called else "<name>"
            # the branch advice quotes the learner's code (braces and all): never formatted
            advice = (_branch_advice(line, written, program) if h is HINTS[0] else None) or h.advice.format(
                policy=policy
            )
            return h.cause.format(line=f" (line {line})" if line else "", policy=policy), advice
    return None


def _branch_advice(line: int | None, written: str, program: str) -> str | None:
    """The one change that mends a branch on a traced value, where the learner's code shows it: a
    flag the checkpointed function takes as an argument, made static; conditions computed after a
    ``jax.ensure_compile_time_eval()`` block, moved into it; a condition on values computed from a
    static argument, computed under that block. None where the code shows none of these."""
    branch = re.match(r"\s*(?:if|elif|while)\s+(.+?)\s*:\s*(?:#.*)?$", written)
    try:
        tree = syntax.parse(program)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # the learner's text: anything may fail
        return None
    around = [
        n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and line and n.lineno < line <= (n.end_lineno or 0)
    ]
    if branch is None or not around:
        return None
    function = max(around, key=lambda n: n.lineno)
    condition, params = branch.group(1), [a.arg for a in function.args.args]
    if condition in params and "static_argnums" not in program:
        return (
            f"Try: make `{condition}` a static argument of the checkpoint: jax.checkpoint({function.name}, "
            f"static_argnums=({params.index(condition)},), ...), so that `if {condition}:` sees a Python value while "
            f"tracing, not an array."
        )
    try:  # the line's text up to its first colon: `if lambda v: v:` leaves `lambda v`, no expression
        read = {n.id for n in ast.walk(syntax.parse(condition, mode="eval")) if isinstance(n, ast.Name)}
    except (SyntaxError, ValueError, RecursionError, MemoryError):
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
    if made and "static_argnums" in program:
        names = ", ".join(f"`{t.id}`" for t in made[0].targets if isinstance(t, ast.Name))
        return (
            f"Try: compute {names} (line {made[0].lineno}) and the condition{'s' if len(tests) > 1 else ''} under "
            f"`with jax.ensure_compile_time_eval():`, as {flags} inside that block, and branch on {branches}: "
            f"computed from a static argument there, they have values while tracing."
        )
    return None


# A policy of JAX's written as a call with nothing in it: jax.checkpoint_policies.dots_saveable().
_CALLED_POLICY = re.compile(r"checkpoint_policies\.(\w+)\(\s*\)")
_SYNTAX = re.compile(r"^line (\d+): SyntaxError: (.+)$")
_NO_ENTRY = re.compile(r"^the entry point (\w+)\(\) is not defined")


def compile_hint(text: str, program: str) -> tuple[str, str] | None:
    """What the gate and the child say of code that cannot run at all (our own words, so read as
    data): Python's syntax error at its line, or the function the problem calls, missing."""
    syntax_error = _SYNTAX.match(text)
    if syntax_error:
        number, said = int(syntax_error.group(1)), syntax_error.group(2)
        lines = program.splitlines()
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
        try:
            defined = [n.name for n in syntax.parse(program).body if isinstance(n, ast.FunctionDef)]
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            defined = []
        yours = f" Yours defines `{defined[-1]}`." if defined else ""
        return (
            f"Your code defines no function named `{entry}`, the one this problem calls.{yours}",
            f"Try: name your function `{entry}`, as the starter code does: def {entry}(...).",
        )
    return None
