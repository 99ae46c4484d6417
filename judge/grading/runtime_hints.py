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

from ..source import Source
from . import traced_flag_advice, written_form


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
                moved = traced_flag_advice.static_by_name(program)
                if moved is not None:
                    return h.cause.format(line=f" (line {line})" if line else ""), moved
            advice = (
                traced_flag_advice.branch_advice(line, written, program) if h is HINTS[0] else None
            ) or h.advice.format(policy=policy)
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
