"""The site's apps are layered one way: each imports only from the layers below it, read from
the source (every import, those inside functions too), so an arrow up fails here before it
becomes a circle. Task modules are leaves: services enqueue by task name."""

import ast
from pathlib import Path

from judge.data import syntax

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "webplatform"

# Bottom first. A part may import from its own layer's part and from the layers below, never
# from a layer above nor from another part of its own layer.
LAYERS = [
    {"settings", "celery"},  # the settings, the Celery app
    {"core", "__init__"},  # plumbing: the never-stale cache, queues, the worker's runner
    {"accounts"},
    {"catalog"},  # problems and their immutable versions
    {"submissions"},  # attempts at a version, their grading
    {"leaderboard", "authoring", "monitoring"},  # rankings from verdicts; problems written in the browser; metrics
    {
        "courses",
        "explorer",
    },  # the policy explorer (over the judge and the leaderboard's chart); rosters, assignments with deadlines, gradebooks: over verdicts and problems
    {"practice", "lti"},  # the learner's pages, which show all of the above; courses over LTI 1.3
    {"api"},  # the JSON API: the learner's pages' reads and the services, for programs
    {"urls", "wsgi", "asgi"},  # the project wires every app
]
LAYER_OF = {part: index for index, parts in enumerate(LAYERS) for part in parts}


def module_name(path: Path, package_root: Path) -> str:
    parts = list(path.relative_to(package_root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, package_root: Path) -> set[str]:
    """Absolute names of the modules ``path`` imports, anywhere in the file."""
    name = module_name(path, package_root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(syntax.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            found.add(module)
            # ``from . import services``: the names may be modules themselves.
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def import_graph(package_root: Path) -> dict[str, set[str]]:
    """{module: the modules of the package it imports} for every source file but migrations."""
    modules = {
        module_name(path, package_root): path for path in package_root.rglob("*.py") if "migrations" not in path.parts
    }
    return {
        name: {other for other in imports_of(path, package_root) if other in modules and other != name}
        for name, path in modules.items()
    }


def part_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def arrows_up(graph: dict[str, set[str]]) -> list[str]:
    wrong = []
    for module, imported in sorted(graph.items()):
        for other in sorted(imported):
            mine, theirs = part_of(module), part_of(other)
            if mine == theirs:
                continue
            if LAYER_OF[theirs] >= LAYER_OF[mine]:
                wrong.append(f"{module} imports {other} ({theirs} is not below {mine})")
    return wrong


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each circle of imports, once (depth-first search, reported from where it closes)."""
    found, state = [], {}

    def visit(module, path):
        state[module] = "open"
        for other in sorted(graph[module]):
            if state.get(other) == "open":
                found.append(path[path.index(other) :] + [other])
            elif other not in state:
                visit(other, path + [other])
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    return found


GRAPH = import_graph(ROOT / PACKAGE)


def test_every_part_of_the_site_has_a_layer():
    assert {part_of(module) for module in GRAPH} == set(LAYER_OF)


def test_no_app_imports_from_a_layer_above_it_or_beside_it():
    assert arrows_up(GRAPH) == []


def test_no_module_of_the_site_imports_itself_back():
    assert cycles(GRAPH) == []


def test_task_modules_are_leaves_that_services_reach_by_name():
    importers = {
        module: sorted(other for other in imported if other.endswith(".tasks")) for module, imported in GRAPH.items()
    }
    assert {module: tasks for module, tasks in importers.items() if tasks} == {}


def test_the_checks_see_an_arrow_up_and_a_circle(tmp_path):
    """What the tests above would say of the layering this replaced: the catalog reading the
    submissions and the leaderboard, services and tasks importing each other."""
    site = tmp_path / PACKAGE
    for folder in ("catalog", "submissions", "leaderboard"):
        (site / folder).mkdir(parents=True)
        (site / folder / "__init__.py").write_text("")
    (site / "__init__.py").write_text("")
    (site / "catalog" / "selectors.py").write_text("from webplatform.leaderboard.selectors import counts\n")
    (site / "leaderboard" / "selectors.py").write_text("counts = {}\n")
    (site / "submissions" / "services.py").write_text("def enqueue():\n    from .tasks import grade\n")
    (site / "submissions" / "tasks.py").write_text("from . import services\n")
    graph = import_graph(site)
    assert arrows_up(graph) == [
        "webplatform.catalog.selectors imports webplatform.leaderboard.selectors (leaderboard is not below catalog)"
    ]
    assert cycles(graph) == [
        ["webplatform.submissions.services", "webplatform.submissions.tasks", "webplatform.submissions.services"]
    ]
