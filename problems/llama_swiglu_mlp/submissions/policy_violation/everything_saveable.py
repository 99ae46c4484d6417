import jax
from jax.ad_checkpoint import checkpoint_name


def block(w_gate, w_up, w_down, x):
    gate = checkpoint_name(x @ w_gate, "gate")
    up = checkpoint_name(x @ w_up, "up")
    return x + (jax.nn.silu(gate) * up) @ w_down


def swiglu_mlp(w_gate, w_up, w_down, x):
    return jax.checkpoint(block, policy=jax.checkpoint_policies.everything_saveable)(w_gate, w_up, w_down, x)
