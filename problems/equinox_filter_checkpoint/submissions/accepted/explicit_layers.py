import equinox as eqx
import jax
import jax.numpy as jnp


class Apply(eqx.Module):
    """The same MLP, applied layer by layer."""

    model: eqx.nn.MLP

    def __call__(self, x):
        first, second = self.model.layers
        return second(self.model.activation(first(x)))


def loss(model, x):
    keep = jax.checkpoint_policies.checkpoint_dots_with_no_batch_dims
    run = eqx.filter_checkpoint(lambda f, x: jax.vmap(f)(x), policy=keep)
    return (run(Apply(model), x) ** 2).mean()
