"""``arena explore FILE`` names what ``python -m judge explore FILE`` would
(``judge.explorer.function_reading.default_function``): the file's last top-level function, or the
module it builds after it."""

from arena.cli import _last_function

SOURCES = [
    "import jax\n\n\ndef block(h):\n    return h\n\n\ndef model(x):\n    return block(x)\n",
    "import equinox as eqx\n\n\ndef make(key):\n    return eqx.nn.MLP(4, 4, 8, 2, key=key)\n\n\n"
    "model = eqx.filter_eval_shape(make, None)\n",
    "from flax import nnx\n\nmodel = nnx.eval_shape(lambda: nnx.Linear(4, 4, rngs=nnx.Rngs(0)))\n",
    "WIDTH = 128\n",
    "def broken(:\n",
]


def test_the_client_and_the_judge_take_the_same_default_name():
    assert [_last_function(s) for s in SOURCES] == ["model", "model", "model", None, None]
