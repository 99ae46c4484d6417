import jax

small_dots = jax.checkpoint_policies.dots_saveable
