"""What the zygote checks once, in a child of its own, before it serves: which layers hold.

The probe child applies every layer it can (``harden(strict=False)``), then checks each one by
its effect, not by its own word: the session it is in, the descriptors left open, the
environment, the namespaces it left, what the filesystem shows, its rlimits, uid and
no_new_privs flag, and that the kernel refuses a socket and a fork. Then it runs a tiny grading
end to end (trace, export, verify) inside all of that, which proves the sandbox leaves the judge
working and tells the zygote which modules that path imports lazily, so that it can import them
before forking. No submitted code ever runs in the probe: its report is trusted.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from ..sandbox import layers
from .harden import CHILD, Plan

SAMPLE_SOURCE = """
import jax
import jax.numpy as jnp


def sample(w, x):
    policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable
    return jax.checkpoint(lambda w, x: jnp.sum(jnp.sin(x @ w) ** 2), policy=policy)(w, x)
"""


def examine(plan: Plan, evidence: dict, missing: dict, project_root: Path) -> dict:
    status = {}
    for name in layers.CHILD_LAYERS:
        if name in missing:
            status[name] = {"ok": False, "detail": missing[name]}
            continue
        try:
            problem = CHILD[name].holds(plan, evidence, project_root)
        except Exception as exc:  # noqa: BLE001
            problem = f"check failed: {type(exc).__name__}: {exc}"
        status[name] = {"ok": problem is None, "detail": problem or "active"}
    before = set(sys.modules)
    sample = run_sample()
    return {"layers": status, "sample": sample, "modules": sorted(set(sys.modules) - before)}


def _sample_request():
    from ..data import messages

    rng = np.random.default_rng(0)
    w, x = rng.standard_normal((3, 3)).astype(np.float32), rng.standard_normal((2, 3)).astype(np.float32)
    request = messages.ChildRequest(
        source=SAMPLE_SOURCE,
        entry="sample",
        arg_names=["w", "x"],
        wrt=[0, 1],
        cases=[messages.CaseInput("sample", 0, [False, False], [w, x])],
    )
    return request, w, x


def warm_up_tracing() -> None:
    """Trace and export the sample in this process, as a submission's child does its request: the
    first time costs a process far more than the next (the backend started, JAX's caches
    filled, the memory it writes copied from the zygote's). Run by a child forked ahead of its
    request (``zygote_server._serve_one``); its answer is not needed."""
    from ..in_child import child

    child.serve(_sample_request()[0].to_wire())


def run_sample() -> str | None:
    """Grade a tiny function end to end in this process; None when it worked, else why not."""
    from ..data import messages
    from ..in_child import child

    request, w, x = _sample_request()
    try:
        traced = messages.parse_child_response(child.serve(request.to_wire()), ["sample"])
        if traced.error is not None or traced.cases[0].error is not None:
            return f"tracing failed: {traced}"
        cotangent = [np.ones((), np.float32)]
        fwd, bwd = traced.programs
        checked = messages.parse_verify_response(
            child.serve(
                messages.VerifyRequest(
                    fwd, bwd, [0, 1], [messages.VerifyCase("sample", [w, x], cotangent, [w, x], cotangent)]
                ).to_wire()
            ),
            ["sample"],
        )
        if checked.error is not None or not checked.checked:
            return f"verification failed: {checked}"
        expected = np.sum(np.sin(x @ w) ** 2)
        if not np.allclose(checked.cases[0].value[0], expected, rtol=1e-5):
            return "verification computed a wrong value"
        return None
    except Exception as exc:  # noqa: BLE001
        return f"{type(exc).__name__}: {exc}"
