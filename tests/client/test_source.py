"""``arena.submit(slug, function)``: the module written around a function is what the function
needs, and what cannot be written back as source is refused with the name that needs it."""

import pathlib

import jax.numpy as jnp
import numpy as np
import pytest

from arena.source import SourceError, module_source, source_text

from . import helpers_module as cells


def run_module(source: str, entry: str):
    namespace = {}
    exec(compile(source, "<submitted>", "exec"), namespace)
    return namespace[entry]


def test_a_function_brings_its_imports_constants_and_helpers_and_the_entry_alias():
    source = module_source(cells.attempt, entry="checkpoint_dot_policy")
    assert "import jax\n" in source and "import jax.numpy as jnp" in source
    assert "from jax import checkpoint" in source and "SCALE = 2.0" in source
    assert source.index("def pipeline") < source.index("def attempt") < source.index("checkpoint_dot_policy = attempt")
    w1, w2, x = jnp.ones((16, 16)), jnp.ones((16, 16)) * 0.5, jnp.ones((8, 16))
    assert np.allclose(run_module(source, "checkpoint_dot_policy")(w1, w2, x), cells.attempt(w1, w2, x))


def test_a_decorated_function_keeps_its_decorator_and_no_alias_is_needed_for_its_own_name():
    source = module_source(cells.decorated, entry="decorated")
    assert source.count("@functools.partial(jax.checkpoint") == 1 and "import functools" in source
    assert "SIZES = (8, 16)" in source and "decorated = decorated" not in source
    assert np.allclose(run_module(source, "decorated")(jnp.ones(4)), cells.decorated(jnp.ones(4)))


@pytest.mark.parametrize(
    ("function", "words"),
    [
        (cells.uses_an_array, "uses 'ARRAY' (ArrayImpl), which cannot be written as source"),
        (cells.outer(), "reads variables of an enclosing function (factor)"),
        (cells.calls_renamed, "'renamed', which is 'pipeline' under another name"),
        (lambda x: x, "a lambda has no name"),
        (print, "expected a function defined with def"),
    ],
)
def test_what_cannot_be_written_back_is_refused_with_the_name_that_needs_it(function, words):
    with pytest.raises(SourceError, match=words.replace("(", r"\(").replace(")", r"\)")):
        module_source(function, entry="f")


def test_text_and_files_are_sent_as_they_are(tmp_path):
    assert source_text("x = 1\n") == "x = 1\n"
    (tmp_path / "f.py").write_text("y = 2\n")
    assert source_text(pathlib.Path(tmp_path / "f.py")) == "y = 2\n"
    with pytest.raises(SourceError, match="not int"):
        source_text(3)
