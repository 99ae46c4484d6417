import jax
from jax.ad_checkpoint import checkpoint_name


def project(x, w, name):
    return checkpoint_name(x @ w, name)


def block(w_gate, w_up, w_down, x):
    hidden = jax.nn.silu(project(x, w_gate, "gate")) * project(x, w_up, "up")
    return x + hidden @ w_down


def swiglu_mlp(w_gate, w_up, w_down, x):
    keep = jax.checkpoint_policies.save_only_these_names("up", "gate")
    return jax.remat(block, policy=keep)(w_gate, w_up, w_down, x)
