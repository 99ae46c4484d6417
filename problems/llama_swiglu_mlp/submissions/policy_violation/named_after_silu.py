import jax
from jax.ad_checkpoint import checkpoint_name


def block(w_gate, w_up, w_down, x):
    # the label is put on the activation, not on the projection
    gate = checkpoint_name(jax.nn.silu(x @ w_gate), "gate")
    up = checkpoint_name(x @ w_up, "up")
    return x + (gate * up) @ w_down


def swiglu_mlp(w_gate, w_up, w_down, x):
    policy = jax.checkpoint_policies.save_only_these_names("gate", "up")
    return jax.checkpoint(block, policy=policy)(w_gate, w_up, w_down, x)
