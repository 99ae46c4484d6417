import jax
import jax.numpy as jnp


def mixture(W1, W2, x, logit):
    with jax.ensure_compile_time_eval():
        alpha = 1.0 / (1.0 + jnp.exp(-logit))
        branches = [(W1, 1.0 - alpha)] if alpha < 0.99 else []
        if alpha > 0.01:
            branches.append((W2, alpha))
    return jnp.sum(sum(weight * jnp.tanh(jnp.dot(x, W)) for W, weight in branches) ** 2)


gated_mixture = jax.remat(mixture, static_argnums=(3,),
                          policy=jax.checkpoint_policies.checkpoint_dots_with_no_batch_dims)
