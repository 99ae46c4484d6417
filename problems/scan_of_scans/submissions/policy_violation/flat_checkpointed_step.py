import jax
import jax.numpy as jnp


def euler_loss(W, h0, dts):
    @jax.checkpoint
    def step(h, dt):
        return h + dt * jnp.tanh(h @ W), None

    # One checkpoint level: every one of the T carries is still kept.
    h, _ = jax.lax.scan(step, h0, dts)
    return jnp.sum(h ** 2)
