"""The explorer's pages with a module: an Equinox module pasted with its call's input shapes is
explored by the worker's task as a function is, and the page lists the parameters taken from it."""

import pytest
from django.urls import reverse

from webplatform.explorer.models import Exploration
from webplatform.explorer.tasks import run_exploration

pytestmark = pytest.mark.django_db

MODULE = """import equinox as eqx
import jax
import jax.numpy as jnp


class MLP(eqx.Module):
    layers: list

    def __call__(self, x):
        return jnp.mean(jax.vmap(self.layers[1])(jnp.tanh(jax.vmap(self.layers[0])(x))) ** 2)


def make_mlp(key):
    k1, k2 = jax.random.split(key)
    return MLP([eqx.nn.Linear(32, 64, key=k1), eqx.nn.Linear(64, 32, key=k2)])


model = eqx.filter_eval_shape(make_mlp, jax.random.key(0))
"""


def test_an_equinox_module_is_explored_and_its_parameters_listed(
    learner_client, learner, broker, django_capture_on_commit_callbacks
):
    form = {"source": MODULE, "function": "model", "args": "f32[16,32]", "budget": ""}
    with django_capture_on_commit_callbacks(execute=True):
        answer = learner_client.post(reverse("explorer:explore"), form)
    found = Exploration.objects.get(user=learner)
    assert answer.status_code == 302
    assert run_exploration.apply(args=[found.pk], task_id="m").get() == "done"
    found.refresh_from_db()
    assert found.result["library"] == "equinox" and len(found.result["parameters"]) == 4
    html = learner_client.get(answer["Location"]).content.decode()
    assert 'id="explore-table"' in html and "<code>dots_saveable</code>" in html
    assert "Parameters of your Equinox module, differentiated: <code>model.layers[0].weight f32[64,32]</code>" in html


def test_a_name_that_is_no_function_or_module_fails_with_what_it_is(
    learner_client, learner, broker, django_capture_on_commit_callbacks
):
    form = {"source": MODULE, "function": "MLP", "args": "f32[16,32]", "budget": ""}
    with django_capture_on_commit_callbacks(execute=True):
        learner_client.post(reverse("explorer:explore"), form)
    found = Exploration.objects.get(user=learner)
    assert run_exploration.apply(args=[found.pk], task_id="m").get() == "failed"
    found.refresh_from_db()
    assert "MLP is a class: build the module" in found.error


def test_a_module_s_library_and_parameters_reach_the_api_and_the_client(
    client, learner, broker, django_capture_on_commit_callbacks
):
    """What the page shows of a module, the API answers too (field for field), and ``arena explore``
    prints it: which library's module was explored, and the parameters it differentiated."""
    from arena.result import render_exploration

    from .api import api_for

    api = api_for(client, learner)
    with django_capture_on_commit_callbacks(execute=True):
        created = api.post("/explorations", {"source": MODULE, "function": "model", "args": ["f32[16,32]"]})
    assert created.status_code == 201
    assert created.json()["library"] == "function" and created.json()["parameters"] == []  # not run yet
    assert run_exploration.apply(args=[created.json()["id"]], task_id="m").get() == "done"
    found = api.get(f"/explorations/{created.json()['id']}").json()
    assert found["library"] == "equinox"
    assert "model.layers[0].weight f32[64,32]" in found["parameters"] and len(found["parameters"]) == 4
    compiled = [r["compiled_peak_bytes"] for r in found["rows"] if r["compiled_peak_bytes"] is not None]
    assert compiled and all(peak > 0 for peak in compiled)  # XLA's figures reach the API too
    printed = render_exploration(found)
    assert "Equinox module: its parameters, differentiated: model.layers[0].weight f32[64,32]" in printed
