"""judge/ imports one way: each module only from its own layer or the layers below, and no cycle.

The layers, bottom first, are the drawing in docs/design/architecture.md ("The judge"). Every module of judge/
must be placed in one (a new module is a decision about where it belongs); lazy imports inside
functions count like the others.
"""

import ast
from pathlib import Path

from judge.data import syntax

JUDGE = Path(__file__).resolve().parents[2] / "judge"

LAYERS = [
    # the vocabulary and the data: verdicts, packages, wire messages, reports (no process, no JAX)
    {"data", "packages"},
    # a submission's source read once: its tree, scopes, checkpoint sites and loops (read, never run)
    {"source"},
    # the kernel's pieces the sandbox is made of
    {"sandbox"},
    # inside a child: the gate's builtins, the code beside the submission, what it reads of JAX, the verifier
    {"in_child", "inspection"},
    # the sandbox's own processes: hardening a child, the probe, the zygote server
    {"processes"},
    # the parent's side of the process boundary, and its runners
    {"runners"},
    # grading: a source through its children to a report, the words of a refusal's cause, and the
    # explorer, which measures plans as a grading does (the wording reads its loops over blocks)
    {"grading", "words", "explorer"},
    # what people and the site call
    {"validate", "bench", "cli", "__main__", "__init__", "bench_explorer"},
]
LAYER = {module: index for index, layer in enumerate(LAYERS) for module in layer}


def layer_of(name: str) -> int | None:
    """A module's layer: its own entry, or else its folder's (``sandbox.seccomp`` is in ``sandbox``'s
    layer when only the folder is listed); None where neither is placed."""
    if name in LAYER:
        return LAYER[name]
    return LAYER.get(name.split(".")[0]) if "." in name else None


def _name(path: Path) -> str:
    parts = list(path.relative_to(JUDGE).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_name(path): path for path in JUDGE.rglob("*.py")}


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The judge modules ``name`` imports (``from . import x`` names module ``x`` where there is one)."""
    package = name.split(".") if path.name == "__init__.py" and name != "__init__" else name.split(".")[:-1]
    found = set()
    for node in ast.walk(syntax.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name.removeprefix("judge.") for a in node.names if a.name.startswith("judge.")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1] + (node.module.split(".") if node.module else [])
            elif node.module and (node.module == "judge" or node.module.startswith("judge.")):
                base = node.module.split(".")[1:]
            else:
                continue
            for alias in node.names:
                target = ".".join(base + [alias.name])
                found.add(target if target in known else ".".join(base) or "__init__")
    return found - {name}


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, set(modules)) for name, path in modules.items()}


def test_every_module_has_a_layer():
    modules = set(_modules())
    unplaced = sorted(name for name in modules if layer_of(name) is None)
    assert unplaced == [], "place new modules in LAYERS (and in docs/design/architecture.md's drawing)"
    folders = {name.split(".")[0] for name in modules if "." in name}
    assert set(LAYER) <= modules | folders, "LAYERS names a module or folder that is gone"


def test_no_module_imports_from_a_layer_above_its_own():
    upward = [
        f"{name} (layer {layer_of(name)}) imports {target} (layer {layer_of(target)})"
        for name, targets in _graph().items()
        for target in targets
        if layer_of(target) > layer_of(name)
    ]
    assert upward == []


def test_no_import_cycle():
    graph, done, path = _graph(), set(), []

    def visit(name: str) -> None:
        assert name not in path, f"import cycle: {' -> '.join(path[path.index(name) :] + [name])}"
        if name in done:
            return
        path.append(name)
        for target in sorted(graph[name]):
            visit(target)
        path.pop()
        done.add(name)

    for name in sorted(graph):
        visit(name)


def test_the_check_sees_imports_of_every_kind():
    graph = _graph()
    assert "sandbox.rlimits" in graph["in_child.child"]  # inside a function
    assert {"in_child.child", "in_child.verify", "inspection.cost"} <= graph[
        "processes.zygote_server"
    ]  # from .. and from ..inspection
    assert "runners.zygote_runner" in graph["grading.grader"] and "runners.boundary" in graph["runners.zygote_runner"]
