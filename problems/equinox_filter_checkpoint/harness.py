# Builds the model the learner's loss receives: an Equinox MLP (one hidden layer, GELU) whose
# weights are the problem's arrays. It runs the same way for the reference and for the learner.
import equinox as eqx
import jax


def build(w1, b1, w2, b2):
    out_size, width = w2.shape
    template = eqx.nn.MLP(in_size=w1.shape[1], out_size=out_size, width_size=width, depth=1,
                          activation=jax.nn.gelu, key=jax.random.key(0))
    return eqx.tree_at(
        lambda m: (m.layers[0].weight, m.layers[0].bias, m.layers[1].weight, m.layers[1].bias),
        template, (w1, b1, w2, b2))


def run(loss, w1, b1, w2, b2, x):
    return loss(build(w1, b1, w2, b2), x)
