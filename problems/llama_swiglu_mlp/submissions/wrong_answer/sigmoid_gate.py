import jax
from jax.ad_checkpoint import checkpoint_name


def block(w_gate, w_up, w_down, x):
    gate = checkpoint_name(x @ w_gate, "gate")
    up = checkpoint_name(x @ w_up, "up")
    # sigmoid is only half of SiLU: silu(z) = z * sigmoid(z)
    return x + (jax.nn.sigmoid(gate) * up) @ w_down


def swiglu_mlp(w_gate, w_up, w_down, x):
    policy = jax.checkpoint_policies.save_only_these_names("gate", "up")
    return jax.checkpoint(block, policy=policy)(w_gate, w_up, w_down, x)
