# Builds the model the learner's loss receives: L residual blocks made with Equinox and stacked
# the Equinox way (eqx.filter_vmap over the constructor), so that every array leaf gets a leading
# layer axis. The weights are the problem's arrays. It runs the same way for every submission.
from typing import Callable

import equinox as eqx
import jax


class Block(eqx.Module):
    linear: eqx.nn.Linear
    activation: Callable

    def __call__(self, h):
        return h + self.activation(self.linear(h))


def build(W, b):
    layers, width, _ = W.shape
    make = lambda key: Block(eqx.nn.Linear(width, width, key=key), jax.nn.silu)  # noqa: E731
    template = eqx.filter_vmap(make)(jax.random.split(jax.random.key(0), layers))
    return eqx.tree_at(lambda m: (m.linear.weight, m.linear.bias), template, (W, b))


def run(loss, W, b, x):
    return loss(build(W, b), x)
