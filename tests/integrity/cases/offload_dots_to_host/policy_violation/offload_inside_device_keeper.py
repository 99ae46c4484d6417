"""Attacks: the memory each residual is kept in (issue 15).

The program names the required policy, offload_dot_with_no_batch_dims("device", "pinned_host"),
on a checkpoint that holds every operation, so a check of the policy's name and of what it
encloses passes; but that checkpoint sits inside another whose dots policy decides what the
forward pass keeps: the two products stay on the device, with the right values and types. (A
host copy made by hand is no way around it: JAX 0.10.2 refuses to differentiate a device_put to
host memory, so only an offloading policy can put a residual there.) The judge reads the memory
of each residual from the program that runs: "saved on the device; the policy offloads it".
"""
import jax
import jax.numpy as jnp

to_host = jax.checkpoint_policies.offload_dot_with_no_batch_dims("device", "pinned_host")


def block(w1, w2, x):
    hidden = jnp.tanh(x @ w1)
    return jnp.sum(jax.nn.relu(hidden @ w2) ** 2)


def offload_mlp(w1, w2, x):
    inner = jax.checkpoint(block, policy=to_host)
    return jax.checkpoint(inner, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)(w1, w2, x)
