import jax
import jax.numpy as jnp


# No checkpoint: plain reverse mode keeps tanh's and relu's results on the device, offloads nothing.
def offload_mlp(w1, w2, x):
    hidden = jnp.tanh(x @ w1)
    return jnp.sum(jax.nn.relu(hidden @ w2) ** 2)
