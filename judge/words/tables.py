"""Causes about a table the computation reads (``jnp.arange`` and what follows): built with NumPy,
or built outside the checkpoint, the backward pass keeps all of it instead of rebuilding it.
"""

from __future__ import annotations

from ..source import Source
from .learner_checkpoints import in_checkpointed_function
from .shared import STRUCTURE, Cause


def numpy_table(source: Source, problem: str) -> Cause:
    """A table built with NumPy is a constant of the traced program, wherever the line sits: the
    checkpoint has nothing to rebuild, and the backward pass keeps the whole table."""
    line = source.numpy_calls("arange")[0]
    return Cause(
        STRUCTURE,
        f"Your table is built with NumPy at line {line} (`{source.line(line)}`): NumPy runs "
        f"while JAX traces, so the table becomes a constant baked into the program, and the "
        f"backward pass keeps all of it instead of rebuilding it inside your jax.checkpoint.",
        "Try: write the table's lines with jax.numpy where they stand: jnp.arange, jnp.where and jnp.float32 in "
        "place of np.arange, np.where and np.float32, so that it is computed from its shape and recomputed in the "
        "backward pass."
        if in_checkpointed_function(source, line)
        else "Try: build the table with jax.numpy (jnp.arange, jnp.where) inside the function you checkpoint, "
        "so that it is computed from its shape and recomputed in the backward pass.",
        (problem,),
    )


def table_outside(source: Source, problem: str) -> Cause:
    """A table built outside the checkpoint with jax.numpy: the checkpoint receives it as an input,
    which the backward pass keeps whole."""
    line = next((n for n, text in enumerate(source.lines, 1) if "arange(" in text), None)
    built = f" at line {line} (`{source.line(line).split('  #')[0]}`)" if line else ""
    return Cause(
        STRUCTURE,
        f"Your table is built outside your jax.checkpoint{built}, so the checkpoint receives it as a "
        f"finished value and the backward pass keeps all of it, where building it inside lets the "
        f"backward pass rebuild it from its shape.",
        "Try: build the table inside the function you checkpoint (its jnp.arange and what follows), "
        "from the shape of an input, rather than passing it in or closing over it.",
        (problem,),
    )
