"""What the judge reads from a traced program (jaxprs, never printed text), one module per concern.

* ``provenance.saved_residuals``: what reverse mode saves for the backward pass, each residual
  with its provenance (an argument, a ``checkpoint_name`` value, or the output of a primitive at
  a line of the submission), read through ``jit`` calls and ``scan`` bodies.
* ``structure.checkpoint_structure``: every ``jax.checkpoint`` in the forward program, with its
  policy reduced by ``policies.describe_policy`` to the canonical form of ``policy_names``, what
  it encloses, and its nesting.
* ``programs``: the forward program (with residual outputs) and the backward program, printed as
  the tutorial's ``print_fwd_bwd`` shows them, and exported with ``jax.export`` in the child; and
  in the verifier, read back, checked and refused if they call out of XLA (custom calls,
  callbacks, effects).
* ``cost.compiled_cost``: FLOPs and peak live bytes of one gradient step.

Every JAX object and internal these read is bound in one module, ``jax_internals``, pinned to the
JAX in the lock file and covered by the contract tests (``tests/judge/test_residuals_contract.py``).

Patching JAX from a submission: ``jax_internals`` binds every JAX function and object the
inspection relies on when it is imported, which happens in the zygote before any submission
exists (``_KNOWN_POLICIES``, ``_make_jaxpr``, the primitives). A submission that rebinds
``jax.checkpoint``, ``jax.make_jaxpr`` or ``jax.checkpoint_policies.dots_saveable`` changes its own
program, not what is read here. What this cannot stop is a submission that mutates JAX's internal
objects in place; the static gate refuses the attribute access that needs, and the numbers,
gradients and residual sizes of the verdict do not come from this process at all (see
``judge.verify``).
"""
