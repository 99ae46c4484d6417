"""The static gate: a submission's source is read (never run) before any process starts.

It refuses, with the line and a reason a learner understands, what a checkpointing solution
never needs and an attack usually does: imports outside an allow-list, names of allowed modules
outside their reviewed lists (``judge.in_child.allowed``: no ``functools.update_wrapper``, no
``typing.get_type_hints``), access to private or double-underscore attributes (the way out of
every Python "jail"), assignment into modules or other objects, running code from strings or
files (``exec``, ``eval``, ``compile``, ``open``, ``__import__``), reflection (``getattr``,
``setattr``, ``vars``, ``globals``...) and classes built from dictionaries (``type`` with three
arguments).

What the gate guarantees: code it accepts cannot *name* those things. What it cannot guarantee:
that no accepted construct reaches them anyway (Python is too dynamic for that: a module bound
to another name, a string built at run time), so it is the first wall, not the only one. The
child process enforces the same lists at run time (``judge.in_child.guard``: module views, refusing
builtins), the operating system layers of ``judge.sandbox`` contain whatever still gets through,
and the numbers and residual sizes the verdict rests on are recomputed where no submitted code
ran (``judge.in_child.verify``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ..data import source_text
from ..source import Source
from . import allowed

_REFLECTION = (
    "reflection is not allowed in submissions: use plain attribute access such as jax.checkpoint_policies.dots_saveable"
)
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
_CALLBACK = allowed.CALLBACK_REASON
_FILES = allowed.FILES_REASON
# Attribute names refused wherever they appear, besides every name starting with "_".
DENIED_ATTRIBUTES = {
    **{
        name: _INTERNALS
        for name in (
            "gi_frame",
            "gi_code",
            "gi_yieldfrom",
            "cr_frame",
            "cr_code",
            "cr_await",
            "cr_origin",
            "ag_frame",
            "ag_code",
            "ag_await",
            "f_back",
            "f_globals",
            "f_locals",
            "f_builtins",
            "f_code",
            "f_trace",
            "tb_frame",
            "tb_next",
            "co_code",
            "co_consts",
            "co_names",
            "func_globals",
            "func_code",
            "im_func",
            "im_self",
            "mro",
            "extend",
            "interpreters",
            "core",
            "lib",
            "config",
            "experimental",
            "ctypeslib",
            "f2py",
            "distutils",
            "testing",
            "client",
            # What hands out code objects and frames (a traced equation's traceback): from a code object,
            # ``replace(co_names=...)`` rebuilds bytecode that reads a JAX function's globals.
            "eqns",
            "source_info",
            "traceback",
            "raw_frames",
            "frames",
            "as_python_traceback",
            "f_lasti",
            "f_lineno",
            "tb_lasti",
            "tb_lineno",
            "co_filename",
            "co_name",
            "co_qualname",
            "co_varnames",
            "co_freevars",
            "co_cellvars",
            "co_lines",
            "co_positions",
            "co_exceptiontable",
            "co_lnotab",
        )
    },
    "ctypes": "raw memory access is not allowed in submissions",
    **{
        name: "submissions may not redefine JAX's primitives"
        for name in (
            "def_impl",
            "def_abstract_eval",
            "def_effectful_abstract_eval",
            "def_effectful_abstract_eval2",
            "def_bind_with_trace",
        )
    },
    **{
        name: DENIED_BUILTINS[name]
        for name in (  # the same functions, reached as attributes of a module
            "getattr",
            "setattr",
            "delattr",
            "hasattr",
            "vars",
            "globals",
            "locals",
            "eval",
            "exec",
        )
    },
    "format": "str.format can read attributes by name; use an f-string instead",
    "format_map": "str.format_map can read attributes by name; use an f-string instead",
    "debug": "jax.debug.print and jax.debug.callback are host callbacks the judge cannot grade; "
    "print() inside your function shows the traced values",
    "pure_callback": _CALLBACK,
    "io_callback": _CALLBACK,
    **{
        name: _FILES
        for name in (
            *allowed.NUMPY_FILE_FUNCTIONS,
            "dump",
            "dumps",
            "DataSource",
            "tree_serialise_leaves",
            "tree_deserialise_leaves",
            "default_serialise_filter_spec",
            "default_deserialise_filter_spec",
        )
    },
    # Equinox's namespace also holds the standard importlib module, its internal API, a host
    # callback and a helper that writes attributes onto other objects.
    "importlib": "`importlib` imports modules by name; submissions may import only the allowed modules",
    "internal": _INTERNALS,
    "filter_pure_callback": _CALLBACK,
    "module_update_wrapper": "it writes attributes onto other objects, which submissions may not change",
    # Flax NNX's module methods that set attributes chosen by a string or a keyword's name on a
    # module and its submodules (``eval`` is refused above, as the builtin).
    **{
        name: "it sets attributes chosen by name on a module; set a layer's flags where you build it "
        "(nnx.Dropout(0.1, deterministic=True, ...))"
        for name in ("sow", "perturb", "set_attributes", "train")
    },
}
READABLE_DUNDERS = frozenset({"__name__"})  # `if __name__ == "__main__":` is harmless
# Methods a class of the submission may define: `__call__` is how an Equinox module is applied,
# and defining it only changes what calling that class's own instances does.
DEFINABLE_DUNDERS = frozenset({"__call__"})
THREE_ARGUMENT_TYPE = (
    "type() with three arguments builds a class from a dictionary of names, which submissions "
    "may not do: write a class statement instead"
)


@dataclass(frozen=True)
class Refusal:
    verdict: str  # "forbidden" or "compile_error"
    line: int | None
    reason: str

    @property
    def message(self) -> str:
        return f"line {self.line}: {self.reason}" if self.line else self.reason


def check(source: Source | str) -> Refusal | None:
    """None if the gate lets the source through; else why not (the first problem found). Given the
    grading's ``Source``, the gate's parse is the one every later reader of that source shares."""
    source = Source.of(source)
    unreadable = source_text.unreadable(source.text)
    # An empty module is read (and then lacks its entry point); the site never stores one.
    if unreadable is not None and unreadable.code != "empty_source":
        verdict = "forbidden" if unreadable.code == "source_too_large" else "compile_error"
        return Refusal(verdict, None, unreadable.message)
    tree, error = source.tree, source.error  # the tree is asked for only once its size is known to be within limits
    if isinstance(error, SyntaxError):
        return Refusal("compile_error", error.lineno, f"SyntaxError: {error.msg}")
    if error is not None:  # NUL bytes (ValueError), absurd nesting (MemoryError, RecursionError)
        return Refusal("compile_error", None, f"the source cannot be parsed: {type(error).__name__}")
    try:
        _Checker(tree).visit(tree)
    except _Refused as refused:
        return Refusal("forbidden", refused.line, refused.reason)
    except RecursionError:
        return Refusal("forbidden", None, "the program is nested too deeply to be checked")
    return None


class _Refused(Exception):
    def __init__(self, node: ast.AST, reason: str):
        self.line, self.reason = getattr(node, "lineno", None), reason


def _is_dunder(name: str) -> bool:
    """``__x__``; a bare ``__`` (JAX writes ``lambda prim, *_, **__:``) is an ordinary name."""
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def attribute_refusal(name: str) -> str | None:
    """Why ``obj.<name>`` is refused, or None when it is fine."""
    if _is_dunder(name):
        return f"`{name}` is a double-underscore attribute; {_INTERNALS}"
    if name.startswith("_"):
        return f"`{name}` is a private attribute (its name starts with an underscore); use the public API"
    if name in DENIED_ATTRIBUTES:
        return f"`.{name}` is not allowed: {DENIED_ATTRIBUTES[name]}"
    return None


class _Checker(ast.NodeVisitor):
    def __init__(self, tree: ast.AST):
        self.imported = _imported_names(tree)

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
            if not allowed.module_allowed(f"{node.module}.{alias.name}"):
                reason = attribute_refusal(alias.name)
                if reason:
                    raise _Refused(node, f"`from {node.module} import {alias.name}`: {reason}")
                if allowed.name_refusal(node.module, alias.name):
                    raise _Refused(
                        node,
                        f"`from {node.module} import {alias.name}` is not allowed: "
                        f"{allowed.reason(node.module, alias.name)}",
                    )
            self._bound_name(node, alias.asname)

    def _module(self, node: ast.AST, name: str) -> None:
        if not allowed.module_allowed(name):
            raise _Refused(node, f"`import {name}` is not allowed: submissions may import only {allowed.SUMMARY}")

    def _bound_name(self, node: ast.AST, name: str | None) -> None:
        """A name the submission defines: no dunders, and no shadowing of a refused builtin
        (so that every later use of such a name can only mean the builtin, and is refused)."""
        if not name:
            return
        if _is_dunder(name):
            raise _Refused(node, f"`{name}` is a reserved double-underscore name")
        if name in DENIED_BUILTINS:
            raise _Refused(
                node, f"`{name}` is the name of a Python builtin that submissions may not use; choose another name"
            )

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.visit(node.value)  # the leftmost problem first, as the learner reads the line
        reason = attribute_refusal(node.attr)
        if reason:
            raise _Refused(node, reason)
        module = self._module_of(node.value)
        if module and allowed.name_refusal(module, node.attr):
            raise _Refused(
                node, f"`{ast.unparse(node)}` is not available in submissions: {allowed.reason(module, node.attr)}"
            )
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            raise _Refused(
                node,
                f"assigning to or deleting an attribute (`{ast.unparse(node)}`) is not allowed: "
                f"submissions may not change modules or objects; keep your state in local variables",
            )

    def _module_of(self, node: ast.AST) -> str | None:
        """The allowed module an expression such as ``jnp`` or ``jax.numpy`` stands for, if any."""
        target = self._target(node)
        return target if target and allowed.module_allowed(target) else None

    def _target(self, node: ast.AST) -> str | None:
        """What an expression such as ``jnp``, ``jax.numpy.sum`` or ``wraps`` names in an allowed
        module (``"jax.numpy.sum"``), if the file shows it."""
        if isinstance(node, ast.Name):
            return self.imported.get(node.id)
        if isinstance(node, ast.Attribute):
            parent = self._module_of(node.value)
            if parent and not allowed.name_refusal(parent, node.attr):
                return f"{parent}.{node.attr}"
        return None

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and node.func.id == "type" and (len(node.args) > 1 or node.keywords):
            raise _Refused(node, THREE_ARGUMENT_TYPE)
        if self._target(node.func) == "functools.wraps" and (len(node.args) > 1 or node.keywords):
            raise _Refused(
                node,
                "functools.wraps in a submission copies the wrapped function's name and docstring: "
                "its `assigned` and `updated` arguments copy attributes chosen by name, which "
                "submissions may not do; write `functools.wraps(function)`",
            )
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        name = node.id
        if not isinstance(node.ctx, ast.Load):
            self._bound_name(node, name)
        elif _is_dunder(name) and name not in READABLE_DUNDERS:
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
        if node.arg is not None and (node.arg.startswith("co_") or node.arg in DENIED_ATTRIBUTES):
            # a keyword names an attribute to set as surely as `.name` reads one (code.replace(co_names=...))
            raise _Refused(node, f"the keyword `{node.arg}=` is not allowed: {_INTERNALS}")
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


def _imported_names(tree: ast.AST) -> dict[str, str]:
    """Names that stand for one thing of an allowed module throughout the file, bound by import
    statements only and always to the same thing: ``jnp`` -> ``jax.numpy`` (``import jax.numpy as
    jnp``), ``wraps`` -> ``functools.wraps`` (``from functools import wraps``). A name that is also
    bound some other way is left to the run-time views (``judge.in_child.guard``)."""
    imported: dict[str, set] = {}
    other: set = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                name = alias.name if alias.asname else alias.name.partition(".")[0]
                imported.setdefault(alias.asname or name, set()).add(name)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                imported.setdefault(alias.asname or alias.name, set()).add(f"{node.module}.{alias.name}")
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            other.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            other.add(node.name)
        elif isinstance(node, ast.arg):
            other.add(node.arg)
    return {name: next(iter(targets)) for name, targets in imported.items() if len(targets) == 1 and name not in other}
