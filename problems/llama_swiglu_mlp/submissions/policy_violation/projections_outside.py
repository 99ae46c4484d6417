import jax
from jax.ad_checkpoint import checkpoint_name


def activation(gate, up, w_down, x):
    return x + (jax.nn.silu(gate) * up) @ w_down


def swiglu_mlp(w_gate, w_up, w_down, x):
    gate = checkpoint_name(x @ w_gate, "gate")
    up = checkpoint_name(x @ w_up, "up")
    policy = jax.checkpoint_policies.save_only_these_names("gate", "up")
    return jax.checkpoint(activation, policy=policy)(gate, up, w_down, x)
