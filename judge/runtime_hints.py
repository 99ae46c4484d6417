"""What a runtime error of a sample case means for a learner, and what to try.

JAX's own exception text names its internals (``bool[]``, ``PjitFunction``, ``ad_checkpoint``);
a learner needs the cause in their terms first. Each hint matches the error's text (the class
name and JAX's wording, which the parent receives from the child as data) and says the cause
and one change. The raw text stays in the case's row, after the cause. Only sample cases get a
hint: a hidden case's error text is never shown (``grader.HIDDEN_ERROR``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Hint:
    pattern: re.Pattern
    cause: str  # may use {line}: " (line N)" or ""
    advice: str
    written: str = ""  # what the line the error names must hold for this hint to apply


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
    Hint(
        re.compile(r"PjitFunction.*is not a valid JAX type|is not a valid JAX type.*PjitFunction"),
        "Your code passes a model that holds functions (an Equinox module's activation, say) where JAX "
        "expects only arrays{line}: jax.lax.scan and jax.checkpoint trace arrays, not functions.",
        "Try: split the model with eqx.partition(model, eqx.is_array) and pass only the arrays through "
        "the transformation, combining them again inside with eqx.combine; or use eqx.filter_checkpoint.",
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
        re.compile(r"^RecursionError"),
        "Your code calls itself without end{line}: a recursion that never reaches its base case (or one "
        "deeper than Python allows).",
        "Try: check the recursion's base case and that each call works on a smaller part (half the list, say).",
    ),
)


def hint(text: str, line: int | None, written: str = "") -> tuple[str, str] | None:
    """(cause, advice) for a runtime error's text, or None when no hint applies; ``written``: the
    learner's line the error names."""
    for h in HINTS:
        if h.pattern.search(text) and h.written in written:
            return h.cause.format(line=f" (line {line})" if line else ""), h.advice
    return None
