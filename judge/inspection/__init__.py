"""What the judge reads from a traced program (jaxprs, never printed text), one module per concern.

Each case is traced once and differentiated once (``replay``); everything else is read from
those programs (``reading.read_case`` puts them together):

* ``structure.checkpoint_structure``: every ``jax.checkpoint``, with its policy known by identity
  (``policies``), whether it is on the differentiated path (``activity``), what it encloses
  there, its nesting; and the derivatives the program defines by hand (``derivatives``).
* ``provenance.saved_residuals``: what reverse mode saves for the backward pass, each residual
  with its provenance (an argument, a ``checkpoint_name`` value, or the output of a primitive at
  a line of the submission) and the checkpoint whose policy kept it, read through ``jit`` calls,
  checkpoints and ``scan`` bodies.
* ``programs``: the forward program (with residual outputs) and the backward program, exported
  with ``jax.export`` in the child; and in the verifier, read back, checked and refused if they
  call out of XLA (custom calls, callbacks, effects).
* ``program_cost``: FLOPs and peak bytes of one case's gradient step, counted in the verifier over
  the StableHLO module it compiles (the figures the rules and the leaderboard read);
  ``cost.step_picture``: the child's memory picture of the first sample, for the words only.

Every JAX object and internal these read is bound in one module, ``jax_internals``, pinned to the
JAX in the lock file and covered by the contract tests (``tests/judge/test_residuals_contract.py``).

Patching JAX from a submission: ``jax_internals`` binds every JAX function and object the
inspection relies on when it is imported, which happens in the zygote before any submission
exists (``_make_jaxpr``, the primitives; ``policies`` and ``derivatives`` record JAX's policy
objects and custom rules then). A submission that rebinds ``jax.checkpoint``, ``jax.make_jaxpr``
or ``jax.checkpoint_policies.dots_saveable`` changes its own program, not what is read here; one
that changes JAX's policy objects in place is found out (``policies.REGISTRY.intact``). What this
cannot stop is a submission that patches this very code in its own process before it runs; the
static gate refuses what that needs, and the numbers, gradients and residual sizes of the verdict
do not come from this process at all (see ``judge.in_child.verify``).
"""
