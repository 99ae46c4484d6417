"""The static gate: a submission's source is read (never run) before any process starts.

It refuses, with the line and a reason a learner understands, what a checkpointing solution
never needs and an attack usually does: imports outside an allow-list, access to private or
double-underscore attributes (the way out of every Python "jail"), assignment into modules or
other objects, running code from strings or files (``exec``, ``eval``, ``compile``, ``open``,
``__import__``), and reflection (``getattr``, ``setattr``, ``vars``, ``globals``...).

What the gate guarantees: code it accepts cannot *name* those things. What it cannot guarantee:
that no accepted construct reaches them anyway (Python is too dynamic for that), so it is the
first wall, not the only one. The child process enforces the same import allow-list and the
same missing builtins at run time (``restricted_builtins``), the operating system layers of
``judge.sandbox`` contain whatever still gets through, and the numbers and residual sizes the
verdict rests on are recomputed where no submitted code ran (``judge.verify``).
"""
from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass

MAX_SOURCE_BYTES = 64 * 1024

# Modules a checkpointing solution may import; a submodule must be listed itself.
ALLOWED_MODULES = frozenset({
    "jax", "jax.numpy", "jax.numpy.linalg", "jax.lax", "jax.nn", "jax.nn.initializers",
    "jax.ad_checkpoint", "jax.tree_util", "jax.tree", "jax.random", "jax.scipy", "jax.scipy.special",
    "functools", "math", "typing", "itertools", "collections", "numpy",
    "equinox", "equinox.nn",  # the neural network library of the bank's framework problems
})
ALLOWED_SUMMARY = "jax (with jax.numpy, jax.lax, jax.nn, jax.ad_checkpoint, jax.tree_util, jax.random, " \
                  "jax.scipy), equinox (with equinox.nn), functools, math, typing, itertools, collections and numpy"

_REFLECTION = "reflection is not allowed in submissions: use plain attribute access such as " \
              "jax.checkpoint_policies.dots_saveable"
_NO_CODE_FROM_TEXT = "submissions cannot run code from strings or files"
DENIED_BUILTINS = {
    "exec": _NO_CODE_FROM_TEXT,
    "eval": _NO_CODE_FROM_TEXT,
    "compile": _NO_CODE_FROM_TEXT,
    "open": "submissions cannot open files",
    "input": "submissions cannot read input",
    "breakpoint": "the debugger is not available in the judge",
    "help": "interactive help is not available in the judge",
    "exit": "submissions cannot end the judge's process; return a value instead",
    "quit": "submissions cannot end the judge's process; return a value instead",
    "getattr": _REFLECTION,
    "setattr": _REFLECTION,
    "delattr": _REFLECTION,
    "hasattr": _REFLECTION,
    "vars": _REFLECTION,
    "globals": _REFLECTION,
    "locals": _REFLECTION,
    "dir": _REFLECTION,
    "memoryview": "raw memory access is not allowed in submissions",
}

_INTERNALS = "it reaches Python's or JAX's internals, which submissions may not touch"
_CALLBACK = "host callbacks run Python outside the traced program, which the judge cannot grade; " \
            "print() inside your function shows the traced values"
_FILES = "submissions cannot read or write files"
# Attribute names refused wherever they appear, besides every name starting with "_".
DENIED_ATTRIBUTES = {
    **{name: _INTERNALS for name in (
        "gi_frame", "gi_code", "gi_yieldfrom", "cr_frame", "cr_code", "cr_await", "cr_origin",
        "ag_frame", "ag_code", "ag_await", "f_back", "f_globals", "f_locals", "f_builtins", "f_code",
        "f_trace", "tb_frame", "tb_next", "co_code", "co_consts", "co_names", "func_globals",
        "func_code", "im_func", "im_self", "mro", "extend", "interpreters", "core", "lib", "config",
        "experimental", "ctypeslib", "f2py", "distutils", "testing")},
    "format": "str.format can read attributes by name; use an f-string instead",
    "format_map": "str.format_map can read attributes by name; use an f-string instead",
    "debug": "jax.debug.print and jax.debug.callback are host callbacks the judge cannot grade; "
             "print() inside your function shows the traced values",
    "pure_callback": _CALLBACK,
    "io_callback": _CALLBACK,
    **{name: _FILES for name in ("load", "save", "savez", "savez_compressed", "fromfile", "tofile",
                                 "memmap", "loadtxt", "savetxt", "genfromtxt", "fromregex", "DataSource",
                                 "tree_serialise_leaves", "tree_deserialise_leaves",
                                 "default_serialise_filter_spec", "default_deserialise_filter_spec")},
    # Equinox's namespace also holds the standard importlib module, its internal API, a host
    # callback and a helper that writes attributes onto other objects.
    "importlib": "`importlib` imports modules by name; submissions may import only the allowed modules",
    "internal": _INTERNALS,
    "filter_pure_callback": _CALLBACK,
    "module_update_wrapper": "it writes attributes onto other objects, which submissions may not change",
}
READABLE_DUNDERS = frozenset({"__name__"})  # `if __name__ == "__main__":` is harmless
# Methods a class of the submission may define: `__call__` is how an Equinox module is applied,
# and defining it only changes what calling that class's own instances does.
DEFINABLE_DUNDERS = frozenset({"__call__"})


@dataclass(frozen=True)
class Refusal:
    verdict: str  # "forbidden" or "compile_error"
    line: int | None
    reason: str

    @property
    def message(self) -> str:
        return f"line {self.line}: {self.reason}" if self.line else self.reason


def check(source: str) -> Refusal | None:
    """None if the gate lets the source through; else why not (the first problem found)."""
    if len(source.encode("utf-8", "surrogatepass")) > MAX_SOURCE_BYTES:
        return Refusal("forbidden", None, f"the file is larger than {MAX_SOURCE_BYTES // 1024} KiB")
    try:
        tree = ast.parse(source, filename="submission.py")
    except SyntaxError as exc:
        return Refusal("compile_error", exc.lineno, f"SyntaxError: {exc.msg}")
    except (ValueError, MemoryError, RecursionError) as exc:  # NUL bytes, absurd nesting
        return Refusal("compile_error", None, f"the source cannot be parsed: {type(exc).__name__}")
    try:
        _Checker().visit(tree)
    except _Refused as refused:
        return Refusal("forbidden", refused.line, refused.reason)
    except RecursionError:
        return Refusal("forbidden", None, "the program is nested too deeply to be checked")
    return None


class _Refused(Exception):
    def __init__(self, node: ast.AST, reason: str):
        self.line, self.reason = getattr(node, "lineno", None), reason


def module_allowed(name: str) -> bool:
    return name in ALLOWED_MODULES


def attribute_refusal(name: str) -> str | None:
    """Why ``obj.<name>`` is refused, or None when it is fine."""
    if name.startswith("__") and name.endswith("__"):
        return f"`{name}` is a double-underscore attribute; {_INTERNALS}"
    if name.startswith("_"):
        return f"`{name}` is a private attribute (its name starts with an underscore); use the public API"
    if name in DENIED_ATTRIBUTES:
        return f"`.{name}` is not allowed: {DENIED_ATTRIBUTES[name]}"
    return None


class _Checker(ast.NodeVisitor):
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._module(node, alias.name)
            self._bound_name(node, alias.asname)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            raise _Refused(node, "relative imports are not allowed: a submission is a single file")
        self._module(node, node.module or "")
        for alias in node.names:
            if alias.name == "*":
                continue
            full = f"{node.module}.{alias.name}"
            if not module_allowed(full):
                reason = attribute_refusal(alias.name)
                if reason:
                    raise _Refused(node, f"`from {node.module} import {alias.name}`: {reason}")
            self._bound_name(node, alias.asname)

    def _module(self, node: ast.AST, name: str) -> None:
        if not module_allowed(name):
            raise _Refused(node, f"`import {name}` is not allowed: submissions may import only {ALLOWED_SUMMARY}")

    def _bound_name(self, node: ast.AST, name: str | None) -> None:
        """A name the submission defines: no dunders, and no shadowing of a refused builtin
        (so that every later use of such a name can only mean the builtin, and is refused)."""
        if not name:
            return
        if name.startswith("__") and name.endswith("__"):
            raise _Refused(node, f"`{name}` is a reserved double-underscore name")
        if name in DENIED_BUILTINS:
            raise _Refused(node, f"`{name}` is the name of a Python builtin that submissions may not use; "
                                 f"choose another name")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.visit(node.value)  # the leftmost problem first, as the learner reads the line
        reason = attribute_refusal(node.attr)
        if reason:
            raise _Refused(node, reason)
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            raise _Refused(node, f"assigning to or deleting an attribute (`{ast.unparse(node)}`) is not allowed: "
                                 f"submissions may not change modules or objects; keep your state in local variables")

    def visit_Name(self, node: ast.Name) -> None:
        name = node.id
        if not isinstance(node.ctx, ast.Load):
            self._bound_name(node, name)
        elif name.startswith("__") and name.endswith("__") and name not in READABLE_DUNDERS:
            raise _Refused(node, f"`{name}` is a reserved double-underscore name; {_INTERNALS}")
        elif name in DENIED_BUILTINS:
            raise _Refused(node, f"`{name}` is not allowed: {DENIED_BUILTINS[name]}")

    def visit_FunctionDef(self, node) -> None:
        if node.name not in DEFINABLE_DUNDERS:
            self._bound_name(node, node.name)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._bound_name(node, node.name)
        self.generic_visit(node)

    def visit_arg(self, node: ast.arg) -> None:
        self._bound_name(node, node.arg)
        self.generic_visit(node)

    def visit_keyword(self, node: ast.keyword) -> None:
        self._bound_name(node, node.arg)
        self.generic_visit(node)

    def visit_Global(self, node) -> None:
        for name in node.names:
            self._bound_name(node, name)

    visit_Nonlocal = visit_Global

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        self._bound_name(node, node.name)
        self.generic_visit(node)

    def visit_MatchAs(self, node) -> None:
        self._bound_name(node, node.name)
        self.generic_visit(node)

    def visit_MatchStar(self, node) -> None:
        self._bound_name(node, node.name)

    def visit_MatchMapping(self, node) -> None:
        self._bound_name(node, node.rest)
        self.generic_visit(node)


def restricted_builtins() -> dict:
    """The builtins a submission runs with: the gate's refusals again, enforced at run time.

    A second copy of the same rules for what the static check cannot see; it is not a security
    boundary on its own (an escape through object internals ignores it), the sandbox is. The
    guards only refuse the submission's own code (whose globals carry these very builtins):
    Python also hands them to functions without builtins of their own that JAX generates, and to
    imports that C code starts while a submission's frame is current (numpy's, say), which must
    keep working; an import is refused only when the submission's frame is at an import statement.
    So an explicit call of ``__import__`` is let through here: only code the gate refused (the
    name is a dunder) can make one.
    """
    import dis
    import sys

    real = vars(builtins)
    restricted = dict(real)
    import_opcode = dis.opmap["IMPORT_NAME"]

    def from_submission(statement: int | None = None) -> bool:
        frame = sys._getframe(2)
        if frame.f_globals.get("__builtins__") is not restricted:
            return False
        return statement is None or frame.f_code.co_code[frame.f_lasti] == statement

    def guard(name: str):
        def refused(*args, **kwargs):
            if from_submission():
                raise NameError(f"name {name!r} is not allowed in submissions: {DENIED_BUILTINS[name]}")
            return real[name](*args, **kwargs)
        return refused

    def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
        if from_submission(import_opcode):
            if level or not module_allowed(name):
                raise ImportError(f"import of {name!r} is not allowed in submissions")
            for item in fromlist or ():
                if item != "*" and not module_allowed(f"{name}.{item}") and attribute_refusal(item):
                    raise ImportError(f"`from {name} import {item}` is not allowed in submissions")
        return real["__import__"](name, globals, locals, fromlist, level)

    for name in DENIED_BUILTINS:
        if name in real:
            restricted[name] = guard(name)
    restricted["__import__"] = guarded_import
    return restricted
