"""Remat Arena from Python and notebooks.

    import arena
    arena.configure("https://arena.example.org", token="arena_...")   # or ARENA_URL/ARENA_TOKEN, or `arena login`
    result = arena.submit("checkpoint_dot_policy", my_function)      # waits for the verdict
    result            # a notebook shows the verdict, the message and the residual table
    result.accepted, result.verdict, result.message, result.residuals, result.memory
    found = arena.explore(my_function, "f32[64,128]", "f32[128,64]", budget=200_000)  # every policy
    found.best.code   # the change that applies the cheapest plan within the budget

``fn_or_source``: the module's text, a ``pathlib.Path`` to a file, or a function (the module is
written around it: see ``arena.source``).
"""

__version__ = "0.1.0"

from .client import ArenaError, Client  # noqa: E402
from .result import Result, render_exploration  # noqa: E402
from .schema import PolicyExploration, read  # noqa: E402
from .source import SourceError, source_text  # noqa: E402

__all__ = [
    "ArenaError",
    "Client",
    "Exploration",
    "Result",
    "SourceError",
    "configure",
    "explore",
    "inspect",
    "problem",
    "problems",
    "run",
    "submit",
]
_client: Client | None = None


def configure(url: str | None = None, token: str | None = None) -> Client:
    """Talk to ``url`` with ``token`` from now on (by default: the environment, then `arena login`)."""
    global _client
    if _client is not None:
        _client.close()
    _client = Client(url, token) if url else Client.from_settings()
    return _client


def _site() -> Client:
    return _client if _client is not None else configure()


def problems(*, tag: str | None = None, difficulty: str | None = None) -> list[dict]:
    return _site().problems(tag=tag, difficulty=difficulty)


def problem(slug: str) -> dict:
    return _site().problem(slug)


def _send(kind: str, slug: str, fn_or_source, *, wait: bool, timeout: float, version: int | None) -> Result:
    site = _site()
    entry = site.problem(slug)["entry"] if callable(fn_or_source) else None
    source = source_text(fn_or_source, entry=entry)
    created = site.create(slug, source, kind=kind, version=version)
    result = site.wait(created["id"], timeout=timeout) if wait else Result(created, site=site.url)
    if callable(fn_or_source):  # its lines are the written module's, which the learner never saw
        result.module_source = source
    return result


def submit(slug: str, fn_or_source, *, wait: bool = True, timeout: float = 300, version: int | None = None) -> Result:
    """Grades on every case, recorded and ranked; returns the graded ``Result`` (``wait=False``:
    at once, ungraded)."""
    return _send("submit", slug, fn_or_source, wait=wait, timeout=timeout, version=version)


def inspect(slug: str, fn_or_source, *, wait: bool = True, timeout: float = 300, version: int | None = None) -> Result:
    """What the code saves for the backward pass, its checkpoints and its memory over a gradient
    step, on the first sample case (as the page's "Inspect"): no verdict, not recorded."""
    return _send("inspect", slug, fn_or_source, wait=wait, timeout=timeout, version=version)


def run(slug: str, fn_or_source, *, wait: bool = True, timeout: float = 300, version: int | None = None) -> Result:
    """Grades on the sample cases only (as "Run samples"): not recorded, not ranked."""
    return _send("run", slug, fn_or_source, wait=wait, timeout=timeout, version=version)


class Exploration:
    """The policy explorer's answer: ``rows`` (one ``arena.schema.Plan`` per plan, with
    ``held_bytes``, ``flops``, ``dominated``...), ``best`` (the plan within the budget, with its
    ``code``; None if none fits or no budget was given), ``exploration`` (the whole answer, typed)
    and ``data`` (as the site sent it). Printed, it is the table."""

    def __init__(self, data: dict):
        self.data, self.exploration = data, read(PolicyExploration, data)
        self.rows, self.best = self.exploration.rows, self.exploration.best

    def __repr__(self) -> str:
        return render_exploration(self.data)


def explore(
    fn_or_source,
    *shapes: str,
    function: str | None = None,
    budget: int | None = None,
    budget_on: str = "held",
    timeout: float = 300,
) -> Exploration:
    """Every checkpoint policy of a function, measured by the site as verdicts are: a function
    (its module is written around it), or code as text or a path with ``function`` naming the
    function in it; ``shapes``: each argument's dtype and shape, such as ``"f32[64,128]"``;
    ``budget_on``: what the budget bounds, ``"held"`` (between the passes) or ``"peak"``."""
    if function is None:
        if not callable(fn_or_source):
            raise SourceError("name the function to explore: explore(code, *shapes, function=...)")
        function = fn_or_source.__name__
    site = _site()
    created = site.explore(source_text(fn_or_source), function, list(shapes), budget=budget, budget_on=budget_on)
    found = site.wait_exploration(created["id"], timeout=timeout)
    return Exploration(site.chosen_on(found, budget=budget, budget_on=budget_on))
